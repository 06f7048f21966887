// Keeps one release from damaging a database another, newer release has migrated.
//
// Two guards, because releases already out there cannot be changed:
// - From this release on, `flipbook_meta` records the schema a release migrated to
//   (`schema_version`, beside `read_model_version`). A release that finds either newer than
//   it knows refuses to start before it writes anything (DatabaseTooNew: its own exit code).
// - Releases before that check rebuild the read tables whenever `read_model_version` differs
//   from theirs, newer or older: an old daemon started on a new database replaced the new read
//   tables with its own (a private book became public on it, the new daemons answered 500 on
//   every route). Their rebuild drops each read table with a plain `DROP TABLE` inside one
//   transaction, which PostgreSQL refuses while a view depends on the table. So the read tables
//   stand behind a view, `flipbook_release_guard`: an older release's rebuild fails at its first
//   drop and rolls back, leaving every table as the newer release made it, and that daemon
//   exits. Our own rebuild (replay.ts) takes the view down inside its transaction first.
import type pg from 'pg';
import { READ_MODEL_VERSION, readTables } from '../readTables/index.ts';
import { DatabaseTooNew } from './storeError.ts';

/**
 * Bump when this release writes the database in a way an older release cannot work with (a
 * column it would not fill, a table it would misread). Read tables have their own
 * READ_MODEL_VERSION (src/readTables/index.ts); operational tables count here.
 */
export const SCHEMA_VERSION = 1;

type Recorded = { schema: number; readModel: number };

const recorded = async (client: pg.PoolClient): Promise<Recorded | null> => {
  const { rows: present } = await client.query<{ ok: boolean }>(
    "SELECT to_regclass('flipbook_meta') IS NOT NULL AS ok",
  );
  if (!present[0]?.ok) return null;
  const { rows } = await client.query<{ key: string; value: string }>(
    "SELECT key, value FROM flipbook_meta WHERE key IN ('schema_version', 'read_model_version')",
  );
  const value = (key: string) => Number(rows.find((row) => row.key === key)?.value ?? 0) || 0;
  return { schema: value('schema_version'), readModel: value('read_model_version') };
};

/**
 * Throws DatabaseTooNew when a newer release has migrated this database. Called under the
 * migration lock, before anything is written.
 */
export const refuseNewerDatabase = async (client: pg.PoolClient) => {
  const found = await recorded(client);
  if (!found) return;
  if (found.schema <= SCHEMA_VERSION && found.readModel <= READ_MODEL_VERSION) return;
  throw new DatabaseTooNew(
    `this database was migrated by a newer flipbook release (schema ${found.schema}, read ` +
      `tables ${found.readModel}; this release knows schema ${SCHEMA_VERSION}, read tables ` +
      `${READ_MODEL_VERSION}): nothing was changed. Run the newer release, or restore the backup ` +
      'taken before the upgrade to go back (docs/deploy.md, "Upgrading and going back").',
  );
};

/** Records the schema this release migrated to (never lowers it: refuseNewerDatabase ran). */
export const recordSchemaVersion = async (client: pg.PoolClient) => {
  await client.query(
    `INSERT INTO flipbook_meta (key, value) VALUES ('schema_version', $1)
     ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
    [String(SCHEMA_VERSION)],
  );
};

export const GUARD_VIEW = 'flipbook_release_guard';

/** Puts the read tables behind the guard view (idempotent). */
export const guardReadTables = async (client: pg.PoolClient) => {
  const selects = readTables.map((table) => `SELECT 1 AS guard FROM ${table.table} WHERE false`);
  await client.query(`CREATE OR REPLACE VIEW ${GUARD_VIEW} AS ${selects.join(' UNION ALL ')}`);
};

/** Takes the guard view down, for our own rebuild (inside its transaction). */
export const unguardReadTables = async (client: pg.PoolClient) => {
  await client.query(`DROP VIEW IF EXISTS ${GUARD_VIEW}`);
};
