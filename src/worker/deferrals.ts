// Which failures put a job off instead of failing its version, and how each counts: the one
// place that tells them apart (processVersion.ts asks, workerPool.ts applies what it says).
// - the local disk (full, read-only, a folder gone): says nothing about the document nor about
//   how long it will last; tried again after FLIPBOOK_RETRY_MS, not counted as an attempt;
// - the file store (a bucket that fails or stops answering, past its own retries): counted as an
//   attempt of its own, tried again with a growing pause, and after STORE_ATTEMPTS the version
//   fails in words, so an upload never waits for a store that is gone for good.
// Pages stored before the failure stay, and the next attempt resumes after them (renderPdf's
// `rendered`).
import { BlobStoreUnavailable } from '../domain/errors.ts';
import { storageProblem } from '../pdf/renderFailure.ts';

export type Deferral = { cause: 'disk' | 'store'; reason: string };

/** The deferral this failure calls for, or null when it is not one (a document's, a bug). */
export const deferralOf = (error: unknown): Deferral | null => {
  const storage = storageProblem(error);
  if (!storage) return null;
  return {
    cause: error instanceof BlobStoreUnavailable ? 'store' : 'disk',
    reason: storage.message,
  };
};

/** A version whose file store failed this many attempts fails (docs/deploy.md). */
export const STORE_ATTEMPTS = 10;
/** The pause after a store failure doubles from the base (FLIPBOOK_STORE_RETRY_MS) up to this. */
export const STORE_RETRY_MAX_MS = 5 * 60_000;
export const DEFAULT_STORE_RETRY_MS = 10_000;

/**
 * The pause before the attempt after the `failures`-th store failure: the base doubling, at most
 * 5 minutes, less up to a fifth at random so that the versions one outage put off do not all
 * come back at once. With the defaults ten attempts span about 25 minutes.
 */
export const storeRetryDelayMs = (failures: number, baseMs: number, random = Math.random()) => {
  const full = Math.min(STORE_RETRY_MAX_MS, baseMs * 2 ** Math.max(0, failures - 1));
  return Math.round(full * (1 - 0.2 * random));
};

/** Why the version fails once the store has failed it STORE_ATTEMPTS times. */
export const storeGaveUp = (attempts: number, since: Date | null, now: Date) => {
  const minutes = since ? Math.max(0, Math.round((now.getTime() - since.getTime()) / 60_000)) : 0;
  return `The file store was unavailable for ${attempts} attempts over ${minutes} minute${minutes === 1 ? '' : 's'}; upload the PDF again once it is back`;
};
