// Per-test storage: a fresh database on the run's PostgreSQL server (see globalSetup.ts), or a
// fresh directory for the embedded PostgreSQL.
import { randomBytes } from 'node:crypto';
import { chmodSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { dataRootOf } from './dataRoot.ts';

/**
 * Creates a new, uniquely named database on the test server and returns its connection URL:
 * empty, or a copy of `template`.
 */
export const freshDatabase = async (template?: string): Promise<string> => {
  const serverUrl = inject('pgUrl');
  const name = `t_${randomBytes(8).toString('hex')}`;
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`create database ${name}${template ? ` template ${template}` : ''}`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
};

/**
 * A fresh database with this code's schema already in place: a copy of the run's template
 * (globalSetup.ts) takes ~0.15 s where making the schema takes ~0.35 s more, for every app and
 * daemon of the suite whose subject is not the migration itself (those take freshDatabase()).
 */
export const migratedDatabase = () => freshDatabase(inject('pgTemplate'));

const tempDirs: string[] = [];
process.once('exit', () => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * A fresh directory in the run's data root (dataRoot.ts), mode 0755: the embedded PostgreSQL,
 * started as root, runs as the `postgres` user and must be able to reach it. Removed when the
 * test process exits.
 */
export const tempDataDir = async (): Promise<string> => {
  // In the run's own root, so the run's teardown (strayServers.ts) touches its own directories
  // only, never those of another run going on at the same time on the machine.
  const dir = await mkdtemp(join(dataRootOf(inject('runId')), 'store-'));
  chmodSync(dir, 0o755);
  tempDirs.push(dir);
  return dir;
};
