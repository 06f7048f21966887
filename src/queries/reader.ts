// Queries behind the public reader (/f/:id): a flipbook by id alone (the id is the share link),
// and the version it shows. Not a read table of its own: it reads `flipbooks`, `versions` and `workspaces`.
import type { Visibility } from '../domain/flipbook/access.ts';
import type { Db } from '../readTables/readTable.ts';
import type { VersionRow } from '../readTables/versions.ts';

export type ReaderFlipbookRow = {
  title: string;
  /** the title is still the upload's file name: the reader shows the PDF's own title instead */
  title_from_file: boolean;
  /** the reading direction chosen for the flipbook; null: auto (the version's document.json) */
  direction: 'ltr' | 'rtl' | null;
  description: string;
  status: 'published' | 'archived';
  active_version_id: string | null;
  download_allowed: boolean;
  workspace_id: string;
  visibility: Visibility;
  embed_origins: string[];
  /** its workspace counts its readers (docs/privacy.md) */
  analytics_enabled: boolean;
  /** its workspace's branding (./workspaces.ts): the key it is served under, the logo's size */
  brand_key: string | null;
  brand_logo_width: number | null;
  brand_logo_height: number | null;
};

/** A live flipbook by id, archived or not; null once deleted (or never created). */
export const findReaderFlipbook = async (db: Db, flipbookId: string) =>
  (
    await db.query<ReaderFlipbookRow>(
      `SELECT title, coalesce(title_from_file, FALSE) AS title_from_file, direction, description,
         status, active_version_id, download_allowed, f.workspace_id, visibility, embed_origins,
         coalesce(w.analytics_enabled, TRUE) AS analytics_enabled, w.brand_key,
         w.brand_logo_width, w.brand_logo_height
       FROM flipbooks f LEFT JOIN workspaces w ON w.workspace_id = f.workspace_id
       WHERE f.flipbook_id = $1`,
      [flipbookId],
    )
  ).rows[0] ?? null;

/** The version the reader shows: the active one, or before any is active the newest. */
export const readerVersion = async (db: Db, flipbookId: string, activeVersionId: string | null) =>
  (
    await db.query<Pick<VersionRow, 'version_id' | 'status' | 'page_count'>>(
      // the active version; else the newest on its way; else (every one failed) the newest;
      // never a preview's (it is read at its own address, and only there)
      `SELECT version_id, status, page_count FROM versions v WHERE flipbook_id = $1
         AND NOT EXISTS (SELECT 1 FROM previews p WHERE p.version_id = v.version_id)
       ORDER BY (version_id = $2) DESC, (status <> 'error') DESC, number DESC LIMIT 1`,
      [flipbookId, activeVersionId],
    )
  ).rows[0] ?? null;

/** A live preview's version of the flipbook, as readerVersion gives the one it shows (else null). */
export const previewVersion = async (db: Db, flipbookId: string, versionId: string) =>
  (
    await db.query<Pick<VersionRow, 'version_id' | 'status' | 'page_count'>>(
      `SELECT version_id, status, page_count FROM versions v WHERE flipbook_id = $1
         AND version_id = $2
         AND EXISTS (SELECT 1 FROM previews p WHERE p.version_id = v.version_id)`,
      [flipbookId, versionId],
    )
  ).rows[0] ?? null;
