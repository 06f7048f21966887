// The salt of each day under which readers are hashed (src/app/analytics/readers.ts): not derived
// from events, so `replay` leaves it alone (created with the operational tables in
// src/store/schema.ts). One row per day, every daemon on the database using the same; a day's
// salt is deleted once the day is over, and with it any way back from a hash to a reader.
import type { Db } from '../readTables/readTable.ts';

export const ANALYTICS_SALTS_DDL = `
CREATE TABLE IF NOT EXISTS analytics_salts (
  day DATE PRIMARY KEY,
  salt BYTEA NOT NULL CHECK (length(salt) = 32)
);
`;

/** The salt of `day` (YYYY-MM-DD): the one there, or `fresh` made it (two racing daemons agree). */
export const saltOfDay = async (db: Db, day: string, fresh: Buffer) => {
  await db.query(
    'INSERT INTO analytics_salts (day, salt) VALUES ($1, $2) ON CONFLICT (day) DO NOTHING',
    [day, fresh],
  );
  const { rows } = await db.query<{ salt: Buffer }>(
    'SELECT salt FROM analytics_salts WHERE day = $1',
    [day],
  );
  return rows[0]?.salt ?? fresh;
};

/** Deletes the salts of the days before `day`. */
export const forgetSaltsBefore = async (db: Db, day: string) => {
  await db.query('DELETE FROM analytics_salts WHERE day < $1', [day]);
};
