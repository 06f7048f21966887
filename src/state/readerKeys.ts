// Each identified reader's own encryption key (src/app/readerIdentity.ts seals their address with
// it). Operational state, not a read table: a replay leaves it alone, and must, since no event
// could rebuild a key; that is the whole point. Erasing a reader deletes their row, and every
// address sealed under it, in events kept forever, can never be opened again (crypto-shredding,
// docs/architecture.md). Created with the operational tables in src/store/schema.ts.
import type { Db } from '../readTables/readTable.ts';

export const READER_KEYS_DDL = `
CREATE TABLE IF NOT EXISTS reader_keys (
  kid TEXT PRIMARY KEY,
  key BYTEA NOT NULL,
  created_at TIMESTAMPTZ NOT NULL
);`;

/** The reader's key, if they have one (none: never sealed, or erased). */
export const findReaderKey = async (db: Db, kid: string): Promise<Buffer | null> =>
  (await db.query<{ key: Buffer }>('SELECT key FROM reader_keys WHERE kid = $1', [kid])).rows[0]
    ?.key ?? null;

/**
 * The reader's key: the one they have, or `fresh` made theirs. Two first seals racing agree on
 * one key (the second insert does nothing, both read the winner's). An erasure landing between
 * the insert and the read leaves nothing to read: the insert is tried again, and the reader gets
 * a new key, as any seal after an erasure does.
 */
export const readerKey = async (db: Db, kid: string, fresh: Buffer, now: Date): Promise<Buffer> => {
  // Bounded all the same: an erasure between every insert and read is someone erasing in a loop.
  for (let attempt = 0; attempt < 5; attempt++) {
    await db.query(
      `INSERT INTO reader_keys (kid, key, created_at) VALUES ($1, $2, $3)
       ON CONFLICT (kid) DO NOTHING`,
      [kid, fresh, now],
    );
    const key = await findReaderKey(db, kid);
    if (key) return key;
  }
  throw new Error('reader key: erased again each time it was made, five times over');
};

/** Deletes the reader's key; true when there was one. */
export const deleteReaderKey = async (db: Db, kid: string) =>
  ((await db.query('DELETE FROM reader_keys WHERE kid = $1', [kid])).rowCount ?? 0) > 0;
