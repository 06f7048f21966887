// What a killed daemon left running (kill -9 leaves its children: a LibreOffice conversion went on
// for minutes beside its job's retry and made it time out) is killed by the next start's sweep
// (src/pdf/toolWrappers.ts, sweepWrapperDirs), its whole process group, before its folder goes.
// Real processes: a dead pid, a folder named for it, a process group running in it.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { isAlive } from '../../src/isAlive.ts';
import { sweepAtStart, sweepWrapperDirs } from '../../src/pdf/toolWrappers.ts';

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
    // as a start runs it: what it removed and killed said in the log
    const said: { fields: object; message: string }[] = [];
    await sweepAtStart({ info: (fields, message) => said.push({ fields, message }) });
    await expect.poll(() => membersOf(leader)).toBe(0);
    expect(said).toHaveLength(1);
    expect(said[0]?.message).toMatch(
      /^removed \d+ scratch folders of killed processes, and killed what ran there: .*/,
    );
    expect(said[0]?.message).toContain(`bash ${leader}`);
    expect(said[0]?.message).toMatch(/\btail \d+/);
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

it('kills a tool in the group of what started its daemon with what it started, never that group', async () => {
  const gone = spawn('true');
  await once(gone, 'exit');
  const folder = join(tmpdir(), `flipbook-poppler-${gone.pid}-Shared`);
  await mkdir(folder, { recursive: true });
  // poppler's wrappers run in their daemon's group, which may be a supervisor script's (its
  // leader): here a script running a `sleep 301` of its own beside a tool naming the folder
  // (as its $0), which runs a `sleep 300`.
  const supervisor = spawn('bash', ['-c', 'sleep 301 & bash -c "sleep 300 & wait" "$F" & wait'], {
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, F: folder },
  });
  const script = supervisor.pid ?? 0;
  try {
    await expect.poll(async () => (await descendantsOf(script)).length).toBe(3);
    const all = await descendantsOf(script);
    const named = all.filter((d) => d.args.includes(folder)).map((d) => d.pid);
    expect(named).toHaveLength(1);
    const toolsChild = all.filter((d) => named.includes(d.parent)).map((d) => d.pid);
    const ownSleep = all
      .filter((d) => d.parent === script && !named.includes(d.pid))
      .map((d) => d.pid);
    expect([toolsChild.length, ownSleep.length]).toEqual([1, 1]);
    await sweepWrapperDirs();
    await expect.poll(() => runningOf([...named, ...toolsChild])).toEqual([]);
    expect(await runningOf([script, ...ownSleep])).toEqual([script, ...ownSleep]);
    expect(existsSync(folder)).toBe(false);
  } finally {
    try {
      process.kill(-script, 'SIGKILL');
    } catch {}
  }
});

/** Those of `pids` that still run: not gone, nor dead and waiting to be collected (a zombie:
 * this machine's init may never collect one whose parent was killed). */
const runningOf = async (pids: number[]) => {
  const running: number[] = [];
  for (const pid of pids) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    if (stat && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z') running.push(pid);
  }
  return running;
};

/** The processes under `root` that still run, with their parent and command line (/proc). */
const descendantsOf = async (root: number) => {
  const table: { pid: number; parent: number; args: string }[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (!stat || fields[0] === 'Z') continue;
    const args = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    table.push({ pid: Number(entry), parent: Number(fields[1]), args });
  }
  const found: typeof table = [];
  for (let parents = [root]; parents.length > 0; ) {
    const next = table.filter((p) => parents.includes(p.parent));
    found.push(...next);
    parents = next.map((p) => p.pid);
  }
  return found;
};

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

it('removes a killed process’s readers’ marked downloads and tiles being made, not a living one’s', async () => {
  const gone = spawn('true');
  await once(gone, 'exit');
  const dead = [`flipbook-stamps-${gone.pid}-Marked`, `flipbook-tile-${gone.pid}-Tile01`].map(
    (name) => join(tmpdir(), name),
  );
  const living = join(tmpdir(), `flipbook-stamps-${process.pid}-Living`);
  // Earlier versions' (no pid in the name): one untouched for a day goes, a recent one stays.
  const old = join(tmpdir(), 'flipbook-stamps-OldOne');
  const recent = join(tmpdir(), 'flipbook-stamps-Recent');
  for (const folder of [...dead, living, old, recent]) {
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'copy.pdf'), 'marked for ann@example.org');
  }
  const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3_600_000);
  await utimes(old, twoDaysAgo, twoDaysAgo);
  try {
    await sweepWrapperDirs();
    expect([...dead, old].filter(existsSync)).toEqual([]);
    expect([living, recent].filter(existsSync)).toEqual([living, recent]);
  } finally {
    for (const folder of [living, recent]) await rm(folder, { recursive: true, force: true });
  }
});
