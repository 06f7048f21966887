// Where the store lives: an external PostgreSQL named by URL, or the embedded one in a data dir.
import { join } from 'node:path';
import type { Revived } from './embeddedPostgres.ts';

export type StoreOptions = { dataDir?: string; databaseUrl?: string };

export type Location = {
  connectionString: string;
  describe: string;
  /** stops the embedded server if this process started it; a no-op otherwise */
  release: () => Promise<void>;
  /** the embedded server restarted if it died; an external one is its operator's ('down') */
  revive: () => Promise<Revived>;
  /** the embedded server (this machine's, perhaps just started by this very process) */
  embedded: boolean;
};

/** --data-dir unless told: FLIPBOOK_DATA_DIR (the container image sets /data), else ./data. */
export const DEFAULT_DATA_DIR = process.env.FLIPBOOK_DATA_DIR || './data';

/** Where originals and page images go unless --blob-dir says otherwise: beside the store's data. */
export const defaultBlobDir = (dataDir?: string) => join(dataDir ?? DEFAULT_DATA_DIR, 'blobs');

export const locateStore = async (options: StoreOptions): Promise<Location> => {
  const databaseUrl = options.databaseUrl ?? process.env.DATABASE_URL;
  if (databaseUrl) {
    return {
      connectionString: databaseUrl,
      describe: redact(databaseUrl),
      release: async () => {},
      revive: async () => 'down' as const,
      embedded: false,
    };
  }
  const dataDir = options.dataDir ?? DEFAULT_DATA_DIR;
  // Loaded only for the embedded store (and not by commands that merely name the default).
  const { openEmbeddedStore } = await import('./embeddedPostgres.ts');
  const embedded = await openEmbeddedStore(dataDir);
  return {
    connectionString: embedded.connectionString,
    describe: `embedded PostgreSQL in ${dataDir}`,
    release: embedded.stop,
    revive: embedded.revive,
    embedded: true,
  };
};

/** A URL fit for logs: the password replaced. */
export const redact = (url: string) => {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://(unparseable URL)';
  }
};
