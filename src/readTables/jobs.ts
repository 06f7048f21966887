// Table `jobs`: the processing queue. An inline projection puts a job in with the upload, in the
// same transaction, so an acknowledged upload is never without its job; workers claim jobs with
// FOR UPDATE SKIP LOCKED and a lease (Emmett 0.42's async consumers skip events, see NOTES).
// Rebuilt by replay like the rest: unfinished versions come back as queued jobs.
import type { Db, ReadTable } from './readTable.ts';

export const jobs: ReadTable = {
  table: 'jobs',
  ddl: `CREATE TABLE IF NOT EXISTS jobs (
    version_id UUID PRIMARY KEY,
    flipbook_id UUID NOT NULL,
    workspace_id UUID NOT NULL,
    checksum TEXT NOT NULL,
    attempts INT NOT NULL DEFAULT 0,
    lease_owner TEXT,
    lease_until TIMESTAMPTZ,
    enqueued_at TIMESTAMPTZ NOT NULL,
    -- the upload's story, carried into the processing events' metadata (docs/audit.md)
    correlation_id TEXT,
    causation_id TEXT,
    -- attempts the file store failed, and since when (src/worker/deferrals.ts)
    store_failures INT NOT NULL DEFAULT 0,
    store_failing_since TIMESTAMPTZ
  );
  CREATE INDEX IF NOT EXISTS jobs_lease ON jobs (lease_until NULLS FIRST, enqueued_at)`,
  handles: [
    'VersionUploaded',
    'VersionProcessed',
    'VersionProcessingFailed',
    'VersionDeleted',
    'FlipbookDeleted',
  ],
  apply: async (db, event) => {
    if (event.type === 'FlipbookDeleted') {
      // Every version's job goes, and a render under way for any of them stops at once.
      const { rows } = await db.query<{ version_id: string }>(
        'DELETE FROM jobs WHERE flipbook_id = $1 RETURNING version_id::text',
        [event.data.flipbookId],
      );
      for (const { version_id } of rows) {
        await db.query("SELECT pg_notify('flipbook_jobs_deleted', $1)", [version_id]);
      }
      return;
    }
    if (event.type === 'VersionUploaded') {
      const { versionId, flipbookId, workspaceId, file, occurredAt } = event.data;
      const metadata = (event.metadata ?? {}) as { correlation_id?: string; messageId?: string };
      await db.query(
        `INSERT INTO jobs (version_id, flipbook_id, workspace_id, checksum, enqueued_at,
           correlation_id, causation_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (version_id) DO NOTHING`,
        [
          versionId,
          flipbookId,
          workspaceId,
          file.checksum,
          occurredAt,
          metadata.correlation_id ?? null,
          metadata.messageId ?? null,
        ],
      );
      // Wakes idle workers at commit (NOTIFY is delivered only if the transaction commits).
      await db.query("SELECT pg_notify('flipbook_jobs', $1)", [versionId]);
    } else if (
      event.type === 'VersionProcessed' ||
      event.type === 'VersionProcessingFailed' ||
      event.type === 'VersionDeleted'
    ) {
      await db.query('DELETE FROM jobs WHERE version_id = $1', [event.data.versionId]);
      // A deleted version's render stops at once, not at its worker's next lease renewal.
      if (event.type === 'VersionDeleted') {
        await db.query("SELECT pg_notify('flipbook_jobs_deleted', $1)", [event.data.versionId]);
      }
      // The flipbook's next version may be claimed now (versions go in upload order): wake lanes.
      await db.query("SELECT pg_notify('flipbook_jobs', $1)", [event.data.versionId]);
    }
  },
};

/** Whether a worker holds this version's job now (its lease has not run out). */
export const jobUnderWay = async (db: Db, versionId: string) =>
  (await db.query('SELECT 1 FROM jobs WHERE version_id = $1 AND lease_until > now()', [versionId]))
    .rows.length > 0;

/** Jobs by state for the metrics: waiting, leased now, and versions whose processing failed. */
export const countJobs = async (db: Db) => {
  const { rows } = await db.query<{ queued: string; running: string; failed: string }>(
    `SELECT
       (SELECT count(*) FROM jobs WHERE lease_until IS NULL OR lease_until <= now())::text AS queued,
       (SELECT count(*) FROM jobs WHERE lease_until > now())::text AS running,
       (SELECT count(*) FROM versions WHERE status = 'error')::text AS failed`,
  );
  const row = rows[0];
  return {
    queued: Number(row?.queued ?? 0),
    running: Number(row?.running ?? 0),
    failed: Number(row?.failed ?? 0),
  };
};
