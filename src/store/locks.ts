// Locks that hold across every process on one database (daemons, `flipbook worker`s): PostgreSQL
// session advisory locks, each taken on a connection of a small pool of its own.
//
// Why a separate pool: a lock waiter sits on its connection until the holder lets go, and the
// holder needs connections for its reads and its append. Were waiters on the main pool, 10
// simultaneous uploads to one workspace would hold all 10 connections waiting, and the holder
// could never get one to finish: a deadlock. Here waiters only ever hold lock connections, and
// in-process waiters queue in a keyed mutex first, so one process uses at most one lock
// connection per workspace. A process killed with its lock held frees it when its connection
// drops (PostgreSQL ends the session).
import { createHash } from 'node:crypto';
import pg from 'pg';
import {
  type DatabaseLimits,
  keepingContext,
  outsideDatabaseBudget,
  poolConfig,
} from './databaseLimits.ts';
import { StoreBusy } from './handleCommand.ts';
import { createKeyedMutex } from './keyedMutex.ts';
import { isDatabaseUnavailable } from './unavailable.ts';

export type Locks = {
  /**
   * Runs `fn` holding the workspace's lock: one holder at a time across every process. Quota
   * checks and the appends they guard go inside. The section also holds the originals lock in
   * shared mode, so an original committed in here is referenced by its version before the blob
   * sweep can judge it unused.
   */
  workspace: <T>(workspaceId: string, fn: () => Promise<T>) => Promise<T>;
  /** Runs `fn` holding the originals lock exclusively: no upload is between commit and append. */
  originals: <T>(fn: () => Promise<T>) => Promise<T>;
  /**
   * Runs `fn` holding the lock named `name` when no one else holds it, else at once null (work
   * one process does while others skip it: a preview's comparison).
   */
  unlessHeld: <T>(name: string, fn: () => Promise<T>) => Promise<T | null>;
  close: () => Promise<void>;
};

const LOCK_CONNECTIONS = 4;
/** How long a caller waits for a lock another process holds before it hears 503 (busy). */
const LOCK_WAIT_MS = 60_000;

/**
 * Takes a lock, waiting for its holder in another process. Each wait is one statement, so it has
 * the statement limit: when the server cancels the wait (statement or lock timeout) it is alive
 * and the lock merely held, and we wait again, up to LOCK_WAIT_MS; a server that does not answer
 * at all fails at once (the client's own limit), as every statement does.
 */
const acquire = async (client: pg.PoolClient, take: string, key: string) => {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      await outsideDatabaseBudget(() => client.query(`SELECT ${take}($1::bigint)`, [key]));
      return;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code !== '57014' && code !== '55P03') throw error;
      if (Date.now() >= deadline) throw new StoreBusy();
    }
  }
};

/** A stable signed 64-bit key (PostgreSQL's bigint) for a name: the first 8 bytes of its SHA-256. */
export const lockKey = (name: string) =>
  createHash('sha256').update(`flipbook:${name}`).digest().readBigInt64BE(0).toString();

const ORIGINALS = lockKey('originals');

export const createLocks = (connectionString: string, limits: DatabaseLimits): Locks => {
  // The limits hold here too: a holder in another process that stopped answering (its database
  // session frozen with it) makes a waiter give up after the statement limit, a 503.
  const pool = keepingContext(new pg.Pool(poolConfig(connectionString, limits, LOCK_CONNECTIONS)));
  pool.on('error', () => {}); // an idle connection dropped: the next checkout reconnects
  const local = createKeyedMutex({ sharedFailure: isDatabaseUnavailable });

  // Takes the locks in the order given and releases them in reverse. The order matters: a
  // workspace lock is always taken before the shared originals lock, so a sweep waiting for the
  // exclusive one can never sit between two uploads in a cycle.
  const holding = async <T>(
    locks: [take: string, release: string, key: string][],
    fn: () => Promise<T>,
  ) => {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      for (const [take, , key] of locks) await acquire(client, take, key);
      return await fn();
    } catch (error) {
      // The database stopped answering: unlocking would only wait its own timeout. Dropping the
      // connection frees the locks, once the server notices.
      if (isDatabaseUnavailable(error)) broken = error as Error;
      throw error;
    } finally {
      // A failed unlock leaves the session in doubt: drop the connection, which frees its locks.
      for (const [, release, key] of locks.toReversed()) {
        if (broken) break;
        await client.query(`SELECT ${release}($1::bigint)`, [key]).catch((error: Error) => {
          broken ??= error;
        });
      }
      client.release(broken);
    }
  };

  return {
    workspace: (workspaceId, fn) =>
      local.run(`workspace:${workspaceId}`, () =>
        holding(
          [
            ['pg_advisory_lock', 'pg_advisory_unlock', lockKey(`workspace:${workspaceId}`)],
            ['pg_advisory_lock_shared', 'pg_advisory_unlock_shared', ORIGINALS],
          ],
          fn,
        ),
      ),
    originals: (fn) =>
      local.run('originals', () =>
        holding([['pg_advisory_lock', 'pg_advisory_unlock', ORIGINALS]], fn),
      ),
    unlessHeld: (name, fn) =>
      local.run(name, async () => {
        const key = lockKey(name);
        const client = await pool.connect();
        let held = false;
        try {
          const { rows } = await client.query<{ held: boolean }>(
            'SELECT pg_try_advisory_lock($1::bigint) AS held',
            [key],
          );
          held = rows[0]?.held === true;
          return held ? await fn() : null;
        } finally {
          const freed = held
            ? await client.query('SELECT pg_advisory_unlock($1::bigint)', [key]).then(
                () => undefined,
                (error: Error) => error,
              )
            : undefined;
          // A failed unlock leaves the session in doubt: dropping it frees the lock.
          client.release(freed);
        }
      }),
    close: () => pool.end(),
  };
};
