// The audit chain's tables (src/audit/chainHash.ts says what is hashed). Not a read table: it is
// written once, in the transaction of each append, and never rebuilt by a replay (a replay that
// re-hashed the log would bless whatever had been edited in it).
//
// `audit_head` is one row: the last link. Every append locks it (FOR UPDATE) as the last thing
// its transaction does, after the read tables, so appends are chained in commit order and hold
// the lock only to their commit; taking it last also means no append waits for it while holding
// a lock another append needs before it.
import { type ChainEntry, chainHash, entryOf, GENESIS } from '../audit/chainHash.ts';
import type { Db } from '../readTables/readTable.ts';

export const AUDIT_DDL = `
CREATE TABLE IF NOT EXISTS audit_chain (
  seq BIGINT PRIMARY KEY,
  stream_id TEXT NOT NULL,
  stream_position BIGINT NOT NULL,
  hash TEXT NOT NULL,
  UNIQUE (stream_id, stream_position)
);
CREATE TABLE IF NOT EXISTS audit_head (
  id BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (id),
  seq BIGINT NOT NULL,
  hash TEXT NOT NULL
);`;

export type StoredEvent = {
  stream_id: string;
  stream_position: string;
  message_id: string;
  message_type: string;
  message_data: unknown;
  message_metadata: unknown;
  created: Date;
};

const EVENT_COLUMNS = `m.stream_id, m.stream_position::text AS stream_position, m.message_id,
  m.message_type, m.message_data, m.message_metadata, m.created`;

/**
 * Whether the chain was ever started on this database: its marker in flipbook_meta, or (for
 * databases chained before the marker) a head or a link. Emptied audit tables are not a new
 * start: re-chaining the log as it is now would bless whatever was edited in it.
 */
export const chainStarted = async (db: Db) =>
  (
    await db.query(
      `SELECT 1 FROM flipbook_meta WHERE key = 'audit_chain_started'
       UNION ALL SELECT 1 FROM audit_head UNION ALL (SELECT 1 FROM audit_chain LIMIT 1)`,
    )
  ).rows.length > 0;

const links = async (db: Db, entries: ChainEntry[]) => {
  // The head row is locked for the rest of the transaction. Should it be missing (removed by
  // hand), the chain's last link stands in for it and the row is written again below: the chain
  // goes on from where it is, and nothing is lost that verify would not still check.
  const head =
    (
      await db.query<{ seq: string; hash: string }>(
        'SELECT seq::text AS seq, hash FROM audit_head FOR UPDATE',
      )
    ).rows[0] ??
    (
      await db.query<{ seq: string; hash: string }>(
        'SELECT seq::text AS seq, hash FROM audit_chain ORDER BY seq DESC LIMIT 1',
      )
    ).rows[0];
  let seq = BigInt(head?.seq ?? 0);
  let hash = head?.hash ?? GENESIS;
  const seqs: bigint[] = [];
  for (const entry of entries) {
    seq++;
    seqs.push(seq);
    hash = chainHash(hash, entry);
    await db.query(
      'INSERT INTO audit_chain (seq, stream_id, stream_position, hash) VALUES ($1, $2, $3, $4)',
      [seq.toString(), entry.stream, entry.position, hash],
    );
  }
  await db.query(
    `INSERT INTO audit_head (id, seq, hash) VALUES (TRUE, $1, $2)
     ON CONFLICT (id) DO UPDATE SET seq = EXCLUDED.seq, hash = EXCLUDED.hash`,
    [seq.toString(), hash],
  );
  return seqs;
};

/**
 * Chains one append's events, inside its transaction: they are read back as stored (the hash
 * covers the stored JSON, which is what verify and export see later).
 */
export const chainAppended = async (db: Db, stream: string, positions: bigint[]) => {
  const { rows } = await db.query<StoredEvent>(
    `SELECT ${EVENT_COLUMNS} FROM emt_messages m
     WHERE m.stream_id = $1 AND m.stream_position = ANY($2::bigint[]) AND NOT m.is_archived
     ORDER BY m.stream_position`,
    [stream, positions.map(String)],
  );
  if (rows.length !== positions.length) {
    throw new Error(`audit chain: ${positions.length} events appended, ${rows.length} found`);
  }
  const seqs = await links(db, rows.map(entryOf));
  // each event with its place in the chain (the event feed's order)
  return rows.map((row, i) => ({ ...row, seq: seqs[i] as bigint }));
};

/**
 * Starts the chain on a database whose events predate it: every event so far, in log order.
 * Run once, under the migration lock, when audit_head is still empty.
 */
export const chainExisting = async (db: Db) => {
  await db.query(
    `INSERT INTO flipbook_meta (key, value) VALUES ('audit_chain_started', now()::text)
     ON CONFLICT (key) DO NOTHING`,
  );
  let after = '-1';
  for (;;) {
    const { rows } = await db.query<StoredEvent & { global_position: string }>(
      `SELECT ${EVENT_COLUMNS}, m.global_position::text AS global_position FROM emt_messages m
       WHERE m.message_kind = 'E' AND NOT m.is_archived AND m.global_position > $1
       ORDER BY m.global_position LIMIT 1000`,
      [after],
    );
    await links(db, rows.map(entryOf));
    if (rows.length < 1000) return;
    after = rows[rows.length - 1]?.global_position ?? after;
  }
};

export type ChainRow = StoredEvent & {
  seq: string;
  link_stream: string;
  link_position: string;
  hash: string;
  /** false when the event the link names is gone */
  found: boolean;
  /** the service only writes events ('E'), never archived: anything else was changed by hand */
  message_kind: string | null;
  is_archived: boolean | null;
};

/** A batch of links in chain order with the events they name (left join: a gone event shows). */
export const chainBatch = async (db: Db, afterSeq: bigint, limit: number) =>
  (
    await db.query<ChainRow>(
      `SELECT c.seq::text AS seq, c.stream_id AS link_stream,
         c.stream_position::text AS link_position, c.hash, m.stream_id IS NOT NULL AS found,
         m.message_kind, m.is_archived, ${EVENT_COLUMNS}
       FROM audit_chain c
       LEFT JOIN emt_messages m ON m.stream_id = c.stream_id
         AND m.stream_position = c.stream_position
       WHERE c.seq > $1 ORDER BY c.seq LIMIT $2`,
      [afterSeq.toString(), limit],
    )
  ).rows;

/**
 * Rows of the log the chain does not cover (written around the service), first in log order:
 * of any kind, archived or not, since Emmett's own reads do not all skip them.
 */
export const unchainedEvent = async (db: Db) =>
  (
    await db.query<{ stream_id: string; stream_position: string }>(
      `SELECT m.stream_id, m.stream_position::text AS stream_position FROM emt_messages m
       WHERE NOT EXISTS (
         SELECT 1 FROM audit_chain c
         WHERE c.stream_id = m.stream_id AND c.stream_position = m.stream_position)
       ORDER BY m.global_position LIMIT 1`,
    )
  ).rows[0] ?? null;

export const chainHead = async (db: Db) =>
  (await db.query<{ seq: string; hash: string }>('SELECT seq::text AS seq, hash FROM audit_head'))
    .rows[0] ?? null;

/** Whether the audit tables exist (verify reads a database it must not change). */
export const chainTablesExist = async (db: Db) =>
  (
    await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_tables
       WHERE tablename IN ('audit_chain', 'audit_head', 'emt_messages')
         AND schemaname = ANY(current_schemas(false))`,
    )
  ).rows[0]?.n === 3;
