// Debian's poppler-utils through node-poppler (and qpdf), each run with resource limits.
//
// Limits: `timeout` alone lets pdftoppm reach 2 GB before the kill, so node-poppler is given a
// directory of tiny wrappers, one per tool and named like it (toolWrappers.ts), that set
// `ulimit -v` (address space) and `ulimit -t` (CPU seconds) before they run the real tool: every
// poppler process we start is capped by the kernel. node-poppler's AbortSignal is the wall clock.
//
// How a tool ended: node-poppler rejects with `new Error(stderr)` and nothing else, and resolves
// with stdout whenever there is some, whatever the exit status. So the wrapper itself tells: when
// the tool fails it passes none of its stdout on (node-poppler then rejects), and ends stderr
// with one line of its own, `flipbook-poppler: pdftoppm died of signal SEGV` (or `exited with
// status 1`, `wrote more than N bytes`), which toolFailure() turns back into a ToolFailure. A
// crash, the CPU cap's SIGXCPU, the kernel's SIGKILL and poppler's "Out of memory" abort stay
// apart that way (renderFailure.classify). That line comes after the tool has ended, so nothing
// the PDF makes poppler print can stand in for it: only the last line of a failure counts. A
// last line saying the output could not be kept (a full TMPDIR) is a MachineFailure instead: the
// machine's failure, never a verdict on the document.
//
// Stopping: node-poppler's abort sends SIGTERM to the wrapper, which kills the tool, and
// node-poppler rejects at once, before either is gone. An aborted run waits for them (see
// `stoppedWrappers`): a page file written after the render's folder was removed, or a tool
// outliving its document, would otherwise be possible.
// One file (over 300 lines): the three ways a tool is run (node-poppler's, the wrapper's own for
// arguments node-poppler lacks, qpdf's) share the wrappers, their failure line and the stop.
import { type ChildProcess, execFile } from 'node:child_process';
import { subscribe } from 'node:diagnostics_channel';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type PdfImagesOptions,
  type PdfInfoOptions,
  type PdfToPpmOptions,
  type PdfToTextOptions,
  Poppler,
} from 'node-poppler';
import { MachineFailure } from '../domain/errors.ts';
import { limitedDir, limitsKey, type ProcessLimits, wrapperDirs } from './toolWrappers.ts';

export {
  DEFAULT_LIMITS,
  limitedDir,
  type ProcessLimits,
  sweepAtStart,
  sweepWrapperDirs,
  wrapperDirs,
} from './toolWrappers.ts';

/**
 * A tool that did not end its work: it exited non-zero, died of a signal we did not send
 * (SIGSEGV: a crash; SIGXCPU: the CPU cap; SIGKILL: the kernel's out-of-memory killer; SIGABRT:
 * poppler's own "Out of memory" abort, or a failed assertion), or wrote more than its caller
 * reads (`ending` says so). What it said on stderr (at most 64 KB) comes with it.
 */
export class ToolFailure extends Error {
  override name = 'ToolFailure';
  readonly tool: string;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
  constructor(
    tool: string,
    code: number | null,
    signal: NodeJS.Signals | null,
    stderr: string,
    ending?: string,
  ) {
    const how = ending ?? (signal ? `died of ${signal}` : `exited with status ${code}`);
    super(`${tool} ${how}\n${stderr}`);
    this.tool = tool;
    this.code = code;
    this.signal = signal;
    this.stderr = stderr;
  }
}

/** One poppler run, in node-poppler's terms: the file, where the output goes, the options. */
export type PopplerCall =
  | { tool: 'pdfinfo'; file: string; options: Omit<PdfInfoOptions, 'printAsJson'> }
  /** `output` omitted: the text comes back as stdout */
  | { tool: 'pdftotext'; file: string; output?: string; options: PdfToTextOptions }
  | { tool: 'pdftoppm'; file: string; outputPrefix: string; options: PdfToPpmOptions }
  /** an image book's pages (./imageRange.ts): each page's image as it is in the PDF */
  | { tool: 'pdfimages'; file: string; outputPrefix: string; options: PdfImagesOptions };

const poppler = new Map<string, Promise<Poppler>>();

/** One node-poppler per wrapper directory: it asks each tool's version once, then remembers. */
const limitedPoppler = (limits: ProcessLimits): Promise<Poppler> => {
  const key = limitsKey(limits);
  let made = poppler.get(key);
  if (!made) {
    made = limitedDir(limits).then((dir) => new Poppler(dir));
    made.catch(() => poppler.delete(key));
    poppler.set(key, made);
  }
  return made;
};

/**
 * Runs a poppler tool through node-poppler under the limits, with the wall-clock limit of
 * `signal`, and resolves with its stdout (trimmed, as node-poppler gives it). Rejects when the
 * tool did not do its work: a ToolFailure saying how it ended (a non-zero status, a signal, more
 * than `maxBytes` of output: a hostile file cannot fill the daemon's memory through stdout), a
 * MachineFailure when TMPDIR failed (its output lost, the wrappers not made), the abort's reason
 * once `signal` fired, or the error that kept it from starting.
 */
export const runPoppler = async (
  limits: ProcessLimits,
  call: PopplerCall,
  options: { signal: AbortSignal; maxBytes: number },
): Promise<string> => {
  options.signal.throwIfAborted();
  // The wrappers' folder is made in TMPDIR: a disk too full for it is the machine's failure.
  const tools = await limitedPoppler(limits).catch((error: unknown) => {
    throw unmadeWrappers(error);
  });
  let stdout: string;
  try {
    stdout = await invoke(tools, call, options.signal);
  } catch (error) {
    if (options.signal.aborted) {
      await stoppedWrappers();
      // Stopped by us (a cut, the watchdog, a deadline): that, not what the tool said dying.
      throw (error as Error)?.name === 'AbortError' ? error : options.signal.reason;
    }
    throw toolFailure(call.tool, error);
  }
  // node-poppler's words for "exited 0 and printed nothing" (pdftoppm, pdftotext to a file).
  if (stdout === 'No Error') return '';
  // The wrapper passes on at most the most any caller reads (toolWrappers.ts); this caller may
  // read less.
  if (Buffer.byteLength(stdout) > options.maxBytes) {
    throw new ToolFailure(call.tool, null, null, '', `wrote more than ${options.maxBytes} bytes`);
  }
  return stdout;
};

const invoke = (tools: Poppler, call: PopplerCall, signal: AbortSignal): Promise<string> => {
  const extras = { signal };
  switch (call.tool) {
    case 'pdfinfo':
      // Without printAsJson, pdfInfo resolves with pdfinfo's own text.
      return tools.pdfInfo(call.file, call.options, extras) as Promise<string>;
    case 'pdftotext':
      return tools.pdfToText(call.file, call.output, call.options, extras);
    case 'pdftoppm':
      return tools.pdfToPpm(call.file, call.outputPrefix, call.options, extras);
    case 'pdfimages':
      return tools.pdfImages(call.file, call.outputPrefix, call.options, extras);
  }
};

/**
 * The wrappers node-poppler started, until they exit: it keeps their ChildProcess to itself, and
 * Node announces each new one on the `child_process` diagnostics channel (its file is set once
 * it is spawned, in the same tick).
 */
const wrappers = new Set<ChildProcess>();
subscribe('child_process', (message) => {
  const child = (message as { process: ChildProcess }).process;
  process.nextTick(() => {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    if (!wrapperDirs.some((dir) => child.spawnfile?.startsWith(`${dir}/`))) return;
    wrappers.add(child);
    child.once('exit', () => wrappers.delete(child));
  });
});

/**
 * Resolves once every wrapper that was told to stop has exited. A wrapper exits only once its
 * tool is gone, so an aborted run returns with nothing of it still running.
 */
const stoppedWrappers = () =>
  Promise.all(
    [...wrappers]
      .filter((child) => child.killed)
      .map((child) => new Promise((resolve) => child.once('exit', resolve))),
  );

/** The wrapper's last line when a tool failed (see toolWrappers.ts). */
const MARKER = /^flipbook-poppler: (\S+) (.+)$/;

/**
 * The ToolFailure a rejection from node-poppler stands for, read from the wrapper's last line;
 * the error as it is when that line is missing (the tool could not be started, an abort).
 * node-poppler's own rejections are `new Error(stderr)`; its version probe (`tool -v`) rejects
 * with execFile's error, which carries `stderr`.
 */
export const toolFailure = (tool: string, error: unknown): unknown => {
  const stderr = (error as { stderr?: unknown })?.stderr;
  const said =
    typeof stderr === 'string' ? stderr : error instanceof Error ? error.message : String(error);
  const lines = said.trimEnd().split('\n');
  const marker = MARKER.exec(lines.at(-1) ?? '');
  if (!marker || marker[1] !== tool) return error;
  const before = lines.slice(0, -1).join('\n').trim();
  const how = marker[2] as string;
  // The wrapper could not keep what the tool printed (TMPDIR full or failing): the machine's.
  const unkept = / in TMPDIR \((.*)\)$/.exec(how);
  if (how.startsWith('could not keep its output: ') && unkept) {
    return new MachineFailure(`${tool} ${how}`, unkept[1] as string);
  }
  const signal = /^died of signal (\w+)$/.exec(how)?.[1];
  if (signal) return new ToolFailure(tool, null, signalName(signal), before);
  const status = /^exited with status (\d+)$/.exec(how)?.[1];
  if (status) return new ToolFailure(tool, Number(status), null, before);
  // In the wrapper's own words: pdfinfo exited 0 after an allocation failed, a tool wrote more
  // than it may.
  return new ToolFailure(
    tool,
    how.startsWith('exited with status 0') ? 0 : null,
    null,
    before,
    how,
  );
};

/** The wrappers' folder could not be made or filled in TMPDIR (mkdtemp, a script's write). */
const unmadeWrappers = (error: unknown) => {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (!code || !/^E[A-Z]+$/.test(code)) return error;
  const cause =
    code === 'ENOSPC' || code === 'EDQUOT'
      ? 'no space left'
      : `${code} (${(error as Error).message})`;
  return new MachineFailure(
    `the poppler wrappers could not be made: ${cause} in TMPDIR (${tmpdir()})`,
    tmpdir(),
  );
};

/** SIGSEGV from bash's SEGV (or a bare number, for a signal bash has no name for). */
const signalName = (name: string): NodeJS.Signals => {
  if (/^\d+$/.test(name)) {
    const known = Object.entries(constants.signals).find(([, n]) => n === Number(name));
    return (known?.[0] ?? `SIG${name}`) as NodeJS.Signals;
  }
  return `SIG${name}` as NodeJS.Signals;
};

/**
 * Runs a poppler tool with arguments node-poppler does not know (`pdftotext -tsv`), through the
 * same wrapper and its limits, writing to a file: resolves when it did its work, rejects as
 * runPoppler does (a ToolFailure, a MachineFailure, the abort's reason once it is awaited).
 */
export const runPopplerArgs = async (
  limits: ProcessLimits,
  tool: 'pdftotext',
  args: string[],
  options: { signal: AbortSignal },
): Promise<void> => {
  options.signal.throwIfAborted();
  const dir = await limitedDir(limits).catch((error: unknown) => {
    throw unmadeWrappers(error);
  });
  await new Promise<void>((resolve, reject) => {
    // SIGTERM, as node-poppler's abort: the wrapper kills the tool before it exits.
    execFile(
      join(dir, tool),
      args,
      { signal: options.signal, maxBuffer: 64 * 1024, encoding: 'utf8' },
      (error) => (error ? reject(error) : resolve()),
    );
  }).catch(async (error: unknown) => {
    if (options.signal.aborted) {
      await stoppedWrappers();
      throw options.signal.reason;
    }
    throw toolFailure(tool, error);
  });
};

export type ToolRun = { code: number; stdout: string; stderr: string };

/**
 * Runs qpdf (not poppler: node-poppler has no qpdf, so it keeps its own execFile) under the same
 * limits through its wrapper, which execs it, so its exit status and signal are its own. Keeps at
 * most `maxBytes` of its output: one that writes more is killed, and that is a failure. Resolves
 * with the exit code, whatever it is (3: qpdf repaired something, its output is whole); rejects
 * when qpdf could not run to its end (a signal, aborted, too much output, missing).
 */
export const runQpdf = async (
  limits: ProcessLimits,
  args: string[],
  options: { signal: AbortSignal; maxBytes: number },
): Promise<ToolRun> => {
  const dir = await limitedDir(limits);
  return new Promise((resolve, reject) => {
    execFile(
      join(dir, 'qpdf'),
      args,
      {
        signal: options.signal,
        maxBuffer: options.maxBytes,
        encoding: 'utf8',
        killSignal: 'SIGKILL',
      },
      (error, stdout, stderr) => {
        if (!error) return resolve({ code: 0, stdout, stderr });
        const code = (error as { code?: unknown }).code;
        // A number is qpdf's own exit status; anything else (a signal, ENOENT, an abort,
        // ERR_CHILD_PROCESS_STDIO_MAXBUFFER) means it did not finish its work.
        if (typeof code === 'number' && !(error as { killed?: boolean }).killed) {
          return resolve({ code, stdout, stderr });
        }
        const signal = (error as { signal?: NodeJS.Signals | null }).signal ?? null;
        if (signal && !options.signal.aborted && !(error as { killed?: boolean }).killed) {
          return reject(new ToolFailure('qpdf', null, signal, String(stderr)));
        }
        reject(error);
      },
    );
  });
};
