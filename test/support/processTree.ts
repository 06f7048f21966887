// The processes a process started, read from /proc: what the render tests count.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { basename, join } from 'node:path';

type Proc = { pid: number; ppid: number; program: string };

const read = (pid: number): Proc | null => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ')'
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    let program = '';
    try {
      program = basename(readlinkSync(`/proc/${pid}/exe`));
    } catch {
      program = ''; // gone, or a zombie
    }
    return { pid, ppid, program };
  } catch {
    return null; // ended while we looked
  }
};

/** Every living descendant of `root`, with the program it runs (the executable's file name). */
export const descendants = (root: number): Proc[] => {
  const all = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => read(Number(name)))
    .filter((p): p is Proc => p !== null);
  const children = new Map<number, Proc[]>();
  for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const found: Proc[] = [];
  const visit = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      found.push(child);
      visit(child.pid);
    }
  };
  visit(root);
  return found;
};

/** The poppler and qpdf processes (the real tools, not their limit wrappers) under `root`. */
export const toolProcesses = (
  root: number,
  tools = ['pdftoppm', 'pdftotext', 'qpdf', 'pdfinfo', 'pdftohtml'],
) => descendants(root).filter((p) => tools.includes(p.program));

/** An embedded server's postmaster pid, from its data dir (the cluster is in pg/); null if none. */
export const postmasterPid = (dataDir: string) => {
  try {
    return Number(readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return null;
  }
};

/** Alive and not a zombie. */
export const running = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
};
