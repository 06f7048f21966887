// node-poppler over Debian's poppler-utils, with resource limits. node-poppler runs each tool as a
// child process and takes an AbortSignal (our wall-clock limit), but it has no memory or CPU cap,
// and `timeout` alone lets pdftoppm reach 2 GB before the kill. So we give node-poppler a
// directory of tiny wrappers that set `ulimit -v` (address space) and `ulimit -t` (CPU seconds)
// and then exec the real tool: every poppler process we start is capped by the kernel.
import { createHash } from 'node:crypto';
import { chmod, mkdir, rename, writeFile } from 'node:fs/promises';
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
    cache.set(key, poppler);
  }
  return poppler;
};

const makeWrappers = async (limits: ProcessLimits) => {
  const tag = createHash('sha256').update(JSON.stringify(limits)).digest('hex').slice(0, 12);
  const dir = join(tmpdir(), `flipbook-poppler-${process.getuid?.() ?? 0}-${tag}`);
  await mkdir(dir, { recursive: true });
  for (const tool of TOOLS) {
    const script = [
      '#!/bin/sh',
      `ulimit -v ${Math.round(limits.memoryMb * 1024)} 2>/dev/null`,
      `ulimit -t ${Math.round(limits.cpuSeconds)} 2>/dev/null`,
      `exec /usr/bin/${tool} "$@"`,
      '',
    ].join('\n');
    const file = join(dir, tool);
    await writeFile(`${file}.tmp`, script);
    await chmod(`${file}.tmp`, 0o755);
    await rename(`${file}.tmp`, file); // atomic: another process may be using the wrapper
  }
  return dir;
};
