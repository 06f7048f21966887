// Debian's poppler-utils (and qpdf), run with resource limits. `timeout` alone lets pdftoppm reach
// 2 GB before the kill, so each tool runs through a tiny wrapper that sets `ulimit -v` (address
// space) and `ulimit -t` (CPU seconds) and then execs the real tool: every poppler process we
// start is capped by the kernel. We spawn them ourselves rather than through node-poppler, which
// reports a failure as stderr text only: a crash, the CPU cap's SIGXCPU and the kernel's kill are
// told apart by the signal the tool died of (see ToolFailure and renderFailure.explain).
//
// The wrappers are executed, so their directory must be ours alone: it is made fresh with
// mkdtemp (mode 0700, an unpredictable name) by each process, never found by a name another local
// user could create first and fill with their own `pdfinfo`; it is removed when the process exits.
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { chmod, lstat, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAlive } from '../isAlive.ts';

export type ProcessLimits = {
  memoryMb: number;
  cpuSeconds: number;
  /** where the real tools live; tests put stand-ins (that crash, hang, allocate) elsewhere */
  toolDir?: string;
};

/** The caps every poppler process runs under, uploads' pdfinfo included. */
export const DEFAULT_LIMITS: ProcessLimits = { memoryMb: 1536, cpuSeconds: 600 };

// qpdf (Debian's `qpdf` package) reads the document's structure (see documentStructure.ts); it
// runs under the same wrappers, so the same limits hold for it.
const TOOLS = ['pdfinfo', 'pdftoppm', 'pdftotext', 'pdftocairo', 'qpdf'];
/** What the daemon keeps of a poppler process's complaints: plenty to explain a failure. */
const STDERR_BYTES = 64 * 1024;
const dirs = new Map<string, Promise<string>>();

/** The directory of wrappers for these limits, made once per process. */
export const limitedDir = (limits: ProcessLimits): Promise<string> => {
  const key = `${limits.memoryMb}:${limits.cpuSeconds}:${limits.toolDir ?? ''}`;
  let dir = dirs.get(key);
  if (!dir) {
    dir = makeWrappers(limits);
    // A failed attempt (a full /tmp) is not remembered: the next job tries again.
    dir.catch(() => dirs.delete(key));
    dirs.set(key, dir);
  }
  return dir;
};

export type ToolRun = { code: number; stdout: string; stderr: string };

export type Tool = (typeof TOOLS)[number];

/**
 * A tool that did not end its work: it exited non-zero (when the caller treats that as failure)
 * or died of a signal we did not send: SIGSEGV (a crash), SIGXCPU (the CPU cap), SIGKILL (the
 * kernel's out-of-memory killer), SIGABRT (poppler's own "Out of memory" abort, or a failed
 * assertion). What it said on stderr (at most STDERR_BYTES) comes with it.
 */
export class ToolFailure extends Error {
  override name = 'ToolFailure';
  readonly tool: string;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
  constructor(tool: string, code: number | null, signal: NodeJS.Signals | null, stderr: string) {
    super(`${tool} ${signal ? `died of ${signal}` : `exited with status ${code}`}\n${stderr}`);
    this.tool = tool;
    this.code = code;
    this.signal = signal;
    this.stderr = stderr;
  }
}

/**
 * Runs one of the wrapped tools (`pdfinfo`, `pdftotext`, `qpdf`, ...) under the limits, with the
 * wall-clock limit of `signal`, keeping at most `maxBytes` of its output: a tool that writes more
 * is killed and that is a failure (a hostile file cannot fill the daemon's memory through
 * stdout). Resolves with the exit code, whatever it is; rejects only when the tool could not run
 * to its end (killed, aborted, too much output, missing).
 */
export const runLimited = async (
  limits: ProcessLimits,
  tool: Tool,
  args: string[],
  options: { signal: AbortSignal; maxBytes: number },
): Promise<ToolRun> => {
  const dir = await limitedDir(limits);
  return new Promise((resolve, reject) => {
    execFile(
      join(dir, tool),
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
        // A number is the tool's own exit status; anything else (a signal, ENOENT, an abort,
        // ERR_CHILD_PROCESS_STDIO_MAXBUFFER) means it did not finish its work.
        if (typeof code === 'number' && !(error as { killed?: boolean }).killed) {
          return resolve({ code, stdout, stderr });
        }
        // Died of a signal nobody here sent: say which, with what it printed.
        const signal = (error as { signal?: NodeJS.Signals | null }).signal ?? null;
        if (signal && !options.signal.aborted && !(error as { killed?: boolean }).killed) {
          return reject(new ToolFailure(tool, null, signal, String(stderr)));
        }
        reject(error);
      },
    );
  });
};

/** The directory of the wrappers this process made, for tests and the exit clean-up. */
export const wrapperDirs: string[] = [];

const makeWrappers = async (limits: ProcessLimits) => {
  // The pid in the name lets a later start remove the folder of a process that was killed
  // (sweepWrapperDirs); the random suffix is what makes it unguessable.
  const dir = await mkdtemp(join(tmpdir(), `flipbook-poppler-${process.pid}-`));
  if (wrapperDirs.length === 0) {
    process.once('exit', () => {
      for (const made of wrapperDirs) rmSync(made, { recursive: true, force: true });
    });
  }
  wrapperDirs.push(dir);
  for (const tool of TOOLS) {
    const script = [
      '#!/bin/bash',
      `ulimit -v ${Math.round(limits.memoryMb * 1024)} 2>/dev/null`,
      // The soft CPU limit sends SIGXCPU, which ends poppler and names the cause; the hard one,
      // a little later, SIGKILLs a tool that would survive it. (Equal limits send SIGKILL at
      // once, which looks like the kernel's out-of-memory kill.)
      `ulimit -H -t ${Math.round(limits.cpuSeconds) + 5} 2>/dev/null`,
      `ulimit -S -t ${Math.round(limits.cpuSeconds)} 2>/dev/null`,
      // We keep all of stderr in one string, and a hostile file can make poppler
      // write gigabytes of complaints (the corpus's smask bomb: 2 GB in a minute): only the first
      // STDERR_BYTES reach us, the rest is read and dropped (closing the pipe would kill a tool
      // that merely complains). exec keeps the tool's own exit status and signal.
      `exec ${shellQuote(join(limits.toolDir ?? '/usr/bin', tool))} "$@" 2> >(head -c ${STDERR_BYTES} >&2; cat >/dev/null)`,
      '',
    ].join('\n');
    const file = join(dir, tool);
    // 'wx': in our own fresh directory nothing can be there already; if something is, stop.
    await writeFile(file, script, { flag: 'wx', mode: 0o700 });
    await chmod(file, 0o700);
  }
  return dir;
};

const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * Removes the wrapper folders of processes that died without cleaning up (kill -9): ours by
 * owner, with a pid that no longer runs. Best effort: a folder we cannot judge stays.
 */
export const sweepWrapperDirs = async () => {
  const uid = process.getuid?.();
  for (const name of await readdir(tmpdir()).catch(() => [] as string[])) {
    const pid = Number(/^flipbook-poppler-(\d+)-[A-Za-z0-9]{6}$/.exec(name)?.[1]);
    if (!pid || pid === process.pid || isAlive(pid)) continue;
    const path = join(tmpdir(), name);
    const info = await lstat(path).catch(() => null);
    if (info?.isDirectory() && info.uid === uid) await rm(path, { recursive: true, force: true });
  }
};
