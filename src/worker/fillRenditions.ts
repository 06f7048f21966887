// The background fill: after a version is done, the renditions processing left out (the 2000 px
// max.jpg) are rendered for every page nobody has asked for yet, at the render slots' lowest
// priority, so any upload's pages and any reader's request go first (src/app/laterRenditions.ts).
// As many fills at once per process as it has render slots: a one-page book's fill keeps one
// process busy, and fills one after another left the other cores idle behind a burst of small
// uploads (bench:drain); the slots still decide who renders. The queue is the `rendition_fills` table, leased like jobs, so
// a fill cut off by a crash or a stop is taken up again; a fill never fails a version (a page
// that cannot be rendered is rendered, or told busy, when asked for).
import { renderWhatCan } from '../app/laterRenditions.ts';
import { NotFound } from '../domain/errors.ts';
import { RenderFailure } from '../pdf/renderFailure.ts';
import { RENDITIONS } from '../pdf/renditions.ts';
import { versionStatusById } from '../readTables/versions.ts';
import {
  claimFill,
  dropOrphanFills,
  endFill,
  type Fill,
  releaseFill,
  renditionSource,
  renewFill,
} from '../state/renditionFills.ts';
import { isDatabaseUnavailable } from '../store/unavailable.ts';
import { leaseOwner } from './leaseOwner.ts';
import { pause } from './pause.ts';
import type { ProcessDeps } from './processDeps.ts';

export type FillOptions = { leaseMs: number; pollMs: number; retryMs: number };

/** The renditions a version's fill renders: those processing leaves out. */
export const laterRenditions = (deps: ProcessDeps) =>
  RENDITIONS.filter((r) => !deps.render.renditions.includes(r));

export const startFills = (deps: ProcessDeps, options: FillOptions, wake: EventTarget) => {
  const owner = leaseOwner();
  const stopping = new AbortController();
  const { store, log } = deps;

  const fillOne = async (fill: Fill) => {
    const cancel = new AbortController();
    const signal = AbortSignal.any([cancel.signal, stopping.signal]);
    const heartbeat = setInterval(async () => {
      const held = await renewFill(store.db, fill.version_id, owner, options.leaseMs).catch(
        () => true,
      );
      const source = await renditionSource(store.db, fill.version_id).catch(() => true);
      if (!held || source === null) cancel.abort(); // taken over, or the version is gone
    }, options.leaseMs / 3);
    const started = performance.now();
    let rendered = 0;
    try {
      const source = await renditionSource(store.db, fill.version_id);
      if (source?.status !== 'done') return void (await endFill(store.db, fill.version_id));
      for (const rendition of laterRenditions(deps)) {
        const missing: number[] = [];
        for (let position = 1; position <= source.page_count; position++) {
          signal.throwIfAborted();
          const file = await deps.blobs.openPageFile(fill.version_id, position, `${rendition}.jpg`);
          if (file) await file.close();
          else missing.push(position);
        }
        // A page poppler cannot render this large is skipped (its requests get the smaller
        // image); the rest are filled in.
        const skipped = await renderWhatCan(
          { db: store.db, blobs: deps.blobs, render: deps.render },
          { versionId: fill.version_id, checksum: fill.checksum },
          missing,
          rendition,
          'fill',
          signal,
          () => rendered++,
        );
        if (skipped.length > 0) {
          log.info(
            { versionId: fill.version_id, rendition, pages: skipped },
            'pages left out of the fill: too heavy to render this large',
          );
        }
      }
      await endFill(store.db, fill.version_id);
      log.info(
        {
          versionId: fill.version_id,
          pages: rendered,
          ms: Math.round(performance.now() - started),
        },
        'renditions filled in',
      );
    } catch (error) {
      if (stopping.signal.aborted) {
        await releaseFill(store.db, fill.version_id, owner).catch(() => {});
      } else if (
        cancel.signal.aborted ||
        error instanceof RenderFailure ||
        error instanceof NotFound ||
        (await versionStatusById(store.db, fill.version_id).catch(() => '')) === null
      ) {
        // Gone, taken over, or a page poppler cannot render at this size: nothing to come back for.
        log.info({ versionId: fill.version_id, reason: String(error) }, 'fill ended early');
        await endFill(store.db, fill.version_id).catch(() => {});
      } else {
        log.warn({ err: error, versionId: fill.version_id }, 'fill failed; will retry');
        await releaseFill(store.db, fill.version_id, owner, options.retryMs).catch(() => {});
      }
    } finally {
      clearInterval(heartbeat);
    }
  };

  let sweptAt = 0;
  const loop = async () => {
    while (!stopping.signal.aborted) {
      let fill: Fill | null = null;
      try {
        if (performance.now() - sweptAt > 3_600_000) {
          sweptAt = performance.now(); // before the await: one loop sweeps
          await dropOrphanFills(store.db);
        }
        fill = await claimFill(store.db, owner, options.leaseMs);
        if (fill) await fillOne(fill);
      } catch (error) {
        if (!isDatabaseUnavailable(error)) log.error({ err: error }, 'fill loop failed');
      }
      if (!fill) await pause(options.pollMs, stopping.signal, wake, 'fill');
    }
  };
  const running = Array.from({ length: deps.render.slots.capacity }, loop);
  return {
    stop: async () => {
      stopping.abort();
      await Promise.all(running);
    },
  };
};
