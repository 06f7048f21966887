// Table `rendition_fills`: versions whose largest page images are still to be rendered in the
// background after `done` (src/worker/fillRenditions.ts). Operational state, not a read table:
// no event says a page image was rendered (an image is a cache of the PDF, rendered again on
// demand whenever it is missing), so replay cannot rebuild it and leaves it alone (created with
// the operational tables in src/store/schema.ts). Claimed like jobs: a lease, SKIP LOCKED.
import type { Db } from '../readTables/readTable.ts';
import { dropOrphanRows, renewVersionLease } from './versionRows.ts';

export const RENDITION_FILLS_DDL = `CREATE TABLE IF NOT EXISTS rendition_fills (
  version_id UUID PRIMARY KEY,
  checksum TEXT NOT NULL,
  enqueued_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  lease_owner TEXT,
  lease_until TIMESTAMPTZ,
  attempts INT NOT NULL DEFAULT 0
)`;

export type Fill = { version_id: string; checksum: string; attempts: number };

/** Queues a version's fill (again: a later attempt of the same version queues nothing new). */
export const queueFill = async (db: Db, versionId: string, checksum: string) => {
  await db.query(
    `INSERT INTO rendition_fills (version_id, checksum) VALUES ($1, $2)
     ON CONFLICT (version_id) DO NOTHING`,
    [versionId, checksum],
  );
};

/** The oldest fill nobody holds, leased to `owner`; only versions that are done (and exist). */
export const claimFill = async (db: Db, owner: string, leaseMs: number): Promise<Fill | null> => {
  const { rows } = await db.query<Fill>(
    `UPDATE rendition_fills SET lease_owner = $1,
       lease_until = now() + make_interval(secs => $2::float8 / 1000), attempts = attempts + 1
     WHERE version_id = (
       SELECT r.version_id FROM rendition_fills r JOIN versions v USING (version_id)
       WHERE (r.lease_until IS NULL OR r.lease_until < now()) AND v.status = 'done'
       ORDER BY r.enqueued_at LIMIT 1 FOR UPDATE OF r SKIP LOCKED)
     RETURNING version_id::text, checksum, attempts`,
    [owner, leaseMs],
  );
  return rows[0] ?? null;
};

export const renewFill = (db: Db, versionId: string, owner: string, leaseMs: number) =>
  renewVersionLease(db, 'rendition_fills', versionId, owner, leaseMs);

/** Gives a fill back to be taken up later (it yielded, or the process stops). */
export const releaseFill = (db: Db, versionId: string, owner: string, delayMs = 0) =>
  db.query(
    `UPDATE rendition_fills SET lease_owner = NULL,
       lease_until = CASE WHEN $3::float8 > 0
         THEN now() + make_interval(secs => $3::float8 / 1000) END
     WHERE version_id = $1 AND lease_owner = $2`,
    [versionId, owner, delayMs],
  );

/** The fill is over: every page has its image, or the version is gone. */
export const endFill = (db: Db, versionId: string) =>
  db.query('DELETE FROM rendition_fills WHERE version_id = $1', [versionId]);

/** Fills whose version no longer exists (deleted, or its flipbook was): nothing to fill. */
export const dropOrphanFills = (db: Db) => dropOrphanRows(db, 'rendition_fills');

/** What a page image rendered on demand needs: the version's PDF and page count. */
export const renditionSource = async (db: Db, versionId: string) =>
  (
    await db.query<{ checksum: string; page_count: number; status: string }>(
      `SELECT v.pdf_checksum AS checksum, v.page_count, v.status
       FROM versions v JOIN flipbooks f USING (flipbook_id)
       WHERE v.version_id = $1 AND v.status IN ('processing', 'done')
         AND v.pdf_checksum IS NOT NULL AND f.status <> 'archived'`,
      [versionId],
    )
  ).rows[0] ?? null;
