// Table `api_key_usage`: when each key last authenticated a request. Not an event (a write per
// request would flood the log with what no decision needs) and not a read table: nothing could
// rebuild it, so `replay` leaves it alone (it is created with the operational tables in
// src/store/schema.ts, not listed in index.ts). No foreign key to api_keys, which replay drops.
import type { Db } from '../readTables/readTable.ts';

export const KEY_USAGE_DDL = `CREATE TABLE IF NOT EXISTS api_key_usage (
  key_id UUID PRIMARY KEY,
  last_used_at TIMESTAMPTZ NOT NULL
)`;

/** Never moves back: two daemons' writes may land in either order. */
export const recordKeyUse = async (db: Db, keyId: string, at: Date) => {
  await db.query(
    `INSERT INTO api_key_usage (key_id, last_used_at) VALUES ($1, $2)
     ON CONFLICT (key_id) DO UPDATE
       SET last_used_at = GREATEST(api_key_usage.last_used_at, EXCLUDED.last_used_at)`,
    [keyId, at.toISOString()],
  );
};
