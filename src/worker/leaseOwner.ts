// Who holds a lease on a job or a fill: `host:pid@life`, where `life` is drawn once per process.
// A process killed (kill -9, the OOM killer, its container stopped hard) leaves its leases held
// until they run out (a minute); one starting on the same host hands back at once the leases of
// processes that are gone there: a pid no process has, or an earlier life of a pid (a container
// restarted runs its daemon under the same pid). Leases of other hosts, and of live processes,
// wait for their lease as before. A host name is one machine or one container: two containers
// sharing one (a fixed `hostname:`) must not share a database's queue.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from '../log.ts';
import type { Db } from '../readTables/readTable.ts';

const LIFE = randomBytes(4).toString('hex');

/** This process, as the events' actor names it (the processing worker): `host:pid`. */
export const workerName = () => `${hostname()}:${process.pid}`;

/** This process's leases' owner. */
export const leaseOwner = () => `${workerName()}@${LIFE}`;

/** Whether a process of this pid runs here (one of another user's is still running). */
const running = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Whether `owner` was a process of this host that is gone. Owners written before `@life`
 * (`host:pid`) are gone when their pid is.
 */
export const goneFromHere = (owner: string, alive: (pid: number) => boolean = running) => {
  const match = /^(.*):(\d+)(?:@([0-9a-f]+))?$/.exec(owner);
  if (!match || match[1] !== hostname()) return false;
  const pid = Number(match[2]);
  if (pid === process.pid) return match[3] !== undefined && match[3] !== LIFE;
  return !alive(pid);
};

/** Hands back the jobs and fills leased to processes of this host that are gone; how many. */
export const releaseGoneLeases = async (db: Db, log: Logger) => {
  let released = 0;
  for (const table of ['jobs', 'rendition_fills'] as const) {
    const { rows } = await db.query<{ owner: string }>(
      `SELECT DISTINCT lease_owner AS owner FROM ${table}
       WHERE lease_until > now() AND starts_with(lease_owner, $1)`,
      [`${hostname()}:`],
    );
    const gone = rows.map((r) => r.owner).filter((owner) => goneFromHere(owner));
    if (gone.length === 0) continue;
    // The attempt stays counted: a document that kills its process must not be tried forever.
    const { rowCount } = await db.query(
      `UPDATE ${table} SET lease_until = NULL, lease_owner = NULL
       WHERE lease_owner = ANY($1) AND lease_until > now()`,
      [gone],
    );
    released += rowCount ?? 0;
    log.info({ table, owners: gone, rows: rowCount }, 'handed back the leases of processes gone');
  }
  return released;
};
