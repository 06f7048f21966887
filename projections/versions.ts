// Read table `versions`: every live version of every flipbook; deleted versions leave it.
import type { ReadTable } from './readTable.ts';

export const versions: ReadTable = {
  table: 'versions',
  ddl: `CREATE TABLE IF NOT EXISTS versions (
    version_id UUID PRIMARY KEY,
    flipbook_id UUID NOT NULL,
    workspace_id UUID NOT NULL,
    number INT NOT NULL,
    status TEXT NOT NULL,
    is_active BOOLEAN NOT NULL DEFAULT FALSE,
    activate_on_done BOOLEAN NOT NULL,
    file_name TEXT NOT NULL,
    file_type TEXT NOT NULL,
    mime_type TEXT NOT NULL,
    file_size BIGINT NOT NULL,
    checksum TEXT NOT NULL,
    width INT NOT NULL DEFAULT 0,
    height INT NOT NULL DEFAULT 0,
    page_count INT NOT NULL DEFAULT 0,
    error TEXT,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    UNIQUE (flipbook_id, number)
  )`,
  handles: [
    'VersionUploaded',
    'VersionProcessingStarted',
    'VersionProcessed',
    'VersionProcessingFailed',
    'VersionActivated',
    'VersionDeleted',
  ],
  apply: async (db, event) => {
    switch (event.type) {
      case 'VersionUploaded': {
        const { versionId, flipbookId, workspaceId, number, file, activateOnDone, occurredAt } =
          event.data;
        await db.query(
          `INSERT INTO versions (version_id, flipbook_id, workspace_id, number, status,
             activate_on_done, file_name, file_type, mime_type, file_size, checksum, created_at, updated_at)
           VALUES ($1, $2, $3, $4, 'pending', $5, $6, $7, $8, $9, $10, $11, $11)
           ON CONFLICT (version_id) DO NOTHING`,
          [
            versionId,
            flipbookId,
            workspaceId,
            number,
            activateOnDone,
            file.name,
            file.type,
            file.mimeType,
            file.size,
            file.checksum,
            occurredAt,
          ],
        );
        return;
      }
      case 'VersionProcessingStarted':
        return setStatus(db, event.data, 'processing');
      case 'VersionProcessed': {
        const { versionId, pageCount, width, height, occurredAt } = event.data;
        await db.query(
          `UPDATE versions SET status = 'done', page_count = $2, width = $3, height = $4,
             error = NULL, updated_at = $5 WHERE version_id = $1`,
          [versionId, pageCount, width, height, occurredAt],
        );
        return;
      }
      case 'VersionProcessingFailed':
        await db.query(
          `UPDATE versions SET status = 'error', error = $2, updated_at = $3 WHERE version_id = $1`,
          [event.data.versionId, event.data.reason, event.data.occurredAt],
        );
        return;
      case 'VersionActivated':
        // One statement flips both flags, so no reader ever sees two active versions.
        await db.query(
          `UPDATE versions SET is_active = (version_id = $2)
           WHERE flipbook_id = $1 AND (is_active OR version_id = $2)`,
          [event.data.flipbookId, event.data.versionId],
        );
        return;
      case 'VersionDeleted':
        await db.query('DELETE FROM versions WHERE version_id = $1', [event.data.versionId]);
        return;
    }
  },
};

const setStatus = (
  db: Parameters<ReadTable['apply']>[0],
  data: { versionId: string; occurredAt: string },
  status: string,
) =>
  db
    .query('UPDATE versions SET status = $2, updated_at = $3 WHERE version_id = $1', [
      data.versionId,
      status,
      data.occurredAt,
    ])
    .then(() => {});
