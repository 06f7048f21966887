// The PDF adapter: one PDF in, page images and text out. It knows nothing of events or the store.
//
// Speed: each rendition is rendered by pdftoppm straight to JPEG at its own size (its JPEG is the
// rendition as it is). Rendering 1000 and 300 px costs less CPU than decoding the 2000 px JPEG
// and deriving them with sharp (docs/processing.md), and text drawn at its final size is crisper
// than a downscale. Page 1's three renditions come first, so the reader can show it at once; then
// one range per rendition, split between the processes as they free up (renderQueue.ts).
//
// Safety: poppler runs in child processes with a memory and CPU cap (see poppler.ts), a wall-clock
// limit for the document and a watchdog on every page; the rendered size is bounded by
// -scale-to, never by DPI; and poppler's silent failures (exit 0 with a 1x1 image) are caught
// by checking every output's dimensions.
//
// One file (over 300 lines): one render's plan, its tasks and their outcome, whichever makes the
// pages (pdftoppm's ranges, or an image book's, ./imageRange.ts).
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pageImages, startImageRange } from './imageRange.ts';
import { planTasks, type Task } from './pageRanges.ts';
import type { PageGeometry } from './pageSizes.ts';
import type { PageWord } from './pageWord.ts';
import { readPages } from './pdfPages.ts';
import { DEFAULT_LIMITS, type ProcessLimits } from './poppler.ts';
import {
  brokenObjects,
  explain,
  RenderFailure,
  StorageFailure,
  storageProblem,
} from './renderFailure.ts';
import { runTasks } from './renderQueue.ts';
import { type RangeOptions, startRange } from './renderRange.ts';
import { machineSlots, type RenderSlots } from './renderSlots.ts';
import {
  blankPage,
  FALLBACK_PAGE,
  type PageFiles,
  placeRendition,
  QUALITY,
  type RenditionName,
  type RenditionSizes,
} from './renditions.ts';
import { readTextPass } from './textPass.ts';
import { PROCESSING_NICE } from './toolWrappers.ts';

export type { RenditionSizes };
export { RenderFailure, StorageFailure };

export type RenderOptions = {
  sizes: RenditionSizes;
  /**
   * The renditions rendered before the document is done; the others are rendered when first
   * asked for and filled in afterwards (src/worker/fillRenditions.ts).
   */
  renditions: RenditionName[];
  /** the renderer processes this process may run, shared by every document (renderSlots.ts) */
  slots: RenderSlots;
  maxPages: number;
  pageTimeoutMs: number;
  documentTimeoutMs: (pages: number) => number;
  limits: ProcessLimits;
  signal?: AbortSignal;
  /**
   * each page is one image, as imagesToPdf makes an image book: its renditions are the image
   * made smaller by sharp (./imageRange.ts), not the page drawn again by pdftoppm
   */
  imagePages?: boolean;
  /**
   * an image book's renditions made while its PDF was made: `<dir>/<position>/<rendition>.jpg`,
   * taken as they are where there (./imageRange.ts)
   */
  prerendered?: string;
  /** called once the page count is known, before rendering starts */
  onStart?: (pages: PageGeometry[]) => void | Promise<void>;
  /** called as each page's renditions are ready */
  onPage?: (page: RenderedPage) => void;
  /** called with each page's text and words once they are read, while the pages still render */
  onText?: (texts: string[], words: PageWord[][]) => void;
  /**
   * pages an earlier attempt rendered and stored: not rendered again (nor passed to onPage), but
   * in the result with their sizes and text, so a render cut short resumes where it stopped
   */
  rendered?: ReadonlySet<number>;
};

export type RenderedPage = {
  position: number;
  /** upright size in PDF points */
  width: number;
  height: number;
  files: PageFiles;
  text: string;
  /** its words with their boxes, fractions of the page as shown (./textPass.ts) */
  words: PageWord[];
};

export type Timings = {
  inspectMs: number;
  /** from the first process's start to the last one's end */
  renderMs: number;
  /** until page 1's three renditions were in place */
  firstPageMs: number;
  textMs: number;
};

export type RenderResult = { pages: RenderedPage[]; timings: Timings };

export const DEFAULT_RENDER_OPTIONS: RenderOptions = {
  sizes: { max: 2000, mid: 1000, min: 300 },
  renditions: ['mid', 'min'],
  get slots() {
    return machineSlots();
  },
  maxPages: 2000,
  pageTimeoutMs: 30_000,
  documentTimeoutMs: (pages) => Math.min(30 * 60_000, 60_000 + pages * 5_000),
  // Processing yields to the API and its database when they need a core: measured (bench/busy,
  // six manuals processing on two cores) p99 of the list 28-29 ms → 17-19, p50 5-6 → 3; alone it
  // runs as fast (nice only orders who waits). Tiles go lower still (src/app/pageTiles.ts).
  limits: { ...DEFAULT_LIMITS, nice: PROCESSING_NICE },
};

export const renderPdf = async (
  pdfPath: string,
  outDir: string,
  options: RenderOptions = DEFAULT_RENDER_OPTIONS,
): Promise<RenderResult> => {
  const timings: Timings = { inspectMs: 0, renderMs: 0, firstPageMs: 0, textMs: 0 };
  let started = performance.now();
  const geometry = await readPages(options.limits, pdfPath, options.maxPages, {
    timeoutMs: 2 * options.pageTimeoutMs,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  timings.inspectMs = performance.now() - started;
  await options.onStart?.(geometry);

  const work = join(outDir, 'work');
  await rm(outDir, { recursive: true, force: true });
  await mkdir(work, { recursive: true });

  // Every process started here is awaited on every path, failures included (runTasks waits for
  // all of them before it reports the first failure): a rejection nobody awaits ends the process.
  const deadline = AbortSignal.timeout(options.documentTimeoutMs(geometry.length));
  const signal = AbortSignal.any(
    [options.signal, deadline].filter((s): s is AbortSignal => s !== undefined),
  );
  started = performance.now();
  const pages = new Map<number, RenderedPage>();
  const placed = new Map<number, Set<RenditionName>>();
  const dirs = new Map<number, Promise<void>>();
  let text: string[] = [];
  let words: PageWord[][] = [];

  const pageDone = (position: number, rendition: RenditionName) => {
    const done = placed.get(position) ?? new Set();
    placed.set(position, done);
    // Once, when the last of its renditions is in place (a rendition placed twice, by a range
    // and the process that took its end, counts once).
    if (done.has(rendition)) return;
    done.add(rendition);
    if (done.size < options.renditions.length) return;
    const size = geometry[position - 1];
    const sized = size && size.width > 0 && size.height > 0;
    const page: RenderedPage = {
      position,
      width: sized ? size.width : FALLBACK_PAGE.width,
      height: sized ? size.height : FALLBACK_PAGE.height,
      files: filesOf(outDir, position),
      text: '',
      words: [],
    };
    if (position === 1) timings.firstPageMs = performance.now() - started;
    void images?.forget(position);
    pages.set(position, page);
    options.onPage?.(page);
  };
  const place = async (
    rendition: RenditionName,
    position: number,
    sized: boolean,
    file: string | null,
  ) => {
    // Made once, by whichever of the page's renditions comes first (they may come together).
    let dir = dirs.get(position);
    if (!dir) {
      dir = mkdir(join(outDir, String(position))).then(() => undefined);
      dirs.set(position, dir);
    }
    await dir;
    const target = filesOf(outDir, position)[rendition];
    const longSide = options.sizes[rendition];
    if (file) await placeRendition(file, target, longSide, { position, sized, rendition });
    else await blankPage(target, longSide, rendition);
    pageDone(position, rendition);
  };

  // An image book's page images, taken out of the PDF once for all renditions (./imageRange.ts).
  const images = options.imagePages ? pageImages(options.limits, pdfPath, work) : null;
  let serial = 0;
  const start = (task: Task, stop: AbortSignal) => {
    const taskSignal = AbortSignal.any([signal, stop]);
    if (task.kind === 'text' && images) {
      // An image book's pages are images: no text to look for.
      text = geometry.map(() => '');
      words = geometry.map(() => []);
      options.onText?.(text, words);
      return { done: Promise.resolve() };
    }
    if (task.kind === 'text') {
      return {
        done: readTextPass(options.limits, pdfPath, work, geometry, taskSignal).then((read) => {
          text = read.texts;
          words = read.words;
          timings.textMs = performance.now() - started;
          options.onText?.(text, words);
        }),
      };
    }
    const rangeOptions: RangeOptions = {
      limits: options.limits,
      pdfPath,
      dir: join(work, `${task.rendition}-${task.first}-${serial++}`),
      first: task.first,
      last: task.last,
      longSide: options.sizes[task.rendition],
      quality: QUALITY[task.rendition],
      pageTimeoutMs: options.pageTimeoutMs,
      signal: taskSignal,
      onFile: (position, file) => place(task.rendition, position, task.sized, file),
    };
    const range = images
      ? startImageRange({
          ...rangeOptions,
          images,
          ...(options.prerendered
            ? { made: join(options.prerendered, '{position}', `${task.rendition}.jpg`) }
            : {}),
        })
      : startRange(rangeOptions);
    return {
      range,
      done: range.done.catch(async (error: unknown) => {
        // A page with no size (0x0 MediaBox) cannot be scaled: pdftoppm refuses it cleanly, and
        // we show a blank page, unless what poppler said on the way shows broken objects (a
        // damaged file).
        const said = String((error as Error)?.message);
        if (!task.sized && /hDPI or vDPI values are invalid/.test(said)) {
          const damaged = brokenObjects(said);
          if (damaged) throw damaged;
          await place(task.rendition, task.first, false, null);
          return;
        }
        throw explainRender(error, signal, options);
      }),
    };
  };

  const rendered = options.rendered ?? new Set<number>();
  for (const size of geometry) {
    if (!rendered.has(size.position)) continue;
    const sized = size.width > 0 && size.height > 0;
    pages.set(size.position, {
      position: size.position,
      width: sized ? size.width : FALLBACK_PAGE.width,
      height: sized ? size.height : FALLBACK_PAGE.height,
      files: filesOf(outDir, size.position),
      text: '',
      words: [],
    });
  }

  let failure: unknown = null;
  // Page 1 goes before every other document's pages: the reader shows it while the rest renders.
  const priority = (task: Task) => (task.kind === 'pages' && task.last === 1 ? 'first' : 'normal');
  await runTasks(
    planTasks(
      geometry.filter((size) => !rendered.has(size.position)),
      options.renditions,
    ),
    options.slots.job(),
    start,
    priority,
  ).catch((error: unknown) => {
    failure = error;
  });
  timings.renderMs = performance.now() - started;
  // Asked only when something went wrong, before our own removal of `work`. Removed by someone
  // else (a deletion) the tree goes while we still write into it: the work folder may still be
  // there while rm walks it, but pages already finished are gone (seen under load: the check on
  // the work folder alone blamed the document).
  const outputLost = async () => {
    const there = (path: string) =>
      stat(path).then(
        () => true,
        () => false,
      );
    if (!(await there(work))) return true;
    for (const page of pages.values()) {
      for (const rendition of options.renditions) {
        if (!(await there(page.files[rendition]))) return true;
      }
    }
    return false;
  };
  const lost = failure !== null || pages.size < geometry.length ? await outputLost() : false;
  await rm(work, { recursive: true, force: true });
  const disappeared = new StorageFailure('The folder the pages were written to disappeared');
  if (failure !== null) {
    // Whatever poppler made of it, a render whose folder vanished under it (or whose disk
    // failed) says nothing about the document: the caller tries again later.
    throw storageProblem(failure) ?? (lost ? disappeared : failure);
  }

  const ordered: RenderedPage[] = [];
  for (let position = 1; position <= geometry.length; position++) {
    const page = pages.get(position);
    if (!page) throw lost ? disappeared : new RenderFailure(`Page ${position} was not rendered`);
    ordered.push({ ...page, text: text[position - 1] ?? '', words: words[position - 1] ?? [] });
  }
  return { pages: ordered, timings };
};

const filesOf = (outDir: string, position: number): PageFiles => {
  const dir = join(outDir, String(position));
  return { max: join(dir, 'max.jpg'), mid: join(dir, 'mid.jpg'), min: join(dir, 'min.jpg') };
};

/** A range's failure in words: ours (a stalled page, a storage failure) as they are, poppler's explained. */
const explainRender = (error: unknown, signal: AbortSignal, options: RenderOptions) => {
  if (error instanceof RenderFailure || error instanceof StorageFailure) return error;
  const storage = storageProblem(error);
  if (storage) return storage;
  if (signal.aborted && !options.signal?.aborted) {
    return new RenderFailure('Rendering took longer than the time allowed for this document');
  }
  return explain(error, 'render');
};
