// Read table `flipbooks`: one row per flipbook, with its active version for list queries.
import type { ReadTable } from './readTable.ts';

export const flipbooks: ReadTable = {
  table: 'flipbooks',
  ddl: `CREATE TABLE IF NOT EXISTS flipbooks (
    flipbook_id UUID PRIMARY KEY,
    workspace_id UUID NOT NULL,
    title TEXT NOT NULL,
    slug TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL DEFAULT 'published',
    active_version_id UUID,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
  );
  CREATE INDEX IF NOT EXISTS flipbooks_workspace_created ON flipbooks (workspace_id, created_at)`,
  handles: [
    'FlipbookCreated',
    'VersionUploaded',
    'VersionProcessed',
    'VersionProcessingFailed',
    'VersionActivated',
    'VersionDeleted',
  ],
  apply: async (db, event) => {
    if (event.type === 'FlipbookCreated') {
      const { flipbookId, workspaceId, title, slug, description, occurredAt } = event.data;
      await db.query(
        `INSERT INTO flipbooks (flipbook_id, workspace_id, title, slug, description, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $6) ON CONFLICT (flipbook_id) DO NOTHING`,
        [flipbookId, workspaceId, title, slug, description, occurredAt],
      );
      return;
    }
    if (!('flipbookId' in event.data)) return;
    const activate = event.type === 'VersionActivated';
    await db.query(
      `UPDATE flipbooks SET updated_at = GREATEST(updated_at, $2),
         active_version_id = CASE WHEN $3 THEN $4::uuid ELSE active_version_id END
       WHERE flipbook_id = $1`,
      [
        event.data.flipbookId,
        event.data.occurredAt,
        activate,
        activate ? event.data.versionId : null,
      ],
    );
  },
};
