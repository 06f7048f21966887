// Identified readers of share links (issue 44; docs/privacy.md): who gave their address at a link
// that asks for it, what they accepted, and what they read. Operational state, not events:
// reading is volume, and a reader must stay erasable (an address in an event kept forever and
// chained could never be). The address itself is only ever here sealed (src/app/readerIdentity.ts)
// under the reader's own key, and told apart by its kid; erasing a reader deletes that key and
// empties kid and address here, keeping the figures without a name. Also here: the addresses and
// domains a link is limited to (named by id in its events, as a password is), and the codes
// mailed to prove an address. Created with the operational tables in src/store/schema.ts.
// One file (over 300 lines): every statement on readers, so that an erasure can be checked to
// reach each place an address or its kid is kept.
import type { AllowEntry } from '../domain/readerEmail.ts';
import type { Db } from '../readTables/readTable.ts';
import { utc } from '../readTables/sql.ts';

export const LINK_READERS_DDL = `
CREATE TABLE IF NOT EXISTS link_allow_lists (
  list_id UUID PRIMARY KEY,
  link_id UUID NOT NULL,
  entries JSONB NOT NULL,
  created_at TIMESTAMPTZ NOT NULL
);
CREATE TABLE IF NOT EXISTS link_readers (
  reader_id UUID PRIMARY KEY,
  link_id UUID NOT NULL,
  flipbook_id UUID NOT NULL,
  workspace_id UUID NOT NULL,
  -- null once erased
  kid TEXT,
  email_ct TEXT,
  -- when the address was given (and proven, for a link that asks for a code); null: not yet
  identified_at TIMESTAMPTZ,
  verified BOOLEAN NOT NULL DEFAULT FALSE,
  -- the terms accepted, as they read then
  terms TEXT,
  accepted_at TIMESTAMPTZ,
  opens INT NOT NULL DEFAULT 0,
  first_open TIMESTAMPTZ,
  last_open TIMESTAMPTZ,
  last_seen TIMESTAMPTZ,
  read_seconds DOUBLE PRECISION NOT NULL DEFAULT 0,
  pages_seen INT[] NOT NULL DEFAULT '{}',
  page_count INT,
  last_page INT,
  downloads INT NOT NULL DEFAULT 0,
  -- a reading began since the last summary: one is mailed when it ends (30 minutes of quiet)
  summary_owed BOOLEAN NOT NULL DEFAULT FALSE,
  created_at TIMESTAMPTZ NOT NULL,
  UNIQUE (link_id, kid)
);
CREATE INDEX IF NOT EXISTS link_readers_link ON link_readers (link_id, first_open);
CREATE INDEX IF NOT EXISTS link_readers_kid ON link_readers (kid);
CREATE INDEX IF NOT EXISTS link_readers_owed ON link_readers (last_seen) WHERE summary_owed;
CREATE TABLE IF NOT EXISTS reader_codes (
  reader_id UUID PRIMARY KEY,
  code_hash TEXT NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL,
  tries INT NOT NULL DEFAULT 0,
  sent_at TIMESTAMPTZ NOT NULL
);
`;

/** An allow list's entries as kept: addresses with their identity, so erasure can find them. */
type KeptEntry = { domain: string } | { address: string; identity: string };

export const saveAllowList = async (
  db: Db,
  list: { listId: string; linkId: string; entries: AllowEntry[]; now: Date },
) => {
  const kept: KeptEntry[] = list.entries.map((e) =>
    e.kind === 'domain' ? { domain: e.domain } : { ...e.email },
  );
  await db.query(
    `INSERT INTO link_allow_lists (list_id, link_id, entries, created_at) VALUES ($1, $2, $3, $4)`,
    [list.listId, list.linkId, JSON.stringify(kept), list.now],
  );
};

export const allowList = async (db: Db, listId: string): Promise<AllowEntry[]> => {
  const { rows } = await db.query<{ entries: KeptEntry[] }>(
    'SELECT entries FROM link_allow_lists WHERE list_id = $1',
    [listId],
  );
  return (rows[0]?.entries ?? []).map((e) =>
    'domain' in e
      ? { kind: 'domain', domain: e.domain }
      : { kind: 'address', email: { address: e.address, identity: e.identity } },
  );
};

/**
 * Lists no link names, saved before `before` (a list saved just before its event may be on its
 * way), or named by one of `ids` only: gone with their link, or replaced.
 */
export const sweepAllowLists = async (db: Db, before: Date) =>
  db.query(
    `DELETE FROM link_allow_lists a WHERE a.created_at < $1
       AND NOT EXISTS (SELECT 1 FROM share_links l WHERE l.allow_list_id = a.list_id)`,
    [before],
  );

export type ReaderRow = {
  reader_id: string;
  link_id: string;
  flipbook_id: string;
  workspace_id: string;
  kid: string | null;
  email_ct: string | null;
  identified_at: string | null;
  verified: boolean;
  terms: string | null;
  accepted_at: string | null;
  opens: number;
  first_open: string | null;
  last_open: string | null;
  last_seen: string | null;
  read_seconds: number;
  pages_seen: number[];
  page_count: number | null;
  last_page: number | null;
  downloads: number;
};

const READER = `reader_id, link_id, flipbook_id, workspace_id, kid, email_ct,
  ${utc('identified_at')}, verified, terms, ${utc('accepted_at')}, opens,
  ${utc('first_open')}, ${utc('last_open')}, ${utc('last_seen')}, read_seconds, pages_seen,
  page_count, last_page, downloads`;

/**
 * The reader a link knows by this kid, made now if new (not yet identified). Two first visits
 * racing agree on one row. The sealed address is the newest given (a reader erased and back has
 * a new key, src/app/readerIdentity.ts).
 */
export const readerFor = async (
  db: Db,
  r: {
    readerId: string;
    linkId: string;
    flipbookId: string;
    workspaceId: string;
    kid: string;
    emailCt: string;
    now: Date;
  },
): Promise<ReaderRow> => {
  const { rows } = await db.query<ReaderRow>(
    `INSERT INTO link_readers (reader_id, link_id, flipbook_id, workspace_id, kid, email_ct,
       created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (link_id, kid) DO UPDATE SET email_ct = EXCLUDED.email_ct
     RETURNING ${READER}`,
    [r.readerId, r.linkId, r.flipbookId, r.workspaceId, r.kid, r.emailCt, r.now],
  );
  return rows[0] as ReaderRow;
};

/** The reader of a link with this kid (their address's, src/app/readerIdentity.ts), if any. */
export const readerByKid = async (db: Db, linkId: string, kid: string) =>
  (
    await db.query<ReaderRow>(
      `SELECT ${READER} FROM link_readers WHERE link_id = $1 AND kid = $2`,
      [linkId, kid],
    )
  ).rows[0] ?? null;

/** A link's readers, all of them (erased ones too: their figures stay). */
export const readersOfLink = async (db: Db, linkId: string) =>
  Number(
    (
      await db.query<{ n: string }>('SELECT count(*) AS n FROM link_readers WHERE link_id = $1', [
        linkId,
      ])
    ).rows[0]?.n ?? 0,
  );

/** New readers of a link since `since` (made by the address form: bounded per link). */
export const newReadersSince = async (db: Db, linkId: string, since: Date) =>
  Number(
    (
      await db.query<{ n: string }>(
        'SELECT count(*) AS n FROM link_readers WHERE link_id = $1 AND created_at >= $2',
        [linkId, since],
      )
    ).rows[0]?.n ?? 0,
  );

export const findReader = async (db: Db, readerId: string) =>
  (await db.query<ReaderRow>(`SELECT ${READER} FROM link_readers WHERE reader_id = $1`, [readerId]))
    .rows[0] ?? null;

/** The reader identified: with the terms they accepted (as they read), proven or not. */
export const markIdentified = async (
  db: Db,
  readerId: string,
  r: { verified: boolean; terms: string | null; now: Date },
) =>
  (
    await db.query<{ first: boolean }>(
      `UPDATE link_readers SET
         verified = verified OR $2,
         terms = CASE WHEN $3::text IS NULL THEN terms ELSE $3 END,
         accepted_at = CASE WHEN $3::text IS NULL THEN accepted_at ELSE $4 END,
         identified_at = coalesce(identified_at, $4)
       WHERE reader_id = $1
       RETURNING (identified_at = $4) AS first`,
      [readerId, r.verified, r.terms, r.now],
    )
  ).rows[0]?.first ?? false;

/** One more open by the reader: true when it is their first (the alert's moment). */
export const countReaderOpen = async (db: Db, readerId: string, pages: number, now: Date) =>
  (
    await db.query<{ first: boolean }>(
      `UPDATE link_readers SET opens = opens + 1, first_open = coalesce(first_open, $2),
         last_open = $2, last_seen = $2, page_count = $3, summary_owed = TRUE
       WHERE reader_id = $1 AND kid IS NOT NULL
       RETURNING opens = 1 AS first`,
      [readerId, now, pages],
    )
  ).rows[0]?.first ?? false;

/** What one beacon adds to a reader's figures. */
export type ReaderReading = {
  seconds: number;
  pages: number[];
  lastPage: number | null;
  downloads: number;
};

export const addReaderReading = (db: Db, readerId: string, r: ReaderReading, now: Date) =>
  db.query(
    `UPDATE link_readers SET
       read_seconds = read_seconds + $2,
       pages_seen = (SELECT coalesce(array_agg(DISTINCT p ORDER BY p), '{}')
                     FROM unnest(pages_seen || $3::int[]) p),
       last_page = coalesce($4, last_page),
       downloads = downloads + $5,
       last_seen = $6
     WHERE reader_id = $1 AND kid IS NOT NULL`,
    [readerId, r.seconds, r.pages, r.lastPage, r.downloads, now],
  );

/**
 * A link's identified readers, the most recently opened first, then (those who have not opened
 * it yet, or opened it at the same moment) the most recently identified (at most `limit`).
 */
export const linkReaders = async (db: Db, linkId: string, limit: number) =>
  (
    await db.query<ReaderRow>(
      `SELECT ${READER} FROM link_readers
       WHERE link_id = $1 AND identified_at IS NOT NULL
       ORDER BY last_open DESC NULLS LAST, identified_at DESC, reader_id LIMIT $2`,
      [linkId, limit],
    )
  ).rows;

/**
 * Readers whose reading ended (no beacon since `quietSince`) with a summary owed, taken by this
 * caller: the flag is cleared as they are taken, so one summary goes out per reading, whichever
 * daemon takes it.
 */
export const takeEndedReadings = async (db: Db, quietSince: Date, limit: number) =>
  (
    await db.query<ReaderRow>(
      `UPDATE link_readers SET summary_owed = FALSE
       WHERE reader_id IN (
         SELECT reader_id FROM link_readers
         WHERE summary_owed AND last_seen < $1 AND kid IS NOT NULL
         ORDER BY last_seen LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING ${READER}`,
      [quietSince, limit],
    )
  ).rows;

/** A code mailed to prove an address: its HMAC kept, valid until `expiresAt`, tries anew. */
export const saveReaderCode = (
  db: Db,
  c: { readerId: string; codeHash: string; expiresAt: Date; now: Date },
) =>
  db.query(
    `INSERT INTO reader_codes (reader_id, code_hash, expires_at, tries, sent_at)
     VALUES ($1, $2, $3, 0, $4)
     ON CONFLICT (reader_id) DO UPDATE SET code_hash = $2, expires_at = $3, tries = 0, sent_at = $4`,
    [c.readerId, c.codeHash, c.expiresAt, c.now],
  );

export type CodeRow = { code_hash: string; expired: boolean; tries: number; sent_at: string };

/** The reader's code with this try counted (null: none asked for). */
export const tryReaderCode = async (db: Db, readerId: string, now: Date) =>
  (
    await db.query<CodeRow>(
      `UPDATE reader_codes SET tries = tries + 1 WHERE reader_id = $1
       RETURNING code_hash, expires_at <= $2 AS expired, tries, ${utc('sent_at')}`,
      [readerId, now],
    )
  ).rows[0] ?? null;

export const dropReaderCode = (db: Db, readerId: string) =>
  db.query('DELETE FROM reader_codes WHERE reader_id = $1', [readerId]);

export const sweepReaderCodes = (db: Db, before: Date) =>
  db.query('DELETE FROM reader_codes WHERE expires_at < $1', [before]);

/**
 * Erases a reader of one workspace everywhere an address or its kid is kept: their rows keep
 * their figures without a name, codes go, and allow lists of the workspace's links lose the
 * address. Returns the rows' ids (their deliveries and cached files go next) and how many.
 */
export const eraseReaderRows = async (
  db: Db,
  r: { workspaceId: string; kid: string; identity: string },
) => {
  const { rows } = await db.query<{ reader_id: string }>(
    `UPDATE link_readers SET kid = NULL, email_ct = NULL, terms = NULL, summary_owed = FALSE
     WHERE workspace_id = $1 AND kid = $2 RETURNING reader_id`,
    [r.workspaceId, r.kid],
  );
  const ids = rows.map((row) => row.reader_id);
  await db.query('DELETE FROM reader_codes WHERE reader_id = ANY($1::uuid[])', [ids]);
  const lists = await db.query(
    `UPDATE link_allow_lists a SET entries = (
       SELECT coalesce(jsonb_agg(e), '[]'::jsonb) FROM jsonb_array_elements(a.entries) e
       WHERE e->>'identity' IS DISTINCT FROM $2)
     WHERE a.link_id IN (SELECT link_id FROM share_links WHERE workspace_id = $1)
       AND a.entries @> jsonb_build_array(jsonb_build_object('identity', $2::text))`,
    [r.workspaceId, r.identity],
  );
  return { readerIds: ids, allowLists: lists.rowCount ?? 0 };
};

/** One more download of the PDF by the reader (through their link). */
export const countReaderDownload = (db: Db, readerId: string) =>
  db.query(
    'UPDATE link_readers SET downloads = downloads + 1 WHERE reader_id = $1 AND kid IS NOT NULL',
    [readerId],
  );
