// Small facts about the installation kept in `flipbook_meta`: the public URL the daemon last
// served under, so the admin CLI can print links that work (an invitation link) without being
// told the URL again.
import type { Db } from '../readTables/readTable.ts';

export const setMeta = async (db: Db, key: string, value: string) => {
  await db.query(
    `INSERT INTO flipbook_meta (key, value) VALUES ($1, $2)
     ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
    [key, value],
  );
};

export const getMeta = async (db: Db, key: string) =>
  (await db.query<{ value: string }>('SELECT value FROM flipbook_meta WHERE key = $1', [key]))
    .rows[0]?.value ?? null;

/**
 * This installation's id: made once, by the first process that asks, and kept with the data
 * (a dump and restore carries it; a replay leaves flipbook_meta alone). The blob store is marked
 * with it, so a sweep never takes one database's files for another's leftovers.
 */
export const installationId = async (db: Db): Promise<string> => {
  await db.query(
    `INSERT INTO flipbook_meta (key, value) VALUES ('installation_id', gen_random_uuid()::text)
     ON CONFLICT (key) DO NOTHING`,
  );
  return (await getMeta(db, 'installation_id')) as string;
};
