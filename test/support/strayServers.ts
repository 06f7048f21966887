// After the whole run: embedded PostgreSQL servers still running in this run's data directories
// (in /tmp/flipbook-data-<run id>/, made by tempDataDir) are stopped, and the directories removed. A test
// that kills a daemon with SIGKILL on purpose leaves its server for a next daemon to adopt, and a
// failing test may never stop its daemon; without this, every run would leave servers behind on
// the machine. Each one found is reported, so a leaking test does not go unnoticed. Only this
// run's directories: another run on the machine at the same time may be using its own (when
// this went by creation time, one run's end wiped a concurrent run's stores mid-test).
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive } from '../../src/isAlive.ts';
import { dataRootOf } from './dataRoot.ts';

const postmasterPid = (dir: string) => {
  try {
    return Number(readFileSync(join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return 0;
  }
};

export const stopStrayServers = async (runId: string) => {
  let stopped = 0;
  const root = dataRootOf(runId);
  for (const name of readdirSync(root)) {
    const dir = join(root, name);
    const pid = postmasterPid(dir);
    if (isAlive(pid)) {
      stopped++;
      process.kill(pid, 'SIGINT'); // PostgreSQL's fast shutdown
      for (let i = 0; i < 100 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 50));
    }
    rmSync(dir, { recursive: true, force: true });
  }
  if (stopped > 0)
    console.warn(`stopped ${stopped} embedded PostgreSQL server(s) tests left running`);
};
