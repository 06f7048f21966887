// What a killed daemon left running (kill -9 leaves its children: a LibreOffice conversion went on
// for minutes beside its job's retry and made it time out) is killed by the next start's sweep
// (src/pdf/toolWrappers.ts, sweepWrapperDirs), its whole process group, before its folder goes.
// Real processes: a dead pid, a folder named for it, a process group running in it.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { isAlive } from '../../src/isAlive.ts';
import { sweepWrapperDirs } from '../../src/pdf/toolWrappers.ts';

it('kills a dead process’s tools still running in its folder, their group too, then removes it', async () => {
  // A pid that ran and is gone: the killed daemon's.
  const gone = spawn('true');
  await once(gone, 'exit');
  const deadPid = gone.pid ?? 0;
  expect(isAlive(deadPid)).toBe(false);
  const folder = join(tmpdir(), `flipbook-office-${deadPid}-Orphan`);
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, 'document.docx'), 'x');
  // Its conversion, as the daemon started it: a group of its own (timeout → the tool), the
  // folder named in the tool's command line, and a child of the group that does not name it.
  const group = spawn(
    'bash',
    ['-c', `tail -f ${join(folder, 'document.docx')} & sleep 300 & wait`],
    { detached: true, stdio: 'ignore' },
  );
  const leader = group.pid ?? 0;
  // An unrelated process of ours naming another folder: left alone.
  const other = join(tmpdir(), `flipbook-office-${process.pid}-Living`);
  await mkdir(other, { recursive: true });
  const bystander = spawn('tail', ['-f', '/dev/null', other], { detached: true, stdio: 'ignore' });
  try {
    await expect.poll(() => membersOf(leader)).toBeGreaterThanOrEqual(3);
    await sweepWrapperDirs();
    await expect.poll(() => membersOf(leader)).toBe(0);
    expect(existsSync(folder)).toBe(false);
    expect(isAlive(bystander.pid ?? 0)).toBe(true);
    expect(existsSync(other)).toBe(true); // (its process is this one, alive)
  } finally {
    try {
      process.kill(-leader, 'SIGKILL');
    } catch {}
    bystander.kill('SIGKILL');
  }
});

/** How many processes are in this group (Linux's /proc). */
const membersOf = async (group: number) => {
  let count = 0;
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // (a zombie waiting for its parent is no longer running)
    if (Number(fields[2]) === group && fields[0] !== 'Z') count++;
  }
  return count;
};
