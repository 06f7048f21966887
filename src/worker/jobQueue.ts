// The processing queue's claims and leases (the rows themselves come from the jobs projection).
// A claim is one statement: the first free or expired job, locked with SKIP LOCKED so workers on
// any number of machines never take the same one, and leased for a while. The versions of one
// flipbook are processed one after the other, in upload order: so they finish in that order, and
// the newest one published (`--slug` every night) is the one left active, never an older one that
// happened to finish last. A worker that dies
// simply stops renewing; when the lease runs out, another worker takes the job (at once, one
// started on its host: ./leaseOwner.ts).
import type { Db } from '../readTables/readTable.ts';
import { renewVersionLease } from '../state/versionRows.ts';

export type Job = {
  version_id: string;
  flipbook_id: string;
  workspace_id: string;
  /** the original as uploaded */
  checksum: string;
  /** what it is (`pdf`, `docx`, `jpeg`...), and the PDF made of it once made (null until then) */
  file_type: string;
  pdf_checksum: string | null;
  attempts: number;
  /** the upload's story (docs/audit.md); null for jobs queued before the audit trail */
  correlation_id: string | null;
  causation_id: string | null;
  /** attempts the file store failed before this one, and since when (./deferrals.ts) */
  store_failures: number;
  store_failing_since: Date | null;
};

export const claimJob = async (db: Db, owner: string, leaseMs: number): Promise<Job | null> => {
  const { rows } = await db.query<Job>(
    `UPDATE jobs SET lease_owner = $1, lease_until = now() + make_interval(secs => $2::float8 / 1000),
       attempts = attempts + 1
     WHERE version_id = (
       SELECT j.version_id FROM jobs j JOIN versions v USING (version_id)
       WHERE (j.lease_until IS NULL OR j.lease_until < now())
         AND NOT EXISTS (
           SELECT 1 FROM jobs e JOIN versions ev USING (version_id)
           WHERE e.flipbook_id = j.flipbook_id AND ev.number < v.number)
       ORDER BY j.enqueued_at LIMIT 1 FOR UPDATE OF j SKIP LOCKED)
     RETURNING version_id, flipbook_id, workspace_id, checksum, attempts, correlation_id,
       causation_id, store_failures, store_failing_since,
       (SELECT v.file_type FROM versions v WHERE v.version_id = jobs.version_id) AS file_type,
       (SELECT v.pdf_checksum FROM versions v WHERE v.version_id = jobs.version_id) AS pdf_checksum`,
    [owner, leaseMs],
  );
  return rows[0] ?? null;
};

/** Extends our lease; false when the job is gone (finished, deleted) or was taken over. */
export const renewLease = (db: Db, job: Job, owner: string, leaseMs: number) =>
  renewVersionLease(db, 'jobs', job.version_id, owner, leaseMs);

/** Gives a job back at once (graceful shutdown), without counting the attempt. */
export const releaseJob = (db: Db, job: Job, owner: string) =>
  db.query(
    `UPDATE jobs SET lease_until = NULL, lease_owner = NULL, attempts = greatest(attempts - 1, 0)
     WHERE version_id = $1 AND lease_owner = $2`,
    [job.version_id, owner],
  );

/**
 * Hands a job back to be tried again after `delayMs`, without counting the attempt: the disk was
 * full, which says nothing about the document.
 */
export const deferJob = (db: Db, job: Job, owner: string, delayMs: number) =>
  db.query(
    `UPDATE jobs SET lease_owner = NULL,
       lease_until = now() + make_interval(secs => $3::float8 / 1000),
       attempts = greatest(attempts - 1, 0)
     WHERE version_id = $1 AND lease_owner = $2`,
    [job.version_id, owner, delayMs],
  );

/**
 * Hands a job back after the file store failed it: tried again after `delayMs`, and counted as
 * a store failure (./deferrals.ts), not among the attempts a killed process leaves.
 */
export const deferJobForStore = (db: Db, job: Job, owner: string, delayMs: number) =>
  db.query(
    `UPDATE jobs SET lease_owner = NULL,
       lease_until = now() + make_interval(secs => $3::float8 / 1000),
       attempts = greatest(attempts - 1, 0),
       store_failures = store_failures + 1,
       store_failing_since = coalesce(store_failing_since, now())
     WHERE version_id = $1 AND lease_owner = $2`,
    [job.version_id, owner, delayMs],
  );
