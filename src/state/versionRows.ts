// What the tables of work keyed by a version do alike: the queue's jobs and the rendition fills
// are leased to a worker, who renews its lease while it works; fills and cached tiles outlive a
// version whose clean-up failed, and are dropped once their version is gone.
import type { Db } from '../readTables/readTable.ts';

/** Extends `owner`'s lease; false when the row is gone (finished, deleted) or was taken over. */
export const renewVersionLease = async (
  db: Db,
  table: 'jobs' | 'rendition_fills',
  versionId: string,
  owner: string,
  leaseMs: number,
) => {
  const { rowCount } = await db.query(
    `UPDATE ${table} SET lease_until = now() + make_interval(secs => $3::float8 / 1000)
     WHERE version_id = $1 AND lease_owner = $2`,
    [versionId, owner, leaseMs],
  );
  return (rowCount ?? 0) > 0;
};

/** The rows of versions that no longer exist (deleted, or their flipbook was). */
export const dropOrphanRows = (db: Db, table: 'rendition_fills' | 'tile_cache') =>
  db.query(
    `DELETE FROM ${table} r WHERE NOT EXISTS (
       SELECT 1 FROM versions v WHERE v.version_id = r.version_id)`,
  );
