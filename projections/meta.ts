// Small facts about the installation kept in `flipbook_meta`: the public URL the daemon last
// served under, so the admin CLI can print links that work (an invitation link) without being
// told the URL again.
import type { Db } from './readTable.ts';

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
