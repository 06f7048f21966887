// The two stores every store-level test runs against: the embedded PostgreSQL in a fresh data
// dir, and a fresh database on the real PostgreSQL server started by the global setup.
import { openStore, type Store } from '../../src/store/store.ts';
import { freshDatabase, migratedDatabase, tempDataDir } from './databases.ts';

export type StoreKind = 'embedded' | 'postgres';
export const STORE_KINDS: StoreKind[] = ['embedded', 'postgres'];

/**
 * A fresh store of `kind`: empty, or (`schema: 'migrated'`, a database on the server) with this
 * code's schema already made, for the tests whose subject is not the migration (databases.ts).
 */
export const storeOptions = async (kind: StoreKind, schema: 'empty' | 'migrated' = 'empty') => {
  if (kind === 'embedded') return { dataDir: await tempDataDir() };
  return { databaseUrl: await (schema === 'migrated' ? migratedDatabase() : freshDatabase()) };
};

/**
 * The tests' stores wait longer for a connection than a daemon's 5 s: with the whole suite on two
 * cores, a fresh database's first connections have taken over 5 s (an in-process app's set-up
 * failed so, once in a full run). Statements keep the product's limit.
 */
const TEST_LIMITS = { connectMs: 30_000, statementMs: 5_000 };

export const openTestStore = async (kind: StoreKind): Promise<Store> =>
  openStore({ ...(await storeOptions(kind, 'migrated')), limits: TEST_LIMITS });
