// The PDF adapter: one PDF in, page images and text out. It knows nothing of events or the store.
//
// Speed: every page is rendered once, by pdftoppm straight to JPEG at the largest size (its JPEG
// is the `max` rendition as it is); `mid` is derived from that file with sharp (JPEG
// shrink-on-load) and `min` from `mid`. Page ranges are split over several pdftoppm processes and
// derivation runs while rendering goes on. (pdftocairo renders text ~1.4x faster, but it drew a
// page of the Asymptote manual black at 2000 px after a cairo out-of-memory error: fidelity first.)
//
// Safety: poppler runs in child processes with a memory and CPU cap (see poppler.ts), a wall-clock
// limit for the document and a watchdog for each page; the rendered size is bounded by
// -scale-to, never by DPI; and poppler's silent failures (exit 0 with a 1x1 image) are caught
// by checking every output's dimensions.
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { inParallel, planRanges, type Range, semaphore } from './pageRanges.ts';
import { type PageGeometry, parsePageSizes } from './pageSizes.ts';
import { extractText } from './pageText.ts';
import { limitedPoppler, type ProcessLimits } from './poppler.ts';
import {
  brokenObjects,
  explain,
  RenderFailure,
  StorageFailure,
  storageProblem,
} from './renderFailure.ts';
import { blankPage, deriveRenditions, type PageFiles, type RenditionSizes } from './renditions.ts';

export type { RenditionSizes };
export { RenderFailure, StorageFailure };

export type RenderOptions = {
  sizes: RenditionSizes;
  /** pdftoppm processes to split the pages over */
  processes: number;
  maxPages: number;
  pageTimeoutMs: number;
  documentTimeoutMs: (pages: number) => number;
  limits: ProcessLimits;
  signal?: AbortSignal;
  /** called once the page count is known, before rendering starts */
  onStart?: (pages: PageGeometry[]) => void | Promise<void>;
  /** called as each page's three renditions are ready */
  onPage?: (page: RenderedPage) => void;
};

export type RenderedPage = {
  position: number;
  /** upright size in PDF points */
  width: number;
  height: number;
  files: PageFiles;
  text: string;
};

export type Timings = { inspectMs: number; renderMs: number; deriveMs: number; textMs: number };

export type RenderResult = { pages: RenderedPage[]; timings: Timings };

export const DEFAULT_RENDER_OPTIONS: RenderOptions = {
  sizes: { max: 2000, mid: 1000, min: 300 },
  processes: 2,
  maxPages: 2000,
  pageTimeoutMs: 30_000,
  documentTimeoutMs: (pages) => Math.min(30 * 60_000, 60_000 + pages * 5_000),
  limits: { memoryMb: 1536, cpuSeconds: 600 },
};

export const renderPdf = async (
  pdfPath: string,
  outDir: string,
  options: RenderOptions = DEFAULT_RENDER_OPTIONS,
): Promise<RenderResult> => {
  const poppler = await limitedPoppler(options.limits);
  const timings: Timings = { inspectMs: 0, renderMs: 0, deriveMs: 0, textMs: 0 };
  let started = performance.now();

  const pageCount = await countPages(poppler, pdfPath, options);
  if (pageCount > options.maxPages) {
    throw new RenderFailure(`The PDF has ${pageCount} pages; the limit is ${options.maxPages}`);
  }
  const geometry = await readGeometry(poppler, pdfPath, pageCount, options);
  timings.inspectMs = performance.now() - started;
  await options.onStart?.(geometry);

  const work = join(outDir, 'work');
  await rm(outDir, { recursive: true, force: true });
  await mkdir(work, { recursive: true });

  // Every promise started here is awaited on every path, failures included: a derivation that
  // fails while pdftoppm still runs (its input deleted, a full disk) stops the render, and the
  // render's own failure waits for the derivations under way. (A rejection nobody awaits ends
  // the process.) The first failure is the one reported.
  const failed = new AbortController();
  let failure: { error: unknown } | null = null;
  const fail = (error: unknown) => {
    failure ??= { error };
    failed.abort(error);
  };
  const deadline = AbortSignal.timeout(options.documentTimeoutMs(pageCount));
  const signal = AbortSignal.any(
    [options.signal, deadline, failed.signal].filter((s): s is AbortSignal => s !== undefined),
  );
  started = performance.now();
  const texts = extractText(poppler, pdfPath, work, signal).then(
    (t) => {
      timings.textMs = performance.now() - started;
      return t;
    },
    (error: unknown) => {
      fail(error);
      return [] as string[];
    },
  );

  const pages = new Map<number, RenderedPage>();
  const derivations: Promise<void>[] = [];
  // sharp works on libuv's thread pool; more than two at once only makes them fight pdftoppm.
  const slots = semaphore(2);
  const derive = (position: number, file: string) => {
    derivations.push(
      slots(async () => {
        if (failed.signal.aborted) return;
        const t = performance.now();
        const page = await deriveRenditions(
          file,
          outDir,
          position,
          geometry[position - 1],
          options.sizes,
        );
        timings.deriveMs += performance.now() - t;
        pages.set(position, page);
        options.onPage?.(page);
      }).catch(fail),
    );
  };

  await renderRanges(
    poppler,
    pdfPath,
    work,
    planRanges(geometry, options.processes),
    options,
    signal,
    derive,
  ).catch(fail);
  timings.renderMs = performance.now() - started;
  await Promise.all(derivations); // each one handles its own failure
  const text = await texts;
  const workLeft = await stat(work).then(
    () => true,
    () => false,
  );
  await rm(work, { recursive: true, force: true });
  if (failure) {
    const { error } = failure as { error: unknown };
    // Whatever poppler or sharp made of it, a render whose folder vanished under it (or whose
    // disk failed) says nothing about the document: the caller tries again later.
    throw (
      storageProblem(error) ??
      (workLeft ? error : new StorageFailure('The folder the pages were written to disappeared'))
    );
  }

  const ordered: RenderedPage[] = [];
  for (let position = 1; position <= pageCount; position++) {
    const page = pages.get(position);
    if (!page) throw new RenderFailure(`Page ${position} was not rendered`);
    ordered.push({ ...page, text: text[position - 1] ?? '' });
  }
  return { pages: ordered, timings };
};

type PopplerInstance = Awaited<ReturnType<typeof limitedPoppler>>;

const countPages = async (poppler: PopplerInstance, pdfPath: string, options: RenderOptions) => {
  let info: string;
  try {
    info = String(
      await poppler.pdfInfo(pdfPath, {}, { signal: AbortSignal.timeout(options.pageTimeoutMs) }),
    );
  } catch (error) {
    throw explain(error, 'read');
  }
  const pages = Number(/^Pages:\s*(\d+)/m.exec(info)?.[1] ?? 0);
  if (!(pages >= 1)) throw new RenderFailure('The PDF has no pages');
  return pages;
};

const readGeometry = async (
  poppler: PopplerInstance,
  pdfPath: string,
  pages: number,
  options: RenderOptions,
) => {
  let text: string;
  try {
    text = String(
      await poppler.pdfInfo(
        pdfPath,
        { firstPageToConvert: 1, lastPageToConvert: pages },
        { signal: AbortSignal.timeout(options.pageTimeoutMs + pages * 50) },
      ),
    );
  } catch (error) {
    throw explain(error, 'read');
  }
  const geometry = parsePageSizes(text);
  if (geometry.length !== pages) {
    throw new RenderFailure(`The PDF says it has ${pages} pages but describes ${geometry.length}`);
  }
  return geometry;
};

/**
 * Runs pdftoppm over contiguous page ranges in parallel. It writes pages in order, so when
 * a range's next file appears (or the process ends) the previous file is complete and goes to
 * `derive`. A range that shows no progress for pageTimeoutMs is killed.
 */
const renderRanges = async (
  poppler: PopplerInstance,
  pdfPath: string,
  work: string,
  ranges: Range[],
  options: RenderOptions,
  signal: AbortSignal,
  derive: (position: number, file: string) => void,
) => {
  let stalled: number | null = null;
  await inParallel(
    ranges,
    options.processes,
    async ({ first, last, sized }, index, siblingsFailed) => {
      const prefix = `r${index}`;
      const abort = new AbortController();
      const done = new Set<number>();
      let lastProgress = Date.now();
      let newest = -1;
      const collect = async (finished: boolean) => {
        const files = (await readdir(work)).filter(
          (f) => f.startsWith(`${prefix}-`) && f.endsWith('.jpg'),
        );
        const numbered = files
          .map((f) => ({ f, n: Number(/-(\d+)\.jpg$/.exec(f)?.[1]) }))
          .filter((x) => !done.has(x.n))
          .sort((a, b) => a.n - b.n);
        // The newest file may still be being written unless the process has finished.
        const ready = finished ? numbered : numbered.slice(0, -1);
        for (const { f, n } of ready) {
          done.add(n);
          lastProgress = Date.now();
          derive(n, join(work, f));
        }
        // The file held back shows its page was written: progress once, when it first appears
        // (not on every look, or a page that never finishes would never trip the watchdog).
        const held = numbered.at(-1)?.n ?? -1;
        if (numbered.length > ready.length && held !== newest) {
          newest = held;
          lastProgress = Date.now();
        }
      };
      let active = true;
      const watchdog = (async () => {
        while (active) {
          await sleep(200);
          if (!active) break;
          await collect(false);
          if (Date.now() - lastProgress > options.pageTimeoutMs) {
            stalled = first + done.size;
            abort.abort();
            return;
          }
        }
      })();
      try {
        await poppler.pdfToPpm(
          pdfPath,
          join(work, prefix),
          {
            jpegFile: true,
            jpegOptions: 'quality=75',
            // The crop box is the visible page, and what pdfinfo's sizes describe.
            cropBox: true,
            scalePageTo: options.sizes.max,
            firstPageToConvert: first,
            lastPageToConvert: last,
          },
          { signal: AbortSignal.any([signal, abort.signal, siblingsFailed]) },
        );
      } catch (error) {
        // A page with no size (0x0 MediaBox) cannot be scaled: pdftoppm refuses it cleanly, and
        // we show a blank page, unless what poppler said on the way shows broken objects (a
        // damaged file). A crash on such a page is a damaged file too.
        const message = String((error as Error)?.message);
        if (!sized && /hDPI or vDPI values are invalid/.test(message)) {
          const damaged = brokenObjects(message);
          if (damaged) throw damaged;
          await blankPage(join(work, `${prefix}-${first}.jpg`), options.sizes.max);
          await collect(true);
          return;
        }
        const storage = storageProblem(error);
        if (storage) throw storage;
        if (stalled !== null) {
          throw new RenderFailure(
            `Page ${stalled} took longer than ${options.pageTimeoutMs / 1000} s to render`,
          );
        }
        if (signal.aborted && !options.signal?.aborted) {
          throw new RenderFailure('Rendering took longer than the time allowed for this document');
        }
        throw explain(error, 'render');
      } finally {
        active = false;
        await watchdog;
      }
      await collect(true);
      if (done.size !== last - first + 1) {
        throw new RenderFailure(`The renderer produced ${done.size} of pages ${first}-${last}`);
      }
    },
  );
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
