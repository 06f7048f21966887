// What a killed daemon's tools left running (kill -9 leaves a process's children): found by the
// scratch folder their command lines name, and killed with what they started, by the next start's
// sweep (./toolWrappers.ts, sweepWrapperDirs).
import { readdir, readFile } from 'node:fs/promises';
import { basename } from 'node:path';

/**
 * Kills what killed processes left running in `folders` (kill -9 leaves its children: a
 * LibreOffice conversion went on for minutes beside the job's retry and made it time out): every
 * process whose command line names one of them, and all it started. Its process group goes with it
 * only where it leads one (LibreOffice's chain is started in a group of its own: timeout →
 * oosplash → soffice.bin); poppler's tools share their daemon's group, and so may whatever
 * started the daemon (a supervisor's script), which is never touched. Nor is this process or any
 * it descends from. Linux's /proc; elsewhere nothing is found. Says what it killed (pid and
 * program), for the start's log.
 */
export const killOrphansOf = async (folders: readonly string[]): Promise<string[]> => {
  const table = await processTable();
  const doomed = new Set<number>();
  for (const tool of table) {
    if (!tool.args.some((arg) => folders.some((folder) => arg.includes(folder)))) continue;
    doomed.add(tool.pid);
    if (tool.pid === tool.group) {
      for (const member of table) if (member.group === tool.group) doomed.add(member.pid);
    }
  }
  // ...and down the tree, whatever group its children are in
  for (let grew = doomed.size > 0; grew; ) {
    grew = false;
    for (const { pid, parent } of table) {
      if (!doomed.has(pid) && doomed.has(parent)) {
        doomed.add(pid);
        grew = true;
      }
    }
  }
  const byPid = new Map(table.map((entry) => [entry.pid, entry]));
  for (let pid: number | undefined = process.pid; pid && pid > 1; pid = byPid.get(pid)?.parent) {
    doomed.delete(pid);
  }
  const killed: string[] = [];
  for (const pid of doomed) {
    try {
      process.kill(pid, 'SIGKILL');
      killed.push(`${basename(byPid.get(pid)?.args[0] ?? '') || '?'} ${pid}`);
    } catch {
      // gone meanwhile, or not ours to kill
    }
  }
  return killed;
};

/** This machine's processes: pid, parent, group and command line (Linux's /proc). */
const processTable = async () => {
  const table: { pid: number; parent: number; group: number; args: string[] }[] = [];
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    const [stat, cmdline] = await Promise.all([
      readFile(`/proc/${entry}/stat`, 'utf8').catch(() => ''),
      readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => ''),
    ]);
    // The fields after the name in parentheses (which may hold anything): state, parent, group.
    const [, parent, group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (!stat) continue;
    table.push({
      pid: Number(entry),
      parent: Number(parent),
      group: Number(group),
      args: cmdline.split('\0'),
    });
  }
  return table;
};
