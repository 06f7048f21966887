// Read table `share_links`: a flipbook's live share links as its events describe them (a revoked
// one is gone from here, so its token finds nothing at once; its events stay). Not derived from
// events, so replays keep them: `link_passwords` (argon2id hashes, named by id in the events) and
// `link_opens` (reading volume, counted per link and day: not events). A password's hash goes
// with what it belonged to (issue 40), here in the event's transaction: a link revoked, a
// password replaced or removed, a flipbook deleted. Each deletion names the hash the read table
// held before the event, never "all but the newest", so a replay (which finds the hashes of
// today in link_passwords while it rebuilds yesterday's links) deletes nothing still in use.
import type { IdentifyMode } from '../domain/flipbook/shareLinks.ts';
import { queryRow, queryRows } from './queryRows.ts';
import { actorOf, type Db, type ReadTable } from './readTable.ts';
import { ifGiven, utc } from './sql.ts';

/** No password's id: compared with a link's, it differs from every one. */
const NO_PASSWORD = '00000000-0000-0000-0000-000000000000';

export const shareLinks: ReadTable = {
  table: 'share_links',
  ddl: `CREATE TABLE IF NOT EXISTS share_links (
    link_id UUID PRIMARY KEY,
    flipbook_id UUID NOT NULL,
    workspace_id UUID NOT NULL,
    label TEXT NOT NULL,
    -- hex SHA-256 of the token (the token itself is never stored)
    token_hash TEXT NOT NULL UNIQUE,
    expires_at TIMESTAMPTZ,
    password_id UUID,
    allow_download BOOLEAN NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    created_by JSONB,
    -- what it asks of readers (issue 44; src/domain/flipbook/shareLinks.ts)
    identify TEXT NOT NULL DEFAULT 'none',
    terms TEXT,
    allow_list_id UUID,
    watermark BOOLEAN NOT NULL DEFAULT FALSE,
    notify BOOLEAN NOT NULL DEFAULT FALSE
  );
  CREATE INDEX IF NOT EXISTS share_links_flipbook ON share_links (flipbook_id, created_at, link_id)`,
  handles: ['ShareLinkCreated', 'ShareLinkEdited', 'ShareLinkRevoked', 'FlipbookDeleted'],
  apply: async (db, event) => {
    switch (event.type) {
      case 'ShareLinkCreated': {
        const d = event.data;
        const actor = actorOf(event);
        await db.query(
          `INSERT INTO share_links (link_id, flipbook_id, workspace_id, label, token_hash,
             expires_at, password_id, allow_download, created_at, updated_at, created_by,
             identify, terms, allow_list_id, watermark, notify)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10, $11, $12, $13, $14, $15)
           ON CONFLICT (link_id) DO NOTHING`,
          [
            d.linkId,
            d.flipbookId,
            d.workspaceId,
            d.label,
            d.tokenHash,
            d.expiresAt,
            d.passwordId,
            d.allowDownload,
            d.occurredAt,
            actor,
            d.identify ?? 'none',
            d.terms ?? null,
            d.allowListId ?? null,
            d.watermark ?? false,
            d.notify ?? false,
          ],
        );
        break;
      }
      case 'ShareLinkEdited': {
        const d = event.data;
        if (d.passwordId !== undefined) {
          await db.query(
            `DELETE FROM link_passwords WHERE password_id = (
               SELECT password_id FROM share_links WHERE link_id = $1 AND password_id <> $2)`,
            [d.linkId, d.passwordId ?? NO_PASSWORD],
          );
        }
        await db.query(
          `UPDATE share_links SET label = coalesce($2, label),
             expires_at = CASE WHEN $3 THEN $4::timestamptz ELSE expires_at END,
             password_id = CASE WHEN $5 THEN $6::uuid ELSE password_id END,
             allow_download = coalesce($7, allow_download),
             updated_at = GREATEST(updated_at, $8),
             identify = coalesce($9, identify),
             terms = CASE WHEN $10 THEN $11 ELSE terms END,
             allow_list_id = CASE WHEN $12 THEN $13::uuid ELSE allow_list_id END,
             watermark = coalesce($14, watermark),
             notify = coalesce($15, notify)
           WHERE link_id = $1`,
          [
            d.linkId,
            d.label ?? null,
            ...ifGiven(d.expiresAt),
            ...ifGiven(d.passwordId),
            d.allowDownload ?? null,
            d.occurredAt,
            d.identify ?? null,
            ...ifGiven(d.terms),
            ...ifGiven(d.allowListId),
            d.watermark ?? null,
            d.notify ?? null,
          ],
        );
        break;
      }
      case 'ShareLinkRevoked':
        await dropLinks(db, 'link_id', event.data.linkId);
        break;
      case 'FlipbookDeleted':
        await dropLinks(db, 'flipbook_id', event.data.flipbookId);
        break;
    }
  },
};

/**
 * Links gone (revoked, or their flipbook deleted): their rows, their passwords' hashes, and
 * what they kept of their readers (src/state/linkReaders.ts): their allow lists and readers go
 * with them.
 */
const dropLinks = async (db: Db, by: 'link_id' | 'flipbook_id', id: string) => {
  await db.query(
    `DELETE FROM link_allow_lists WHERE link_id IN (SELECT link_id FROM share_links WHERE ${by} = $1)`,
    [id],
  );
  await db.query(`DELETE FROM link_readers WHERE ${by} = $1`, [id]);
  await dropLinkRows(db, by, id);
};

const dropLinkRows = (db: Db, by: 'link_id' | 'flipbook_id', id: string) =>
  db.query(
    `WITH gone AS (DELETE FROM share_links WHERE ${by} = $1 RETURNING password_id)
     DELETE FROM link_passwords WHERE password_id IN (SELECT password_id FROM gone)`,
    [id],
  );

/** Not projections: kept across replays (schema.ts creates them). */
export const SHARE_LINK_STATE_DDL = `
CREATE TABLE IF NOT EXISTS link_passwords (
  password_id UUID PRIMARY KEY,
  link_id UUID NOT NULL,
  hash TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL
);
CREATE TABLE IF NOT EXISTS link_opens (
  link_id UUID NOT NULL,
  day DATE NOT NULL,
  opens INT NOT NULL,
  PRIMARY KEY (link_id, day)
);
`;

export type ShareLinkRow = {
  id: string;
  flipbook_id: string;
  workspace_id: string;
  label: string;
  expires_at: string | null;
  has_password: boolean;
  allow_download: boolean;
  created_at: string;
  updated_at: string;
  /** opens in all, and on the last day with any (UTC) */
  opens: number;
  last_opened_on: string | null;
  /** its allow list as kept (src/state/linkReaders.ts) */
  allow_entries: ({ domain: string } | { address: string })[];
  readers: number;
} & LinkRules;

/** What a link asks of its readers, as the read table holds it. */
export type LinkRules = {
  identify: IdentifyMode;
  terms: string | null;
  allow_list_id: string | null;
  watermark: boolean;
  notify: boolean;
};
const RULES = 'identify, terms, allow_list_id, watermark, notify';
/** The sites that may frame the link's book: its pages before the book are framed alike. */
const EMBEDS = `coalesce((SELECT f.embed_origins FROM flipbooks f
  WHERE f.flipbook_id = share_links.flipbook_id), '{}') AS embed_origins`;

const COLUMNS = `l.link_id AS id, l.flipbook_id, l.workspace_id, l.label,
  ${utc('l.expires_at', 'expires_at')}, l.password_id IS NOT NULL AS has_password, l.allow_download,
  ${utc('l.created_at', 'created_at')}, ${utc('l.updated_at', 'updated_at')},
  coalesce(o.opens, 0)::int AS opens, o.last_day::text AS last_opened_on,
  l.identify, l.terms, l.allow_list_id, l.watermark, l.notify,
  coalesce((SELECT entries FROM link_allow_lists a WHERE a.list_id = l.allow_list_id), '[]')
    AS allow_entries,
  (SELECT count(*)::int FROM link_readers r
   WHERE r.link_id = l.link_id AND r.identified_at IS NOT NULL AND r.kid IS NOT NULL) AS readers`;
const OPENS = `LEFT JOIN LATERAL (SELECT sum(opens) AS opens, max(day) AS last_day
  FROM link_opens WHERE link_opens.link_id = l.link_id) o ON TRUE`;

export const listShareLinks = async (db: Db, flipbookId: string) =>
  queryRows<ShareLinkRow>(
    db,
    `SELECT ${COLUMNS} FROM share_links l ${OPENS}
       WHERE l.flipbook_id = $1 ORDER BY l.created_at, l.link_id`,
    [flipbookId],
  );

export const findShareLink = async (db: Db, flipbookId: string, linkId: string) =>
  queryRow<ShareLinkRow>(
    db,
    `SELECT ${COLUMNS} FROM share_links l ${OPENS}
       WHERE l.flipbook_id = $1 AND l.link_id = $2`,
    [flipbookId, linkId],
  );

/** What opening a link needs: the link by its token's hash, live or not yet expired. */
export type LinkByToken = {
  link_id: string;
  flipbook_id: string;
  workspace_id: string;
  label: string;
  password_id: string | null;
  allow_download: boolean;
  expired: boolean;
  created_by: unknown;
  /** its flipbook's (`[]`: the default) */
  embed_origins: string[];
} & LinkRules;

export const findLinkByTokenHash = async (db: Db, tokenHash: string, now: Date) =>
  queryRow<LinkByToken>(
    db,
    `SELECT link_id, flipbook_id, workspace_id, label, password_id, allow_download,
         coalesce(expires_at <= $2, FALSE) AS expired, created_by, ${RULES}, ${EMBEDS}
       FROM share_links WHERE token_hash = $1`,
    [tokenHash, now],
  );

/** A link by id, for a grant (./access): still there and not expired, or null. */
export const findLiveLink = async (db: Db, linkId: string, now: Date) =>
  queryRow<LinkByToken>(
    db,
    `SELECT link_id, flipbook_id, workspace_id, label, password_id, allow_download,
         FALSE AS expired, created_by, ${RULES}, ${EMBEDS}
       FROM share_links WHERE link_id = $1 AND (expires_at IS NULL OR expires_at > $2)`,
    [linkId, now],
  );

export const saveLinkPassword = async (
  db: Db,
  p: { passwordId: string; linkId: string; hash: string; now: Date },
) => {
  await db.query(
    `INSERT INTO link_passwords (password_id, link_id, hash, created_at) VALUES ($1, $2, $3, $4)`,
    [p.passwordId, p.linkId, p.hash, p.now],
  );
};

/**
 * Deletes a hash saved for a change that was refused (the event not appended): only if no link
 * names it, so a change that went through but whose answer was lost keeps its password.
 */
export const forgetUnusedPassword = async (db: Db, passwordId: string) => {
  await db.query(
    `DELETE FROM link_passwords p WHERE p.password_id = $1
       AND NOT EXISTS (SELECT 1 FROM share_links l WHERE l.password_id = p.password_id)`,
    [passwordId],
  );
};

/**
 * Deletes the hashes saved before `before` that no link names: left by a process that died
 * between saving a password and appending its event, or by a build that kept every hash. A hash
 * is saved just before its event, so a younger one may be on its way.
 */
export const sweepLinkPasswords = async (db: Db, before: Date) => {
  await db.query(
    `DELETE FROM link_passwords p WHERE p.created_at < $1
       AND NOT EXISTS (SELECT 1 FROM share_links l WHERE l.password_id = p.password_id)`,
    [before],
  );
};

export const linkPasswordHash = async (db: Db, passwordId: string) =>
  (
    await db.query<{ hash: string }>('SELECT hash FROM link_passwords WHERE password_id = $1', [
      passwordId,
    ])
  ).rows[0]?.hash ?? null;

/** One more open of a link on a day (UTC). */
export const countLinkOpen = async (db: Db, linkId: string, now: Date) => {
  await db.query(
    `INSERT INTO link_opens (link_id, day, opens) VALUES ($1, ($2::timestamptz AT TIME ZONE 'UTC')::date, 1)
     ON CONFLICT (link_id, day) DO UPDATE SET opens = link_opens.opens + 1`,
    [linkId, now],
  );
};
