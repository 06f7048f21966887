// N lanes that claim jobs and process them, renewing each job's lease while they work. Used inside
// `flipbook serve` and by `flipbook worker` on other machines sharing the database.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Pool, PoolClient } from 'pg';
import { durationFromEnv } from '../envDuration.ts';
import type { Logger } from '../log.ts';
import { isDatabaseUnavailable } from '../store/unavailable.ts';
import { COMPARE_WAKE, startComparisons } from './comparePreviews.ts';
import { DEFAULT_STORE_RETRY_MS, storeRetryDelayMs } from './deferrals.ts';
import { laterRenditions, startFills } from './fillRenditions.ts';
import {
  claimJob,
  deferJob,
  deferJobForStore,
  type Job,
  releaseJob,
  renewLease,
} from './jobQueue.ts';
import { leaseOwner, releaseGoneLeases, workerName } from './leaseOwner.ts';
import { pause } from './pause.ts';
import type { ProcessDeps } from './processDeps.ts';
import { processVersion } from './processVersion.ts';

export type WorkerOptions = {
  lanes: number;
  leaseMs: number;
  pollMs: number;
  /** how long a job whose disk was full waits before it is tried again */
  retryMs: number;
  /** the first pause after the file store failed a job, doubling after each (./deferrals.ts) */
  storeRetryMs: number;
};

export const DEFAULT_WORKER_OPTIONS: Omit<WorkerOptions, 'lanes'> = {
  leaseMs: 60_000,
  pollMs: 2_000,
  retryMs: 60_000,
  storeRetryMs: DEFAULT_STORE_RETRY_MS,
};

/**
 * The job a piece of code runs for, whatever it awaited on the way: the last-resort handlers
 * (lastResort.ts) use it to stop the job an unexpected error came from, never the process.
 */
const currentJob = new AsyncLocalStorage<{ versionId: string; stop: (reason: unknown) => void }>();

/** Stops the job whose code raised `error`, if any; returns its version id. */
export const stopJobOf = (error: unknown): string | null => {
  const job = currentJob.getStore();
  job?.stop(error);
  return job?.versionId ?? null;
};

/**
 * Options for `lanes` lanes. FLIPBOOK_LEASE_MS shortens the lease, so tests see a killed worker's
 * job taken over in seconds instead of a minute, FLIPBOOK_RETRY_MS the wait after a full disk,
 * and FLIPBOOK_STORE_RETRY_MS the first wait after a failed file store (src/envDuration.ts).
 */
export const workerOptions = (lanes: number): WorkerOptions => {
  return {
    ...DEFAULT_WORKER_OPTIONS,
    leaseMs: durationFromEnv('FLIPBOOK_LEASE_MS', DEFAULT_WORKER_OPTIONS.leaseMs),
    retryMs: durationFromEnv('FLIPBOOK_RETRY_MS', DEFAULT_WORKER_OPTIONS.retryMs),
    storeRetryMs: durationFromEnv('FLIPBOOK_STORE_RETRY_MS', DEFAULT_WORKER_OPTIONS.storeRetryMs),
    lanes,
  };
};

export type WorkerPool = { stop: () => Promise<void> };

export const startWorkers = (deps: ProcessDeps, options: WorkerOptions): WorkerPool => {
  const owner = leaseOwner();
  const stopping = new AbortController();
  const log: Logger = deps.log;

  /** tells the fill that a version is done: its renditions can be filled in now */
  const fillWake = new EventTarget();
  // The running jobs' cancel switches, for a deletion's NOTIFY.
  const running = new Map<string, AbortController>();

  const runJob = async (job: Job) => {
    const cancel = new AbortController();
    running.set(job.version_id, cancel);
    const heartbeat = setInterval(async () => {
      const held = await renewLease(deps.store.db, job, owner, options.leaseMs).catch(() => true);
      if (!held) cancel.abort(); // deleted, or finished elsewhere: stop rendering
    }, options.leaseMs / 3);
    try {
      const signal = AbortSignal.any([cancel.signal, stopping.signal]);
      const context = {
        versionId: job.version_id,
        stop: (reason: unknown) => cancel.abort(reason),
      };
      const outcome = await currentJob.run(context, () =>
        processVersion(deps, job, signal, workerName()),
      );
      if (outcome === 'done') {
        fillWake.dispatchEvent(new Event('fill'));
        fillWake.dispatchEvent(new Event(COMPARE_WAKE));
      }
      if (outcome === 'cancelled') {
        log.info({ versionId: job.version_id }, 'processing stopped');
        if (stopping.signal.aborted) await releaseJob(deps.store.db, job, owner);
      } else if (outcome === 'deferred') {
        await deferJob(deps.store.db, job, owner, options.retryMs);
      } else if (outcome === 'store-deferred') {
        const delayMs = storeRetryDelayMs(job.store_failures + 1, options.storeRetryMs);
        await deferJobForStore(deps.store.db, job, owner, delayMs);
      }
    } finally {
      clearInterval(heartbeat);
      running.delete(job.version_id);
    }
  };

  // Idle lanes sleep until a new job's NOTIFY (sent by the jobs projection at commit) or the poll
  // interval, whichever comes first: an upload starts processing at once.
  const wake = new EventTarget();
  const listener = listenForJobs(
    deps.store.pool,
    {
      queued: () => wake.dispatchEvent(new Event('job')),
      deleted: (versionId) => running.get(versionId)?.abort(),
    },
    log,
  );

  const lane = async () => {
    while (!stopping.signal.aborted) {
      let job: Job | null = null;
      try {
        job = await claimJob(deps.store.db, owner, options.leaseMs);
        if (job) await runJob(job);
      } catch (error) {
        if (job && isDatabaseUnavailable(error)) {
          // The database stopped answering mid-job: hand the job back the moment it answers
          // again, so it is taken up at once instead of when its lease runs out.
          log.warn(
            { err: error, versionId: job.version_id },
            'processing stopped: the database is unavailable',
          );
          await handBack(job);
          continue;
        }
        // The store or the disk failed: the lease runs out and the job is tried again.
        log.error({ err: error, versionId: job?.version_id }, 'processing failed; will retry');
        await pause(options.pollMs * 4, stopping.signal);
      }
      if (!job) await pause(options.pollMs, stopping.signal, wake);
    }
  };

  /** Releases the job as soon as the database takes the write (or the pool stops). */
  const handBack = async (job: Job) => {
    while (!stopping.signal.aborted) {
      const released = await releaseJob(deps.store.db, job, owner).then(
        () => true,
        () => false,
      );
      if (released) return;
      await pause(options.pollMs, stopping.signal);
    }
  };

  const lanes = Array.from({ length: Math.max(1, options.lanes) }, lane);
  // What a process of this host killed before us held is ours to take up now, not in a minute.
  void releaseGoneLeases(deps.store.db, log).then(
    (released) => {
      if (released === 0) return;
      wake.dispatchEvent(new Event('job'));
      fillWake.dispatchEvent(new Event('fill'));
    },
    (error: unknown) => log.warn({ err: error }, 'could not look for leases of processes gone'),
  );
  // The renditions processing left out, filled in behind the lanes (fillRenditions.ts).
  const fills =
    laterRenditions(deps).length > 0
      ? startFills(
          deps,
          { leaseMs: options.leaseMs, pollMs: options.pollMs, retryMs: options.retryMs },
          fillWake,
        )
      : null;
  // Previews compared once done (comparePreviews.ts).
  const comparisons = startComparisons(
    deps,
    { pollMs: options.pollMs * 5, retryMs: options.retryMs },
    fillWake,
  );
  return {
    stop: async () => {
      stopping.abort();
      await Promise.all(lanes);
      await fills?.stop();
      await comparisons.stop();
      await (await listener).close();
    },
  };
};

/**
 * LISTEN on a connection of its own for queued jobs and deleted versions. A connection lost (the
 * database restarted, stopped answering) is replaced, with a growing pause between tries; while
 * there is none, polling still finds every job and lease renewal still notices every deletion,
 * only later.
 */
const listenForJobs = async (
  pool: Pool,
  on: { queued: () => void; deleted: (versionId: string) => void },
  log: Logger,
) => {
  let closed = false;
  let current: PoolClient | null = null;
  let retry: NodeJS.Timeout | null = null;
  let pauseMs = RELISTEN_MIN_MS;
  const listen = async () => {
    retry = null;
    if (closed) return;
    let client: PoolClient | null = null;
    try {
      client = await pool.connect();
      const lost = (error?: Error) => {
        if (current !== client) return;
        current = null;
        client?.release(error ?? true);
        if (!closed) {
          log.warn({ err: error }, 'lost the connection that listens for jobs; listening again');
          retry = setTimeout(listen, pauseMs);
          pauseMs = Math.min(RELISTEN_MAX_MS, pauseMs * 2);
        }
      };
      client.on('notification', ({ channel, payload }) => {
        if (channel === 'flipbook_jobs') on.queued();
        else if (channel === 'flipbook_jobs_deleted' && payload) on.deleted(payload);
      });
      client.on('error', lost);
      client.on('end', () => lost());
      await client.query('LISTEN flipbook_jobs');
      await client.query('LISTEN flipbook_jobs_deleted');
      if (closed) return client.release(true);
      current = client;
      pauseMs = RELISTEN_MIN_MS;
      // Jobs queued while nobody listened are found by the next poll; wake the lanes now.
      on.queued();
    } catch (error) {
      client?.release(error as Error);
      if (closed) return;
      log.warn({ err: error }, 'cannot LISTEN for jobs; polling until it can');
      retry = setTimeout(listen, pauseMs);
      pauseMs = Math.min(RELISTEN_MAX_MS, pauseMs * 2);
    }
  };
  await listen();
  return {
    close: async () => {
      closed = true;
      if (retry) clearTimeout(retry);
      const client = current;
      current = null;
      client?.release(true);
    },
  };
};

const RELISTEN_MIN_MS = 1000;
const RELISTEN_MAX_MS = 30_000;
