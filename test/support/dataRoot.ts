// Where a run's embedded stores live: one folder per run, /tmp/flipbook-data-<run id>/, on a
// tmpfs of its own when the run is root (CI, this machine). initdb of the embedded PostgreSQL
// ends in fsyncs that took 3-4 s of its 4.5 s on this machine's disk, and every commit of an
// embedded store waits for one; on memory they cost nothing, and a test kills processes, never
// the machine, so what it sees of PostgreSQL is the same. Not root (a developer's laptop): a
// plain folder, slower and otherwise alike.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';

/** At most this much memory, used only as the stores fill it (the files a run keeps at once). */
const SIZE = '8g';

export const dataRootOf = (runId: string) => `/tmp/flipbook-data-${runId}`;

/** Makes the run's folder (a tmpfs if it can be mounted); returns what removes it. */
export const makeDataRoot = (runId: string): (() => void) => {
  const root = dataRootOf(runId);
  // 0755: as root the embedded server runs as `postgres`, which must reach the stores below.
  mkdirSync(root, { mode: 0o755 });
  let mounted = false;
  if (process.getuid?.() === 0) {
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${SIZE},mode=0755`, 'tmpfs', root], {
        stdio: 'ignore',
      });
      mounted = true;
    } catch {
      // no right to mount here (a container without CAP_SYS_ADMIN): the plain folder serves
    }
  }
  return () => {
    if (mounted) execFileSync('umount', ['--lazy', root], { stdio: 'ignore' });
    rmSync(root, { recursive: true, force: true });
  };
};
