// Every command that touches the store takes --data-dir or --database-url, and runs with a store
// it opens and always closes (stopping the embedded server only if it started it).
import type { Command } from 'commander';
import { adminMetadata } from '../app/eventContext.ts';
import { DEFAULT_DATA_DIR } from '../store/location.ts';
import { openStore, type Store } from '../store/store.ts';

export type StoreFlags = { dataDir?: string; databaseUrl?: string; as?: string };

export const withStoreOptions = (command: Command) =>
  command
    .option('--data-dir <dir>', `embedded store directory (default: ${DEFAULT_DATA_DIR})`)
    .option('--database-url <url>', 'external PostgreSQL URL (default: $DATABASE_URL)')
    .option('--as <name>', 'who is acting, for the audit trail (default: the OS user)');

/** The metadata of the events an admin command records: --as, or the OS user. */
export const adminOf = (flags: StoreFlags) => adminMetadata(flags.as);

export const withStore = async <T>(
  flags: StoreFlags,
  work: (store: Store) => Promise<T>,
  options: { readOnly?: boolean } = {},
) => {
  const store = await openStore({
    dataDir: flags.dataDir,
    databaseUrl: flags.databaseUrl,
    poolSize: 4,
    // an audit reads the database as it finds it: no migration, no chain started behind its back
    migrate: !options.readOnly,
  });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
};
