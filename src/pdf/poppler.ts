// node-poppler over Debian's poppler-utils, with resource limits. node-poppler runs each tool as a
// child process and takes an AbortSignal (our wall-clock limit), but it has no memory or CPU cap,
// and `timeout` alone lets pdftoppm reach 2 GB before the kill. So we give node-poppler a
// directory of tiny wrappers that set `ulimit -v` (address space) and `ulimit -t` (CPU seconds)
// and then exec the real tool: every poppler process we start is capped by the kernel.
//
// The wrappers are executed, so their directory must be ours alone: it is made fresh with
// mkdtemp (mode 0700, an unpredictable name) by each process, never found by a name another local
// user could create first and fill with their own `pdfinfo`; it is removed when the process exits.
import { rmSync } from 'node:fs';
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Poppler } from 'node-poppler';

export type ProcessLimits = { memoryMb: number; cpuSeconds: number };

const TOOLS = ['pdfinfo', 'pdftoppm', 'pdftotext', 'pdftocairo'];
const cache = new Map<string, Promise<Poppler>>();

export const limitedPoppler = (limits: ProcessLimits): Promise<Poppler> => {
  const key = `${limits.memoryMb}:${limits.cpuSeconds}`;
  let poppler = cache.get(key);
  if (!poppler) {
    poppler = makeWrappers(limits).then((dir) => new Poppler(dir));
    // A failed attempt (a full /tmp) is not remembered: the next job tries again.
    poppler.catch(() => cache.delete(key));
    cache.set(key, poppler);
  }
  return poppler;
};

/** The directory of the wrappers this process made, for tests and the exit clean-up. */
export const wrapperDirs: string[] = [];

const makeWrappers = async (limits: ProcessLimits) => {
  const dir = await mkdtemp(join(tmpdir(), 'flipbook-poppler-'));
  if (wrapperDirs.length === 0) {
    process.once('exit', () => {
      for (const made of wrapperDirs) rmSync(made, { recursive: true, force: true });
    });
  }
  wrapperDirs.push(dir);
  for (const tool of TOOLS) {
    const script = [
      '#!/bin/sh',
      `ulimit -v ${Math.round(limits.memoryMb * 1024)} 2>/dev/null`,
      `ulimit -t ${Math.round(limits.cpuSeconds)} 2>/dev/null`,
      `exec /usr/bin/${tool} "$@"`,
      '',
    ].join('\n');
    const file = join(dir, tool);
    // 'wx': in our own fresh directory nothing can be there already; if something is, stop.
    await writeFile(file, script, { flag: 'wx', mode: 0o700 });
    await chmod(file, 0o700);
  }
  return dir;
};
