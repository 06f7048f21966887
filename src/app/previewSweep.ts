// Old previews swept (`serve --preview-ttl`, default 30 days): a pull request closed without the
// action's cleanup (a deleted workflow, a fork, a pipeline that never ran on close) leaves its
// preview behind, a version counted against the plan and files in the store. Each daemon looks
// every hour; one at a time across daemons (an advisory lock), each preview deleted as its owner
// would (PreviewDeleted, `expired: true`, by the system), then its files.

import type { BlobStore } from '../blobs/blobStore.ts';
import { NotFound } from '../domain/errors.ts';
import type { Logger } from '../log.ts';
import { stalePreviews } from '../readTables/previews.ts';
import type { Store } from '../store/store.ts';
import type { Clock } from './clock.ts';
import { SYSTEM } from './eventContext.ts';
import { lookEvery } from './periodicLook.ts';
import { removePreview } from './previews.ts';

export const DEFAULT_PREVIEW_TTL_MS = 30 * 86_400_000;
const EVERY_MS = 3_600_000;
/** Previews deleted per look: a backlog goes over a few looks, never one long hold. */
const BATCH = 200;

export type SweepDeps = { store: Store; blobs: BlobStore; clock: Clock; log: Logger };

/** Deletes the previews last pushed to more than `ttlMs` ago; returns how many went. */
export const sweepPreviews = async (deps: SweepDeps, ttlMs: number): Promise<number> => {
  const before = new Date(deps.clock.now().getTime() - ttlMs);
  let swept = 0;
  for (const row of await stalePreviews(deps.store.db, before, BATCH)) {
    try {
      await removePreview(deps, row, SYSTEM, true);
      swept++;
    } catch (error) {
      // deleted or promoted meanwhile (by its owner, by another daemon): nothing to do
      if (!(error instanceof NotFound)) throw error;
    }
  }
  if (swept > 0) deps.log.info({ swept, ttlMs }, 'old previews deleted');
  return swept;
};

/** Looks at start and every hour; 0 turns it off. */
export const startPreviewSweep = (deps: SweepDeps, ttlMs: number) => {
  if (ttlMs <= 0) return { stop: async () => {} };
  return lookEvery(
    EVERY_MS,
    () => deps.store.locks.unlessHeld('preview-sweep', () => sweepPreviews(deps, ttlMs)),
    (error) => deps.log.warn({ err: error }, 'preview sweep failed; next hour again'),
    { atStart: true },
  );
};
