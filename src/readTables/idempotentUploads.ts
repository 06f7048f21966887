// Read table `idempotent_uploads`: the uploads sent with an Idempotency-Key (src/domain/
// idempotency.ts), one row per workspace and key, written by the append that made the version
// (the key and the request's fingerprint ride in the event's metadata), so an upload and its key
// are recorded together or not at all: a retry after a crash finds the key if and only if the
// version exists. The answer the first request got is added after the append (`response`); a
// replay rebuilds the rows without it, and an answer is then made again from the read tables.
// Rows older than the idempotency window mean nothing and are swept.
import { queryRow } from './queryRows.ts';
import type { Db, ReadTable } from './readTable.ts';

export const idempotentUploads: ReadTable = {
  table: 'idempotent_uploads',
  ddl: `CREATE TABLE IF NOT EXISTS idempotent_uploads (
    workspace_id UUID NOT NULL,
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    flipbook_id UUID NOT NULL,
    version_id UUID NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    response TEXT,
    PRIMARY KEY (workspace_id, key)
  )`,
  handles: ['VersionUploaded'],
  apply: async (db, event) => {
    if (event.type !== 'VersionUploaded') return;
    const idempotency = event.metadata?.idempotency as
      | { key?: unknown; fingerprint?: unknown }
      | undefined;
    if (typeof idempotency?.key !== 'string' || typeof idempotency.fingerprint !== 'string') return;
    const { workspaceId, flipbookId, versionId, occurredAt } = event.data;
    // A key used again after its window made a new upload: the newest one is what it means now.
    await db.query(
      `INSERT INTO idempotent_uploads
         (workspace_id, key, fingerprint, flipbook_id, version_id, created_at)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (workspace_id, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint,
         flipbook_id = EXCLUDED.flipbook_id, version_id = EXCLUDED.version_id,
         created_at = EXCLUDED.created_at, response = NULL
       WHERE idempotent_uploads.created_at < EXCLUDED.created_at`,
      [workspaceId, idempotency.key, idempotency.fingerprint, flipbookId, versionId, occurredAt],
    );
  },
};

export type IdempotentUpload = {
  fingerprint: string;
  flipbook_id: string;
  version_id: string;
  created_at: string;
  /** the first answer's JSON, exactly as it was sent */
  response: string | null;
};

/** The upload made under `key` since `since`, if any. */
export const findIdempotentUpload = async (
  db: Db,
  workspaceId: string,
  key: string,
  since: Date,
): Promise<IdempotentUpload | null> =>
  queryRow<IdempotentUpload>(
    db,
    `SELECT fingerprint, flipbook_id, version_id, created_at, response
       FROM idempotent_uploads WHERE workspace_id = $1 AND key = $2 AND created_at >= $3`,
    [workspaceId, key, since.toISOString()],
  );

/** Keeps the answer the upload got, for the requests that send its key again. */
export const keepIdempotentResponse = (
  db: Db,
  workspaceId: string,
  key: string,
  versionId: string,
  response: object,
) =>
  db.query(
    `UPDATE idempotent_uploads SET response = $4
     WHERE workspace_id = $1 AND key = $2 AND version_id = $3`,
    [workspaceId, key, versionId, JSON.stringify(response)],
  );

/** Forgets keys older than `before` (their window is over). */
export const sweepIdempotentUploads = (db: Db, before: Date) =>
  db.query('DELETE FROM idempotent_uploads WHERE created_at < $1', [before.toISOString()]);
