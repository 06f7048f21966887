// Queries behind the public file URLs (/files/...): which version's files may be served, and how.
// Not a read table of its own: it reads `versions` joined with `flipbooks`. A deleted version has
// no row, and an archived flipbook's files are withheld like its reader page, so both are null.
import type { Db } from '../readTables/readTable.ts';
import type { VersionRow } from '../readTables/versions.ts';

/** The processing status of a version whose page files may be served, or null. */
export const servablePagesStatus = async (db: Db, versionId: string) =>
  (
    await db.query<{ status: VersionRow['status'] }>(
      `SELECT v.status FROM versions v JOIN flipbooks f USING (flipbook_id)
       WHERE v.version_id = $1 AND f.status <> 'archived'`,
      [versionId],
    )
  ).rows[0]?.status ?? null;

/**
 * What the reader's search highlights need of a finished version whose pages may be served: its
 * original (named by checksum) and page count. Downloads being off does not matter: the words
 * are read on the server, the original is never sent.
 */
export const wordSource = async (db: Db, versionId: string) =>
  (
    await db.query<{ checksum: string; page_count: number }>(
      `SELECT v.pdf_checksum AS checksum, v.page_count FROM versions v JOIN flipbooks f USING (flipbook_id)
       WHERE v.version_id = $1 AND v.status = 'done' AND v.pdf_checksum IS NOT NULL
         AND f.status <> 'archived'`,
      [versionId],
    )
  ).rows[0] ?? null;

/** A finished, live version's page: its size in pixels (its aspect is what a tile needs). */
export const tileSource = async (db: Db, versionId: string, position: number) =>
  (
    await db.query<{ checksum: string; width: number; height: number }>(
      `SELECT v.pdf_checksum AS checksum, p.width, p.height FROM versions v
         JOIN flipbooks f USING (flipbook_id)
         JOIN pages p ON p.version_id = v.version_id AND p.position = $2
       WHERE v.version_id = $1 AND v.status = 'done' AND v.pdf_checksum IS NOT NULL
         AND f.status <> 'archived'`,
      [versionId, position],
    )
  ).rows[0] ?? null;
