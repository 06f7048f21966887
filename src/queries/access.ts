// Queries behind who may read what (src/app/readerAccess.ts): a version's flipbook and its
// visibility, and whether a grant's holder may still read it (a share link not revoked or
// expired; a member's session still open, in the book's workspace). One indexed lookup each,
// made on every request for a non-public book's files, so a revocation is felt at once.
import type { Visibility } from '../domain/flipbook/access.ts';
import type { IdentifyMode } from '../domain/flipbook/shareLinks.ts';
import type { Db } from '../readTables/readTable.ts';
import type { VersionRow } from '../readTables/versions.ts';

export type VersionAccess = {
  version_id: string;
  status: VersionRow['status'];
  flipbook_id: string;
  workspace_id: string;
  visibility: Visibility;
  download_allowed: boolean;
  /**
   * the PDF's key, for a download: the original for a PDF upload, the PDF made of any other
   * (null until it is made)
   */
  checksum: string | null;
  /** the upload as it came: its key, name and type (a download of a converted one's original) */
  uploaded_checksum: string;
  file_name: string;
  file_type: string;
  mime_type: string;
  /** a live preview's version: read at its own address only (src/http/previewReader.ts) */
  preview: boolean;
};

/** A version whose files may be served to someone (its flipbook is not archived), or null. */
export const versionAccess = async (db: Db, versionId: string) =>
  (
    await db.query<VersionAccess>(
      `SELECT v.version_id, v.status, f.flipbook_id, f.workspace_id, f.visibility, f.download_allowed,
         v.pdf_checksum AS checksum, v.checksum AS uploaded_checksum, v.file_name, v.file_type,
         v.mime_type,
         EXISTS (SELECT 1 FROM previews p WHERE p.version_id = v.version_id) AS preview
       FROM versions v JOIN flipbooks f USING (flipbook_id)
       WHERE v.version_id = $1 AND f.status <> 'archived'`,
      [versionId],
    )
  ).rows[0] ?? null;

/** A share link that still opens its flipbook: there (not revoked), not expired. */
export const liveLinkOf = async (db: Db, linkId: string, now: Date) =>
  (
    await db.query<{
      flipbook_id: string;
      allow_download: boolean;
      password_id: string | null;
      identify: IdentifyMode;
      watermark: boolean;
      terms: string | null;
      allow_list_id: string | null;
    }>(
      `SELECT flipbook_id, allow_download, password_id, identify, watermark, terms, allow_list_id
       FROM share_links
       WHERE link_id = $1 AND (expires_at IS NULL OR expires_at > $2)`,
      [linkId, now],
    )
  ).rows[0] ?? null;

/**
 * Whether a session is still open and its person a member of the flipbook's workspace (members
 * read their workspace's books whatever their visibility: they publish them).
 */
export const memberSessionReads = async (
  db: Db,
  sessionId: string,
  flipbookId: string,
  now: Date,
  idleSince: Date,
) =>
  (
    await db.query(
      `SELECT 1 FROM sessions s JOIN users u USING (user_id)
         JOIN flipbooks f ON f.workspace_id = u.workspace_id
       WHERE s.session_id = $1 AND s.ended_at IS NULL AND s.expires_at > $3
         AND s.last_seen_at > $4 AND f.flipbook_id = $2`,
      [sessionId, flipbookId, now, idleSince],
    )
  ).rowCount === 1;

/**
 * The installation's secret for signing reading grants: `made` (random) by the first process that
 * asks, the same for every daemon on the database after.
 */
export const grantSecret = async (db: Db, made: string): Promise<string> => {
  await db.query(
    `INSERT INTO flipbook_meta (key, value) VALUES ('grant_secret', $1) ON CONFLICT (key) DO NOTHING`,
    [made],
  );
  const { rows } = await db.query<{ value: string }>(
    "SELECT value FROM flipbook_meta WHERE key = 'grant_secret'",
  );
  return rows[0]?.value as string;
};
