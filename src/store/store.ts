// One store per process: the event store, the pool it shares with the read queries, and the
// embedded server if this process started it. (dumbo keeps one pool per connection string, so
// we hand it ours and close it exactly once.)
import {
  getPostgreSQLEventStore,
  type PostgresEventStore,
} from '@event-driven-io/emmett-postgresql';
import pg from 'pg';
import type { Db } from '../readTables/readTable.ts';
import { hostOf, NotAvailable, type Waiting, waitAtStart } from '../waitAtStart.ts';
import {
  type DatabaseLimits,
  databaseLimits,
  keepingContext,
  longWork,
  poolConfig,
  probeDatabase,
} from './databaseLimits.ts';
import type { Revived } from './embeddedPostgres.ts';
import { locateStore, type StoreOptions } from './location.ts';
import { createLocks, type Locks } from './locks.ts';
import { inlineProjections } from './projections.ts';
import { migrate } from './schema.ts';
import { StoreError } from './storeError.ts';
import { unavailableReason } from './unavailable.ts';

export type Store = {
  events: PostgresEventStore;
  pool: pg.Pool;
  db: Db;
  /** cross-process locks (quota checks, the blob sweep), on a pool of their own */
  locks: Locks;
  describe: string;
  /** the bounds every use of the database has (databaseLimits.ts) */
  limits: DatabaseLimits;
  /** resolves when a new connection can be opened and answers (readiness); rejects otherwise */
  probe: () => Promise<void>;
  /** restarts the embedded server if it died (see location.ts); false for an external one */
  revive: () => Promise<Revived>;
  close: () => Promise<void>;
};

export const openStore = async (
  options: StoreOptions & {
    poolSize?: number;
    /** false: use the database as it is (an auditor's read must not create or change anything) */
    migrate?: boolean;
    /** the bounds on every use of the database (default: databaseLimits()) */
    limits?: DatabaseLimits;
    /**
     * how long to wait for the database to accept a first connection (a daemon or worker
     * starting beside its database, or on a loaded machine); default: 30 s for the embedded
     * server, 0 (one try) for a --database-url, as a command run by a person should fail at once
     */
    startupPatienceMs?: number;
    /** told of each failed try while waiting (the daemon and the worker log it) */
    onWaiting?: (waiting: Waiting) => void;
  },
): Promise<Store> => {
  const location = await locateStore(options);
  const limits = options.limits ?? databaseLimits();
  const pool = keepingContext(
    new pg.Pool(
      // At least 2: migrate() holds one connection under its advisory lock while Emmett's own
      // schema migration takes another from this pool (with 1 it would wait forever).
      poolConfig(location.connectionString, limits, Math.max(2, options.poolSize ?? 10)),
    ),
  );
  // A dropped connection (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const events = getPostgreSQLEventStore(location.connectionString, {
    projections: inlineProjections(),
    schema: { autoMigration: 'None' },
    connectionOptions: { pooled: true, pool },
  });
  try {
    // A server just started (ours, or a container's beside us), or a machine under load, may take
    // longer than one connection's timeout to accept the first: starting waits for it a while.
    // The embedded server, which this very command may just have started, is always waited for.
    await waitAtStart({
      what: location.embedded
        ? `the ${location.describe}`
        : `the database at ${hostOf(location.connectionString, '5432') ?? location.describe}`,
      attempt: async () => (await pool.connect()).release(),
      worthWaiting: (error) => unavailableReason(error, limits.connectMs),
      describe: (error) => (error instanceof Error ? error.message : String(error)),
      patienceMs: options.startupPatienceMs ?? (location.embedded ? 30_000 : 0),
      ...(options.onWaiting ? { onWaiting: options.onWaiting } : {}),
    }).catch((error: unknown) => {
      // A sentence, with the driver's error kept as its cause: the command says it and exits 1.
      throw error instanceof NotAvailable
        ? new StoreError(error.message, { cause: error.cause })
        : error;
    });
    // Long by nature (another daemon's migration may hold the lock through a replay): no limit.
    if (options.migrate !== false) await longWork(pool, (client) => migrate(client, events));
  } catch (error) {
    await pool.end().catch(() => {});
    await location.release();
    throw error;
  }
  const locks = createLocks(location.connectionString, limits);
  let closed = false;
  return {
    events,
    pool,
    db: pool as unknown as Db,
    locks,
    describe: location.describe,
    limits,
    probe: () => probeDatabase(location.connectionString, limits),
    revive: location.revive,
    close: async () => {
      if (closed) return;
      closed = true;
      await locks.close().catch(() => {});
      await events.close().catch(() => {});
      await pool.end().catch(() => {});
      await location.release();
    },
  };
};
