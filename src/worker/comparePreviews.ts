// Previews compared once they are done (src/app/comparison.ts), by every daemon and `flipbook
// worker`, one comparison at a time each. The work to do is in the read tables already (a preview
// whose version is done and has no comparison), so nothing is queued: a process killed in the
// middle of one leaves it uncompared, and the next look (its own after a restart, or another
// process's) computes it. A comparison is one process's at a time (a session advisory lock that
// a killed process's connection frees); computed twice by accident, it is recorded once (the
// decider ignores a second).
import { runFlipbookCommand } from '../app/commands.ts';
import { comparePreview, nothingToCompare } from '../app/comparison.ts';
import type { EventMetadata } from '../app/eventContext.ts';
import { type Comparison, comparisonCounts } from '../domain/pageAlignment.ts';
import { type Uncompared, uncomparedPreviews } from '../readTables/previews.ts';
import { isDatabaseUnavailable } from '../store/unavailable.ts';
import { workerName } from './leaseOwner.ts';
import { pause } from './pause.ts';
import type { ProcessDeps } from './processDeps.ts';

export type CompareOptions = { pollMs: number; retryMs: number };

/** The event `wake` is sent when a version is done: a preview's comparison may be due. */
export const COMPARE_WAKE = 'compare';

const why = (row: Uncompared) =>
  row.against_version_id === null
    ? 'No version of this flipbook was live to compare with'
    : `The live version is ${row.against_status ?? 'gone'}: there is nothing to compare with`;

export const startComparisons = (deps: ProcessDeps, options: CompareOptions, wake: EventTarget) => {
  const metadata: EventMetadata = { actor: { type: 'worker', id: workerName() } };
  const stopping = new AbortController();
  const { store, blobs, log } = deps;
  /** versions whose comparison failed here, and when to try again */
  const retryAt = new Map<string, number>();

  const compareOne = async (row: Uncompared) => {
    const started = performance.now();
    let comparison: Comparison;
    if (row.against_version_id !== null && row.against_status === 'done') {
      comparison = await comparePreview(
        { db: store.db, blobs },
        row.version_id,
        row.against_version_id,
        stopping.signal,
      );
    } else {
      comparison = nothingToCompare(row.page_count, why(row));
      await blobs.writeComparison(row.version_id, JSON.stringify(comparison));
    }
    await runFlipbookCommand(
      store,
      row.flipbook_id,
      {
        type: 'RecordComparison',
        data: {
          name: row.name,
          versionId: row.version_id,
          ...comparisonCounts(comparison),
          now: new Date(),
        },
      },
      metadata,
    );
    log.info(
      {
        versionId: row.version_id,
        changed: comparison.changed.length,
        inserted: comparison.inserted.length,
        removed: comparison.removed.length,
        ms: Math.round(performance.now() - started),
      },
      'preview compared',
    );
  };

  const loop = async () => {
    while (!stopping.signal.aborted) {
      let did = false;
      try {
        const now = performance.now();
        const due = (await uncomparedPreviews(store.db, 20)).filter(
          (row) => (retryAt.get(row.version_id) ?? 0) <= now,
        );
        for (const row of due) {
          if (stopping.signal.aborted) break;
          try {
            const done = await store.locks.unlessHeld(`compare:${row.version_id}`, async () => {
              await compareOne(row);
              return true;
            });
            did ||= done === true;
            retryAt.delete(row.version_id);
          } catch (error) {
            if (stopping.signal.aborted) break;
            // The store or the database failing says nothing about the preview: later again.
            log.warn({ err: error, versionId: row.version_id }, 'comparison failed; will retry');
            retryAt.set(row.version_id, performance.now() + options.retryMs);
          }
        }
      } catch (error) {
        if (!isDatabaseUnavailable(error)) log.error({ err: error }, 'comparison loop failed');
      }
      if (!did) await pause(options.pollMs, stopping.signal, wake, COMPARE_WAKE);
    }
  };
  const running = loop();
  return {
    stop: async () => {
      stopping.abort();
      await running;
    },
  };
};
