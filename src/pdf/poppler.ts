// node-poppler over Debian's poppler-utils, with resource limits. node-poppler runs each tool as a
// child process and takes an AbortSignal (our wall-clock limit), but it has no memory or CPU cap,
// and `timeout` alone lets pdftoppm reach 2 GB before the kill. So we give node-poppler a
// directory of tiny wrappers that set `ulimit -v` (address space) and `ulimit -t` (CPU seconds)
// and then exec the real tool: every poppler process we start is capped by the kernel.
//
// The wrappers are executed, so their directory must be ours alone: it is made fresh with
// mkdtemp (mode 0700, an unpredictable name) by each process, never found by a name another local
// user could create first and fill with their own `pdfinfo`; it is removed when the process exits.
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { chmod, lstat, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Poppler } from 'node-poppler';
import { isAlive } from '../isAlive.ts';

export type ProcessLimits = { memoryMb: number; cpuSeconds: number };

// qpdf (Debian's `qpdf` package) reads the document's structure (see documentStructure.ts); it
// runs under the same wrappers, so the same limits hold for it.
const TOOLS = ['pdfinfo', 'pdftoppm', 'pdftotext', 'pdftocairo', 'qpdf'];
/** What the daemon keeps of a poppler process's complaints: plenty to explain a failure. */
const STDERR_BYTES = 64 * 1024;
const cache = new Map<string, Promise<Poppler>>();
const dirs = new Map<string, Promise<string>>();

/** The directory of wrappers for these limits, made once per process. */
const limitedDir = (limits: ProcessLimits): Promise<string> => {
  const key = `${limits.memoryMb}:${limits.cpuSeconds}`;
  let dir = dirs.get(key);
  if (!dir) {
    dir = makeWrappers(limits);
    // A failed attempt (a full /tmp) is not remembered: the next job tries again.
    dir.catch(() => dirs.delete(key));
    dirs.set(key, dir);
  }
  return dir;
};

export const limitedPoppler = (limits: ProcessLimits): Promise<Poppler> => {
  const key = `${limits.memoryMb}:${limits.cpuSeconds}`;
  let poppler = cache.get(key);
  if (!poppler) {
    poppler = limitedDir(limits).then((dir) => new Poppler(dir));
    poppler.catch(() => cache.delete(key));
    cache.set(key, poppler);
  }
  return poppler;
};

export type ToolRun = { code: number; stdout: string; stderr: string };

/**
 * Runs one of the wrapped tools (`pdfinfo`, `pdftotext`, `qpdf`, ...) under the limits, with the
 * wall-clock limit of `signal`, keeping at most `maxBytes` of its output: a tool that writes more
 * is killed and that is a failure (a hostile file cannot fill the daemon's memory through
 * stdout). Resolves with the exit code, whatever it is; rejects only when the tool could not run
 * to its end (killed, aborted, too much output, missing).
 */
export const runLimited = async (
  limits: ProcessLimits,
  tool: (typeof TOOLS)[number],
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
      `ulimit -t ${Math.round(limits.cpuSeconds)} 2>/dev/null`,
      // node-poppler keeps all of stderr in one string, and a hostile file can make poppler
      // write gigabytes of complaints (the corpus's smask bomb: 2 GB in a minute): only the first
      // STDERR_BYTES reach us, the rest is read and dropped (closing the pipe would kill a tool
      // that merely complains). exec keeps the tool's own exit status and signal.
      `exec /usr/bin/${tool} "$@" 2> >(head -c ${STDERR_BYTES} >&2; cat >/dev/null)`,
      '',
    ].join('\n');
    const file = join(dir, tool);
    // 'wx': in our own fresh directory nothing can be there already; if something is, stop.
    await writeFile(file, script, { flag: 'wx', mode: 0o700 });
    await chmod(file, 0o700);
  }
  return dir;
};

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
