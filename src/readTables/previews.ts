// Read table `previews`: a flipbook's live previews by name (issue "Review a PDF change like a
// code change"), as their events describe them: the version under the name now, when the name
// was first published and last pushed to, by whom, and what its comparison found (the counts;
// the pages are in the comparison's file). A promoted or deleted preview is gone from here.
import { queryRow, queryRows } from './queryRows.ts';
import { actorOf, type Db, type ReadTable } from './readTable.ts';

export const previews: ReadTable = {
  table: 'previews',
  ddl: `CREATE TABLE IF NOT EXISTS previews (
    flipbook_id UUID NOT NULL,
    workspace_id UUID NOT NULL,
    name TEXT NOT NULL,
    version_id UUID NOT NULL UNIQUE,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    -- who pushed the version it shows (the event's actor)
    updated_by JSONB,
    -- PreviewCompared's counts, once made; null until then
    compared JSONB,
    PRIMARY KEY (flipbook_id, name)
  );
  CREATE INDEX IF NOT EXISTS previews_age ON previews (updated_at)`,
  handles: [
    'PreviewPublished',
    'PreviewCompared',
    'PreviewPromoted',
    'PreviewDeleted',
    'FlipbookDeleted',
  ],
  apply: async (db: Db, event) => {
    switch (event.type) {
      case 'PreviewPublished': {
        const d = event.data;
        await db.query(
          `INSERT INTO previews (flipbook_id, workspace_id, name, version_id, created_at,
             updated_at, updated_by, compared)
           VALUES ($1, $2, $3, $4, $5, $5, $6, NULL)
           ON CONFLICT (flipbook_id, name) DO UPDATE SET version_id = $4, updated_at = $5,
             updated_by = $6, compared = NULL`,
          [d.flipbookId, d.workspaceId, d.name, d.versionId, d.occurredAt, actorOf(event)],
        );
        break;
      }
      case 'PreviewCompared': {
        const {
          flipbookId,
          workspaceId: _w,
          name,
          versionId,
          occurredAt: _o,
          ...counts
        } = event.data;
        await db.query(
          'UPDATE previews SET compared = $4 WHERE flipbook_id = $1 AND name = $2 AND version_id = $3',
          [flipbookId, name, versionId, JSON.stringify(counts)],
        );
        break;
      }
      case 'PreviewPromoted':
      case 'PreviewDeleted':
        await db.query('DELETE FROM previews WHERE flipbook_id = $1 AND name = $2', [
          event.data.flipbookId,
          event.data.name,
        ]);
        break;
      case 'FlipbookDeleted':
        await db.query('DELETE FROM previews WHERE flipbook_id = $1', [event.data.flipbookId]);
        break;
    }
  },
};

export type PreviewRow = {
  flipbook_id: string;
  workspace_id: string;
  name: string;
  version_id: string;
  created_at: string;
  updated_at: string;
  updated_by: Record<string, unknown> | null;
  compared: Record<string, unknown> | null;
};

const COLUMNS = `flipbook_id, workspace_id, name, version_id, created_at::text AS created_at,
  updated_at::text AS updated_at, updated_by, compared`;

/** A flipbook's previews, the latest pushed first. */
export const previewsOf = async (db: Db, flipbookId: string) =>
  queryRows<PreviewRow>(
    db,
    `SELECT ${COLUMNS} FROM previews WHERE flipbook_id = $1 ORDER BY updated_at DESC, name`,
    [flipbookId],
  );

export const findPreview = async (db: Db, flipbookId: string, name: string) =>
  queryRow<PreviewRow>(db, `SELECT ${COLUMNS} FROM previews WHERE flipbook_id = $1 AND name = $2`, [
    flipbookId,
    name,
  ]);

/** The preview a version is shown by, if it is one (the preview URL names the version). */
export const previewOfVersion = async (db: Db, versionId: string) =>
  queryRow<PreviewRow>(db, `SELECT ${COLUMNS} FROM previews WHERE version_id = $1`, [versionId]);

/** Previews last pushed to before `before`: for the sweep (serve --preview-ttl). */
export const stalePreviews = async (db: Db, before: Date, limit: number) =>
  queryRows<PreviewRow>(
    db,
    `SELECT ${COLUMNS} FROM previews WHERE updated_at < $1 ORDER BY updated_at LIMIT $2`,
    [before, limit],
  );

export type Uncompared = {
  flipbook_id: string;
  name: string;
  version_id: string;
  page_count: number;
  /** the flipbook's live version now, and how it stands (null: none) */
  against_version_id: string | null;
  against_status: string | null;
};

/** Previews whose version is done and not compared yet, the oldest push first. */
export const uncomparedPreviews = async (db: Db, limit: number) =>
  queryRows<Uncompared>(
    db,
    `SELECT p.flipbook_id, p.name, p.version_id, v.page_count,
         f.active_version_id AS against_version_id, a.status AS against_status
       FROM previews p JOIN versions v ON v.version_id = p.version_id
         JOIN flipbooks f ON f.flipbook_id = p.flipbook_id
         LEFT JOIN versions a ON a.version_id = f.active_version_id
       WHERE p.compared IS NULL AND v.status = 'done'
       ORDER BY p.updated_at LIMIT $1`,
    [limit],
  );
