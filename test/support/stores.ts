// The two stores every store-level test runs against: the embedded PostgreSQL in a fresh data
// dir, and a fresh database on the real PostgreSQL server started by the global setup.
import { openStore, type Store } from '../../src/store/store.ts';
import { freshDatabase, tempDataDir } from './databases.ts';

export type StoreKind = 'embedded' | 'postgres';
export const STORE_KINDS: StoreKind[] = ['embedded', 'postgres'];

export const storeOptions = async (kind: StoreKind) =>
  kind === 'embedded' ? { dataDir: await tempDataDir() } : { databaseUrl: await freshDatabase() };

export const openTestStore = async (kind: StoreKind): Promise<Store> =>
  openStore(await storeOptions(kind));
