// CPU time for the benchmarks. Wall-clock ratios move with whatever else the machine runs; CPU
// time barely does, so the benchmarks print both.
import { readFile } from 'node:fs/promises';

/**
 * CPU time (user + system, ms) a process has used, with that of the children it has reaped:
 * poppler's processes for the daemon, pdftoppm for a benchmark script.
 */
export const cpuMs = async (pid: number | 'self' = 'self') => {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime, stime, cutime, cstime are fields 14-17 of stat(5), in clock ticks (100 a second)
  return fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks), 0) * 10;
};

/** The same, split: the process's own CPU time and that of the children it has reaped. */
export const cpuSplitMs = async (pid: number | 'self' = 'self') => {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const [utime, stime, cutime, cstime] = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .slice(11, 15)
    .map((ticks) => Number(ticks) * 10) as [number, number, number, number];
  return { own: utime + stime, children: cutime + cstime };
};
