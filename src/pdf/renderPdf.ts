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
import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { type PageGeometry, parsePageSizes } from './pageSizes.ts';
import { limitedPoppler, type ProcessLimits } from './poppler.ts';

export type RenditionSizes = { max: number; mid: number; min: number };

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
  files: { max: string; mid: string; min: string };
  text: string;
};

export type Timings = { inspectMs: number; renderMs: number; deriveMs: number; textMs: number };

export type RenderResult = { pages: RenderedPage[]; timings: Timings };

/** A document that cannot be turned into pages, with a reason a person can read. */
export class RenderFailure extends Error {
  override name = 'RenderFailure';
}

export const DEFAULT_RENDER_OPTIONS: RenderOptions = {
  sizes: { max: 2000, mid: 1000, min: 300 },
  processes: 2,
  maxPages: 2000,
  pageTimeoutMs: 30_000,
  documentTimeoutMs: (pages) => Math.min(30 * 60_000, 60_000 + pages * 5_000),
  limits: { memoryMb: 1536, cpuSeconds: 600 },
};

/** Letter, for pages whose PDF gives no usable size (a 0x0 MediaBox). */
const FALLBACK_PAGE = { width: 612, height: 792 };
const JPEG = { quality: 82, optimiseCoding: false } as const;

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

  const deadline = AbortSignal.timeout(options.documentTimeoutMs(pageCount));
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  started = performance.now();
  const texts = extractText(poppler, pdfPath, work, signal).then((t) => {
    timings.textMs = performance.now() - started;
    return t;
  });

  const pages = new Map<number, RenderedPage>();
  const derivations: Promise<void>[] = [];
  // sharp works on libuv's thread pool; more than two at once only makes them fight pdftoppm.
  const slots = semaphore(2);
  const derive = (position: number, file: string) => {
    derivations.push(
      slots(async () => {
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
      }),
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
  );
  timings.renderMs = performance.now() - started;
  await Promise.all(derivations);
  const text = await texts;
  await rm(work, { recursive: true, force: true });

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
        if (numbered.length > ready.length) lastProgress = Math.max(lastProgress, Date.now() - 0);
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
        // we show a blank page. A crash on such a page, though, is a damaged file.
        if (!sized && /hDPI or vDPI values are invalid/.test(String((error as Error)?.message))) {
          await blankPage(join(work, `${prefix}-${first}.jpg`), options.sizes.max);
          await collect(true);
          return;
        }
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

type Range = { first: number; last: number; sized: boolean };

/**
 * Contiguous runs of pages with a size, split so there are at least `processes` ranges; each
 * page without a size (0x0 MediaBox) is a range of its own, rendered at a fixed small DPI.
 */
export const planRanges = (geometry: PageGeometry[], processes: number): Range[] => {
  const runs: Range[] = [];
  for (const page of geometry) {
    const sized = page.width > 0 && page.height > 0;
    const previous = runs.at(-1);
    if (sized && previous?.sized && previous.last === page.position - 1)
      previous.last = page.position;
    else runs.push({ first: page.position, last: page.position, sized });
  }
  const sizedPages = runs.filter((r) => r.sized).reduce((n, r) => n + r.last - r.first + 1, 0);
  const target = Math.max(1, Math.ceil(sizedPages / Math.max(1, processes)));
  return runs.flatMap((run) => {
    if (!run.sized) return [run];
    const pages = run.last - run.first + 1;
    return splitRanges(pages, Math.ceil(pages / target)).map(([a, b]) => ({
      first: run.first + a - 1,
      last: run.first + b - 1,
      sized: true,
    }));
  });
};

/**
 * Runs `work` over `items`, at most `limit` at a time. The first failure aborts the others (through
 * the signal each item gets) and is thrown once every item has stopped, so no renderer is left
 * writing into a directory the caller is about to remove.
 */
const inParallel = async <T>(
  items: T[],
  limit: number,
  work: (item: T, index: number, signal: AbortSignal) => Promise<void>,
) => {
  const stop = new AbortController();
  let next = 0;
  const lane = async () => {
    while (next < items.length && !stop.signal.aborted) {
      const index = next++;
      try {
        await work(items[index] as T, index, stop.signal);
      } catch (error) {
        stop.abort();
        throw error;
      }
    }
  };
  const lanes = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane);
  const results = await Promise.allSettled(lanes);
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
};

export const splitRanges = (pages: number, processes: number): [number, number][] => {
  const parts = Math.max(1, Math.min(processes, pages));
  const ranges: [number, number][] = [];
  let first = 1;
  for (let i = 0; i < parts; i++) {
    const size = Math.floor(pages / parts) + (i < pages % parts ? 1 : 0);
    ranges.push([first, first + size - 1]);
    first += size;
  }
  return ranges;
};

const deriveRenditions = async (
  file: string,
  outDir: string,
  position: number,
  geometry: PageGeometry | undefined,
  sizes: RenditionSizes,
): Promise<RenderedPage> => {
  const dir = join(outDir, String(position));
  await mkdir(dir, { recursive: true });
  const files = { max: join(dir, 'max.jpg'), mid: join(dir, 'mid.jpg'), min: join(dir, 'min.jpg') };
  // poppler's -scale-to can overshoot by a pixel (2001x2000 for some square pages).
  const limitInputPixels = (sizes.max + 2) * (sizes.max + 2);
  try {
    return await derive(file, files, position, geometry, sizes, limitInputPixels);
  } catch (error) {
    if (error instanceof RenderFailure) throw error;
    throw new RenderFailure(`Page ${position} could not be converted: ${(error as Error).message}`);
  }
};

const derive = async (
  file: string,
  files: RenderedPage['files'],
  position: number,
  geometry: PageGeometry | undefined,
  sizes: RenditionSizes,
  limitInputPixels: number,
): Promise<RenderedPage> => {
  const meta = await sharp(file, { limitInputPixels }).metadata();
  let size = { width: geometry?.width ?? 0, height: geometry?.height ?? 0 };

  if (size.width <= 0 || size.height <= 0) size = FALLBACK_PAGE;
  if ((meta.width ?? 0) <= 1 && (meta.height ?? 0) <= 1) {
    // pdftoppm "succeeds" with a 1x1 image when it could not render. A page with no size at all
    // (0x0 MediaBox) becomes a blank Letter page; a real page that failed is a failure.
    if (geometry && geometry.width > 0 && geometry.height > 0) {
      throw new RenderFailure(
        `Page ${position} could not be rendered: the renderer hit its memory or size limit`,
      );
    }
    await blankPage(file, sizes.max);
  }

  // min comes from mid, not from max: decoding a 1000 px JPEG costs a quarter of a 2000 px one.
  await sharp(file, { limitInputPixels })
    .resize(sizes.mid, sizes.mid, { fit: 'inside' })
    .jpeg(JPEG)
    .toFile(files.mid);
  await sharp(files.mid)
    .resize(sizes.min, sizes.min, { fit: 'inside' })
    .jpeg(JPEG)
    .toFile(files.min);
  if (Math.max(meta.width ?? 0, meta.height ?? 0) > sizes.max) {
    // pdftoppm's -scale-to overshoots by a pixel on some square pages (2001x2000).
    await sharp(file, { limitInputPixels })
      .resize(sizes.max, sizes.max, { fit: 'inside' })
      .jpeg(JPEG)
      .toFile(files.max);
  } else {
    await rename(file, files.max);
  }
  return { position, width: size.width, height: size.height, files, text: '' };
};

const blankPage = (file: string, longSide: number) =>
  sharp({
    create: {
      width: Math.round((longSide * FALLBACK_PAGE.width) / FALLBACK_PAGE.height),
      height: longSide,
      channels: 3,
      background: '#ffffff',
    },
  })
    .jpeg(JPEG)
    .toFile(file);

/** Each page's text, from one pdftotext run (pages end with a form feed). Never fatal. */
const extractText = async (
  poppler: PopplerInstance,
  pdfPath: string,
  work: string,
  signal: AbortSignal,
) => {
  try {
    // To a file: node-poppler answers "No Error" instead of an empty stdout.
    const file = join(work, 'text.txt');
    await poppler.pdfToText(pdfPath, file, { outputEncoding: 'UTF-8' }, { signal });
    const text = await readFile(file, 'utf8');
    return text.split('\f').map((t) => t.replace(/[ \t]+\n/g, '\n').trim());
  } catch {
    return [];
  }
};

/** Turns poppler's complaint into a reason a person can act on. */
const explain = (error: unknown, doing: 'read' | 'render') => {
  const message = String((error as Error)?.message ?? error);
  if (/Incorrect password/i.test(message)) {
    return new RenderFailure(
      'The PDF is password-protected: it can only be opened with its password',
    );
  }
  if (/SIGSEGV|SIGBUS|SIGABRT|signal/i.test(message) || (error as { signal?: string })?.signal) {
    return new RenderFailure('The renderer crashed on this PDF; the file is probably damaged');
  }
  if (/SIGXCPU|CPU time/i.test(message)) {
    return new RenderFailure('Rendering used more CPU time than allowed');
  }
  if (/memory|Bogus memory allocation|std::bad_alloc/i.test(message)) {
    return new RenderFailure('Rendering needed more memory than allowed');
  }
  if ((error as Error)?.name === 'AbortError' || (error as Error)?.name === 'TimeoutError') {
    return new RenderFailure(`Reading the PDF took too long`);
  }
  const lines = message.split('\n').filter((l) => /error/i.test(l));
  const reason = (lines.at(-1) ?? message.split('\n')[0] ?? '')
    .replace(/^.*?(Syntax|Command Line|Internal) Error( \(\d+\))?:\s*/i, '')
    .trim()
    .slice(0, 200);
  return new RenderFailure(
    `The PDF could not be ${doing === 'read' ? 'read' : 'rendered'}${reason ? `: ${reason}` : ''}`,
  );
};

const semaphore = (size: number) => {
  let free = size;
  const waiting: (() => void)[] = [];
  return async <T>(work: () => Promise<T>): Promise<T> => {
    if (free > 0) free--;
    else await new Promise<void>((r) => waiting.push(r));
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else free++;
    }
  };
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
