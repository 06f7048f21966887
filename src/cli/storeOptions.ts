// Every command that touches the store takes --data-dir or --database-url, and runs with a store
// it opens and always closes (stopping the embedded server only if it started it).
import type { Command } from 'commander';
import { clockFromEnv } from '../app/clock.ts';
import { adminMetadata, type EventMetadata } from '../app/eventContext.ts';
import { STARTUP_PATIENCE_MS } from '../startupPatience.ts';
import {
  type DatabaseLimits,
  DEFAULT_DATABASE_TIMEOUT_S,
  databaseLimits,
} from '../store/limits.ts';
import { DEFAULT_DATA_DIR } from '../store/location.ts';
import type { Store } from '../store/store.ts';
import { flagInteger } from './flagInteger.ts';

export type StoreFlags = {
  dataDir?: string;
  databaseUrl?: string;
  as?: string;
  databaseTimeout?: string;
};

export const withStoreOptions = (command: Command) =>
  command
    .option('--data-dir <dir>', `embedded store directory (default: ${DEFAULT_DATA_DIR})`)
    .option('--database-url <url>', 'external PostgreSQL URL (default: $DATABASE_URL)')
    .option('--as <name>', 'who is acting, for the audit trail (default: the OS user)')
    .option(
      '--database-timeout <seconds>',
      'give up on a database that does not answer after this long (connecting, each statement)',
      String(DEFAULT_DATABASE_TIMEOUT_S),
    );

/** The store's flags of a long-running process (`serve`, `worker`). */
export type DaemonStoreFlags = StoreFlags & { waitAtStart?: string };

/** `serve` and `worker` take the store's options and how long they wait for it at start. */
export const withDaemonStoreOptions = (command: Command) =>
  withStoreOptions(command).option(
    '--wait-at-start <seconds>',
    'at start, how long to wait for the database and for the bucket (a name that does not resolve yet, a refused connection, no answer)',
    String(STARTUP_PATIENCE_MS / 1000),
  );

/** A daemon's bounds on the database, and how long it waits at start (for the bucket too). */
export const daemonStoreOf = (flags: DaemonStoreFlags) => ({
  limits: limitsOf(flags),
  patienceMs:
    flagInteger(
      '--wait-at-start',
      flags.waitAtStart ?? String(STARTUP_PATIENCE_MS / 1000),
      0,
      3_600,
    ) * 1000,
});

/** The bounds on the database that --database-timeout asks for (docs/deploy.md). */
export const limitsOf = (flags: StoreFlags): DatabaseLimits =>
  databaseLimits(
    flagInteger(
      '--database-timeout',
      flags.databaseTimeout ?? String(DEFAULT_DATABASE_TIMEOUT_S),
      1,
      600,
    ),
  );

/**
 * How far the database's clock is from this machine's, measured when withStore opened the store
 * (src/store/databaseTime.ts): an admin command decides by the database's time, as daemons do.
 */
let databaseOffsetMs = 0;

/** The clock of an admin command: the database's time, plus the test clock's (src/app/clock.ts). */
export const adminClock = () => clockFromEnv(process.env, () => Date.now() + databaseOffsetMs);

/** When an admin command acts. */
export const adminNow = () => adminClock().now();

/** The metadata of the events an admin command records: --as, or the OS user. */
export const adminOf = (flags: StoreFlags) => adminMetadata(flags.as);

/**
 * An admin command's act on the store, recorded as --as (or the OS user) at the database's time:
 * the time is read once the store is open, after withStore measured the database's clock.
 */
export const actAsAdmin = <T>(
  flags: StoreFlags,
  act: (store: Store, admin: EventMetadata, now: Date) => Promise<T>,
) => withStore(flags, (store) => act(store, adminOf(flags), adminNow()));

export const withStore = async <T>(
  flags: StoreFlags,
  work: (store: Store) => Promise<T>,
  options: {
    readOnly?: boolean;
    /** long by nature (replay, audit verify, exports): no limit on statements, only connecting */
    long?: boolean;
  } = {},
) => {
  const limits = limitsOf(flags);
  const { openStore } = await import('../store/store.ts'); // the driver loads only when used
  const store = await openStore({
    dataDir: flags.dataDir,
    databaseUrl: flags.databaseUrl,
    limits: options.long ? { ...limits, statementMs: null } : limits,
    poolSize: 4,
    // an audit reads the database as it finds it: no migration, no chain started behind its back
    migrate: !options.readOnly,
    // The embedded server, which this command may have just started, is waited for a while:
    // said on stderr, where the command's output is not.
    onWaiting: (waiting) => process.stderr.write(`flipbook: ${waiting.line}\n`),
  });
  try {
    const { followDatabaseTime } = await import('../store/databaseTime.ts');
    databaseOffsetMs = await followDatabaseTime(store.db).measure();
    return await work(store);
  } finally {
    await store.close();
  }
};
