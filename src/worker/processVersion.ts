// Takes one claimed job from uploaded PDF to `done` or `error`, recording each step as an event.
// Never throws for a bad document: that outcome is an event. It throws only when the store or the
// disk fails, and then the job's lease runs out and another attempt follows.
import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runFlipbookCommand } from '../app/commands.ts';
import type { BlobStore } from '../blobs/blobStore.ts';
import type { Logger } from '../log.ts';
import { RenderFailure, type RenderOptions, renderPdf } from '../pdf/renderPdf.ts';
import type { Store } from '../store/store.ts';
import type { Job } from './jobQueue.ts';

export const MAX_ATTEMPTS = 3;

export type ProcessDeps = { store: Store; blobs: BlobStore; log: Logger; render: RenderOptions };

export type Outcome = 'done' | 'error' | 'cancelled';

export const processVersion = async (
  deps: ProcessDeps,
  job: Job,
  signal: AbortSignal,
): Promise<Outcome> => {
  const { store, blobs, log } = deps;
  const versionId = job.version_id;
  const fail = async (reason: string) => {
    await runFlipbookCommand(store, job.flipbook_id, {
      type: 'FailProcessing',
      data: { versionId, reason, now: new Date() },
    });
    return 'error' as const;
  };

  if (job.attempts > MAX_ATTEMPTS) {
    // The earlier attempts died without an outcome (the process was killed mid-render).
    return fail(
      `Processing was interrupted ${MAX_ATTEMPTS} times; the PDF may be too heavy to render`,
    );
  }

  const staging = blobs.stagingDir(versionId);
  const started = performance.now();
  try {
    const result = await renderPdf(blobs.originalPath(job.checksum), staging, {
      ...deps.render,
      signal,
      onStart: async (geometry) => {
        await runFlipbookCommand(store, job.flipbook_id, {
          type: 'StartProcessing',
          data: { versionId, attempt: job.attempts, pageCount: geometry.length, now: new Date() },
        });
      },
    });
    await Promise.all(
      result.pages.map((page) =>
        writeFile(join(staging, String(page.position), 'text.txt'), page.text),
      ),
    );
    await blobs.commitPages(versionId, staging);
    const first = result.pages[0];
    const { events } = await runFlipbookCommand(store, job.flipbook_id, {
      type: 'CompleteProcessing',
      data: {
        versionId,
        width: first?.width ?? 0,
        height: first?.height ?? 0,
        pages: result.pages.map((p) => ({
          pageId: randomUUID(),
          position: p.position,
          width: p.width,
          height: p.height,
        })),
        now: new Date(),
      },
    });
    if (events.length === 0) {
      // Deleted while we rendered: nothing to show, so nothing to keep.
      await blobs.removePages(versionId);
      return 'cancelled';
    }
    log.info(
      {
        versionId,
        pages: result.pages.length,
        ms: Math.round(performance.now() - started),
        timings: result.timings,
      },
      'version processed',
    );
    return 'done';
  } catch (error) {
    if (signal.aborted) return 'cancelled';
    if (error instanceof RenderFailure) {
      log.info({ versionId, reason: error.message }, 'version failed');
      return fail(error.message);
    }
    throw error;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
};
