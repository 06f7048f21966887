// Read table `previews`: a flipbook's live previews by name (issue "Review a PDF change like a
// code change"), as their events describe them: the version under the name now, when the name
// was first published and last pushed to, by whom, and what its comparison found (the counts;
// the pages are in the comparison's file). A promoted or deleted preview is gone from here.
import type { Db, ReadTable } from './readTable.ts';

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
        const actor = (event.metadata as { actor?: unknown } | undefined)?.actor ?? null;
        await db.query(
          `INSERT INTO previews (flipbook_id, workspace_id, name, version_id, created_at,
             updated_at, updated_by, compared)
           VALUES ($1, $2, $3, $4, $5, $5, $6, NULL)
           ON CONFLICT (flipbook_id, name) DO UPDATE SET version_id = $4, updated_at = $5,
             updated_by = $6, compared = NULL`,
          [d.flipbookId, d.workspaceId, d.name, d.versionId, d.occurredAt, actor],
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
