// Takes one claimed job from upload to `done` or `error`, recording each step as an event: an
// upload that is not a PDF is made into one first, then its pages are rendered. Pages become
// available as they finish: the version renders straight into its final directory and ready pages
// are recorded in batches (VersionPagesRendered), so a reader can show the start of a long
// document while the rest renders. Each page's text and words are stored beside its images.
// Never throws for a bad document: that outcome is an event. A full disk is 'deferred', a failed
// file store 'store-deferred' (./deferrals.ts says which is which and how each counts): the
// attempt's unpublished files go, its published pages stay, and the next attempt resumes after
// them. It throws only when the database fails, and then the job is handed back.
// One file (over 300 lines): one job's steps, from claim to its last event, in the order they run;
// the deferrals and fills it hands on are files of their own.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runFlipbookCommand } from '../app/commands.ts';
import type { EventMetadata } from '../app/eventContext.ts';
import {
  type BlobStore,
  OriginalMissing,
  type PageFile,
  type RenderTarget,
} from '../blobs/blobStore.ts';
import type { PageSize } from '../domain/flipbook/flipbook.ts';
import { renderSecondsPerPage } from '../metrics.ts';
import { type DocumentStructure, readDocumentStructure } from '../pdf/documentStructure.ts';
import { isImageType } from '../pdf/documentTypes.ts';
import { ConversionFailed } from '../pdf/officePdf.ts';
import type { PageWord } from '../pdf/pageWord.ts';
import { TooManyPages } from '../pdf/renderFailure.ts';
import { RenderFailure, renderPdf } from '../pdf/renderPdf.ts';
import { listPages } from '../readTables/pages.ts';
import { versionStatusById } from '../readTables/versions.ts';
import { endFill, queueFill } from '../state/renditionFills.ts';
import { isDatabaseUnavailable } from '../store/unavailable.ts';
import { convertVersion } from './convertVersion.ts';
import { deferralOf, STORE_ATTEMPTS, storeGaveUp } from './deferrals.ts';
import { laterRenditions } from './fillRenditions.ts';
import type { Job } from './jobQueue.ts';
import type { ProcessDeps } from './processDeps.ts';
import { writeTextFiles } from './textFiles.ts';
import { inPlanWords, withinPlan } from './withinPlan.ts';

export const MAX_ATTEMPTS = 3;
/** Ready pages are recorded at most this often (and at the end), not one event per page. */
const PROGRESS_EVERY_MS = 1000;

export type Outcome = 'done' | 'error' | 'cancelled' | 'deferred' | 'store-deferred';

export const processVersion = async (
  deps: ProcessDeps,
  job: Job,
  signal: AbortSignal,
  /** who is processing, for the events' actor: host:pid */
  workerId: string,
): Promise<Outcome> => {
  const { store, blobs, log } = deps;
  const versionId = job.version_id;
  // Processing events carry the upload's story on: its request (correlation) and its event
  // (causation), so `flipbook audit log` can follow a version from upload to pages.
  const metadata: EventMetadata = {
    actor: { type: 'worker', id: workerId },
    ...(job.correlation_id ? { correlation_id: job.correlation_id } : {}),
    ...(job.causation_id ? { causation_id: job.causation_id } : {}),
  };
  // Time spent appending events (start, progress batches, outcome), for the benchmark's breakdown.
  let storeMs = 0;
  const command = async (c: Parameters<typeof runFlipbookCommand>[2]) => {
    const started = performance.now();
    try {
      return await runFlipbookCommand(store, job.flipbook_id, c, metadata);
    } finally {
      storeMs += performance.now() - started;
    }
  };

  if (job.attempts > MAX_ATTEMPTS) {
    // The earlier attempts died without an outcome (the process was killed mid-render).
    await blobs.removePages(versionId);
    await command({
      type: 'FailProcessing',
      data: {
        versionId,
        reason: `Processing was interrupted ${MAX_ATTEMPTS} times; the PDF may be too heavy to render`,
        now: deps.clock.now(),
      },
    });
    return 'error';
  }

  // Page ids are chosen once per attempt, so progress batches and the final event agree.
  const pageIds = new Map<number, string>();
  const idOf = (position: number) => {
    const id = pageIds.get(position) ?? randomUUID();
    pageIds.set(position, id);
    return id;
  };
  const progress = progressRecorder((pages) =>
    command({ type: 'RecordRenderedPages', data: { versionId, pages, now: deps.clock.now() } }),
  );

  /**
   * A failure that puts the job off (./deferrals.ts): the store's counts, and its last allowed
   * one fails the version in words; null when the failure is not one.
   */
  const putOff = async (error: unknown): Promise<Outcome | null> => {
    const deferral = deferralOf(error);
    if (!deferral) return null;
    if (deferral.cause === 'disk') {
      log.warn({ versionId, reason: deferral.reason }, 'processing deferred: storage failed');
      return 'deferred';
    }
    const failures = job.store_failures + 1;
    if (failures < STORE_ATTEMPTS) {
      log.warn(
        { versionId, reason: deferral.reason, storeFailures: failures },
        'processing deferred: the file store failed',
      );
      return 'store-deferred';
    }
    const reason = storeGaveUp(failures, job.store_failing_since, deps.clock.now());
    log.error({ versionId, cause: deferral.reason }, reason);
    await blobs.removePages(versionId).catch(() => {}); // the sweep's if the store is still away
    await command({ type: 'FailProcessing', data: { versionId, reason, now: deps.clock.now() } });
    return 'error';
  };

  const started = performance.now();
  // The PDF as a local file (a bucket's is fetched first), and where this attempt renders. An
  // upload that is not a PDF is made into one first (./convertVersion.ts), once: an attempt
  // after a crash finds it recorded.
  let original: Awaited<ReturnType<BlobStore['localOriginal']>>;
  let target: RenderTarget;
  let pdf = job.checksum;
  // An image book's renditions, made while its PDF is made (./convertVersion.ts); gone at the end.
  let prerendered: string | undefined;
  const dropPrerendered = () =>
    prerendered ? rm(prerendered, { recursive: true, force: true }).catch(() => {}) : undefined;
  try {
    if ((job.file_type ?? 'pdf') !== 'pdf') {
      if (job.pdf_checksum) pdf = job.pdf_checksum;
      else {
        if (isImageType(job.file_type)) {
          prerendered = await mkdtemp(join(tmpdir(), `flipbook-convert-${process.pid}-pages-`));
        }
        pdf = await convertVersion(deps, job, signal, command, prerendered);
      }
    }
    original = await blobs.localOriginal(pdf);
    target = await blobs.renderTarget(versionId, job.attempts);
  } catch (error) {
    await dropPrerendered();
    if (signal.aborted) return 'cancelled';
    if (error instanceof ConversionFailed) {
      log.info({ versionId, reason: error.message }, 'version failed: not converted');
      await command({
        type: 'FailProcessing',
        data: { versionId, reason: error.message, now: deps.clock.now() },
      });
      return 'error';
    }
    if (error instanceof OriginalMissing) {
      log.warn({ versionId, checksum: pdf }, 'version failed: its original is missing');
      await command({
        type: 'FailProcessing',
        data: { versionId, reason: error.message, now: deps.clock.now() },
      });
      return 'error';
    }
    // The database away is no storage failure (no 60 s deferral): the lane hands the job back.
    if (isDatabaseUnavailable(error)) throw error;
    const deferred = await putOff(error);
    if (!deferred) throw error;
    return deferred;
  }
  // Pages go out (to a bucket) while the next ones render; each is recorded once it is out.
  const publishing = new Set<Promise<void>>();
  let publishFailure: unknown = null;
  const stopRender = new AbortController();
  const publish = (page: { position: number; width: number; height: number }) => {
    const out = target.publishPage(page.position).then(
      () =>
        progress.add({
          pageId: idOf(page.position),
          position: page.position,
          width: page.width,
          height: page.height,
        }),
      (error: unknown) => {
        publishFailure ??= error;
        stopRender.abort(); // the store failed: rendering on would only be thrown away
      },
    );
    publishing.add(out);
    void out.finally(() => publishing.delete(out));
  };
  const published = async () => {
    await Promise.all(publishing);
    if (publishFailure) throw publishFailure;
  };
  // The document's structure for the reader (title, direction, contents, page labels, links) is
  // read while the pages render, from when their text is known: run after rendering, its one
  // pdftotext -bbox pass held a core alone (0.7 s of the why3 manual's 6.5 s). Extraction never
  // fails the version: what cannot be read is empty. It is stopped and awaited on every path.
  const stopStructure = new AbortController();
  let structure: Promise<DocumentStructure> | null = null;
  let structureMs = 0;
  const readStructure = (pageCount: number, pageTexts: string[], pageWords: PageWord[][]) => {
    const structureStarted = performance.now();
    // Its processes take a render slot like the pages' (the machine's cores are shared).
    const stopped = AbortSignal.any([signal, stopStructure.signal]);
    structure = deps.render.slots
      .job()
      .acquire('normal', stopped)
      .then(async (slot) => {
        try {
          return await readDocumentStructure(original.path, {
            limits: deps.render.limits,
            signal: stopped,
            pageCount,
            pageTexts,
            pageWords,
          });
        } finally {
          slot.release();
        }
      })
      .finally(() => {
        structureMs = performance.now() - structureStarted;
      });
    return structure;
  };
  let pageCount = 0;
  try {
    // Pages an earlier attempt stored and recorded (a render the store cut short): kept as they
    // are, with their ids, and not rendered again. A recorded page whose files are gone (an
    // operator removed the version's folder mid-render) is rendered again: adopted, the final
    // check would find it missing on every attempt.
    const earlier = [];
    for (const page of await listPages(store.db, versionId)) {
      if (await pageFilesThere(deps.blobs, versionId, page.position, deps.render.renditions)) {
        earlier.push(page);
      }
    }
    for (const page of earlier) {
      pageIds.set(page.position, page.page_id);
      target.adopt(
        page.position,
        deps.render.renditions.map((rendition) => `${rendition}.jpg` as const),
      );
    }
    const result = await renderPdf(original.path, target.dir, {
      ...deps.render,
      // An image book's pages are its images, made smaller (src/pdf/imageRange.ts).
      imagePages: isImageType(job.file_type ?? 'pdf'),
      ...(prerendered ? { prerendered } : {}),
      signal: AbortSignal.any([signal, stopRender.signal]),
      onText: (texts, words) => void readStructure(pageCount, texts, words).catch(() => {}),
      onStart: async (geometry) => {
        pageCount = geometry.length;
        // A converted upload's pages are known only now: the plan's limit, as at upload for a
        // PDF (a 300-slide deck on a 200-page plan fails in the same words).
        if (pdf !== job.checksum) await withinPlan(store.db, job.workspace_id, geometry.length);
        await target.activate();
        await command({
          type: 'StartProcessing',
          data: {
            versionId,
            attempt: job.attempts,
            pageCount: geometry.length,
            now: deps.clock.now(),
          },
        });
      },
      onPage: publish,
      rendered: new Set(earlier.map((page) => page.position)),
    });
    await published();
    await progress.finish();
    const lines = await writeTextFiles(target, result.pages);
    // Beside the page folders. (Read here if the text never came: an extraction that failed.)
    const read = await (structure ??
      readStructure(
        result.pages.length,
        result.pages.map((page) => page.text),
        result.pages.map((page) => page.words),
      ));
    signal.throwIfAborted(); // an extraction cut short is not this version's structure
    // (with how many lines lines.json holds: the reader fetches it only when there are some)
    await target.writeFile('document.json', JSON.stringify({ ...read, lines }));
    await target.verify();
    // The renditions left out are filled in after `done` (fillRenditions.ts): queued first, so
    // a crash between the two leaves a fill for nothing rather than a version without one.
    const later = laterRenditions(deps);
    if (later.length > 0) await queueFill(store.db, versionId, pdf);
    const first = result.pages[0];
    const { events } = await command({
      type: 'CompleteProcessing',
      data: {
        versionId,
        width: first?.width ?? 0,
        height: first?.height ?? 0,
        pages: result.pages.map((p) => ({
          pageId: idOf(p.position),
          position: p.position,
          width: p.width,
          height: p.height,
        })),
        now: deps.clock.now(),
      },
    });
    if (events.length === 0) {
      // Deleted while we rendered: nothing to show, so nothing to keep.
      if (later.length > 0) await endFill(store.db, versionId);
      await target.abandon();
      await blobs.removePages(versionId);
      return 'cancelled';
    }
    await target.finish();
    if (result.pages.length > 0) {
      renderSecondsPerPage.observe((performance.now() - started) / 1000 / result.pages.length);
    }
    log.info(
      {
        versionId,
        pages: result.pages.length,
        ms: Math.round(performance.now() - started),
        timings: { ...result.timings, storeMs, structureMs },
      },
      'version processed',
    );
    return 'done';
  } catch (thrown) {
    stopStructure.abort();
    await (structure as Promise<unknown> | null)?.catch(() => {});
    await Promise.all(publishing);
    // A page that could not be stored stopped the render: that, not the stop, is what happened.
    const error = publishFailure ?? thrown;
    // Pages published and not yet recorded are recorded now (the database may be fine when the
    // store is not): the next attempt resumes after them.
    if (!signal.aborted && deferralOf(error)?.cause === 'store')
      await progress.flush().catch(() => {});
    await progress.finish().catch(() => {});
    if (signal.aborted) {
      // Lost the lease or stopping: only this attempt's files go; another may be under way.
      // A deleted version's directory goes whole (a page finishing after the deletion made it
      // again).
      await target.abandon();
      if ((await versionStatusById(store.db, versionId).catch(() => '')) === null) {
        await blobs.removePages(versionId);
      }
      return 'cancelled';
    }
    // The database away is no storage failure (no 60 s deferral): the lane hands the job back.
    if (isDatabaseUnavailable(error)) throw error;
    if (deferralOf(error)) {
      await target.abandon().catch(() => {});
      // Its files vanished because the version was deleted (and we were not told in time):
      // nothing to try again.
      if ((await versionStatusById(store.db, versionId).catch(() => '')) === null) {
        await blobs.removePages(versionId);
        return 'cancelled';
      }
      return (await putOff(error)) as Outcome;
    }
    if (error instanceof RenderFailure) {
      if (error instanceof TooManyPages) await inPlanWords(store.db, job.workspace_id, error);
      log.info({ versionId, reason: error.message }, 'version failed');
      await target.abandon().catch(() => {});
      await blobs.removePages(versionId); // partial output goes
      await command({
        type: 'FailProcessing',
        data: { versionId, reason: error.message, now: deps.clock.now() },
      });
      return 'error';
    }
    throw error;
  } finally {
    await target.release().catch(() => {});
    await original.release().catch(() => {});
    await dropPrerendered();
  }
};

/** Collects ready pages and records them at most once per PROGRESS_EVERY_MS, one write at a time. */
const progressRecorder = (record: (pages: PageSize[]) => Promise<unknown>) => {
  let pending: PageSize[] = [];
  let chain: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    timer = null;
    const batch = pending;
    pending = [];
    if (batch.length > 0) {
      chain = chain.then(() => record(batch));
      // A timer's flush has no one awaiting it until finish(): mark the failure handled here,
      // finish() still sees it.
      chain.catch(() => {});
    }
    return chain;
  };
  return {
    add: (page: PageSize) => {
      pending.push(page);
      timer ??= setTimeout(flush, PROGRESS_EVERY_MS);
    },
    /** records the pages pending now, and waits for every batch */
    flush: async () => {
      if (timer) clearTimeout(timer);
      await flush();
    },
    /** waits for recorded batches; pages still pending are left to the final event */
    finish: async () => {
      if (timer) clearTimeout(timer);
      timer = null;
      pending = [];
      await chain;
    },
  };
};

/** Whether every rendition of a recorded page is in the store. */
const pageFilesThere = async (
  blobs: BlobStore,
  versionId: string,
  position: number,
  renditions: readonly string[],
) => {
  for (const rendition of renditions) {
    const file = await blobs.openPageFile(versionId, position, `${rendition}.jpg` as PageFile);
    if (!file) return false;
    await file.close();
  }
  return true;
};
