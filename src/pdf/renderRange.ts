// One pdftoppm process over a contiguous range of pages at one size, watched while it runs.
//
// pdftoppm renders a page, then writes its file in one go, then starts the next page: so when a
// page's file appears the one before it is complete, and when the process ends all are; a file
// that ends with the JPEG end marker is complete too (jpegSize.ts). Each
// complete file goes to `onFile` in page order. The watchdog counts files: a range that writes no
// new file for pageTimeoutMs (counted from the start, then from each file) is killed, and the page
// it was on is named. The range can be cut short while it runs (another process takes its last
// pages, or its slot is wanted): it stops once the file of its new last page is complete.
import { mkdir, readdir } from 'node:fs/promises';
import { resolve as absolute, join } from 'node:path';
import { endsJpeg } from './jpegSize.ts';
import { type ProcessLimits, runPoppler } from './poppler.ts';
import { RenderFailure } from './renderFailure.ts';

/** How often the output folder is looked at: the delay before a finished page is seen. */
const POLL_MS = 40;

export type RangeOptions = {
  limits: ProcessLimits;
  pdfPath: string;
  /** a folder of this run's own: every file in it is one of its pages */
  dir: string;
  first: number;
  last: number;
  longSide: number;
  quality: number;
  pageTimeoutMs: number;
  signal: AbortSignal;
  /** a complete page file, in page order; the file may be moved away */
  onFile: (position: number, file: string) => Promise<void>;
};

export type RangeRun = {
  readonly first: number;
  /** the last page it will render; lowered by `cut` */
  readonly last: number;
  /** the first page whose file is not known to be complete yet */
  readonly next: number;
  /** leaves pages `from`..last to someone else (ignored unless next < from <= last) */
  cut: (from: number) => void;
  done: Promise<void>;
};

export type RangeState = { first: number; last: number; next: number };

/**
 * A range as its scheduler sees it, over the state its renderer moves (`next` as pages are done;
 * `last` lowered by `cut`): pdftoppm's here, an image book's in ./imageRange.ts.
 */
export const rangeRun = (
  options: { first: number; last: number },
  render: (state: RangeState) => Promise<void>,
): RangeRun => {
  const state = { first: options.first, last: options.last, next: options.first };
  return {
    get first() {
      return state.first;
    },
    get last() {
      return state.last;
    },
    get next() {
      return state.next;
    },
    cut: (from) => {
      if (from > state.next && from <= state.last) state.last = from - 1;
    },
    done: render(state),
  };
};

export const startRange = (options: RangeOptions): RangeRun =>
  rangeRun(options, (state) => renderRange(options, state));

const renderRange = async (options: RangeOptions, state: RangeState) => {
  const { dir, first, pageTimeoutMs } = options;
  await mkdir(dir, { recursive: true });
  const stop = new AbortController();
  const tool = runPoppler(
    options.limits,
    {
      tool: 'pdftoppm',
      file: absolute(options.pdfPath),
      outputPrefix: join(dir, 'p'),
      options: {
        jpegFile: true,
        // Huffman tables made for the image (optimize): 3-8 % fewer bytes for the same pixels, at
        // no measurable CPU (12 pages of four corpus documents at 1000 px).
        jpegOptions: `quality=${options.quality},optimize=y`,
        // The crop box is the visible page, and what pdfinfo's sizes describe.
        cropBox: true,
        // Pixels, never DPI: a huge MediaBox costs no more than a Letter page.
        scalePageTo: options.longSide,
        firstPageToConvert: first,
        lastPageToConvert: options.last,
      },
    },
    // Aborted, pdftoppm is killed and its end awaited (poppler.ts).
    { signal: AbortSignal.any([options.signal, stop.signal]), maxBytes: 64 * 1024 },
  );
  let ended = false;
  const settled = tool.then(
    () => {
      ended = true;
    },
    () => {
      ended = true;
    },
  );

  const files = new Map<number, string>();
  const look = async () => {
    for (const name of await readdir(dir)) {
      const n = Number(/-(\d+)\.jpg$/.exec(name)?.[1]);
      if (n && !files.has(n)) files.set(n, name);
    }
    return Math.max(state.next - 1, ...files.keys());
  };
  // `last` is read on every page: a cut may lower it while pages are being handed.
  const hand = async (upTo: number) => {
    while (state.next <= Math.min(upTo, state.last)) {
      const name = files.get(state.next);
      if (!name) throw new RenderFailure(`The renderer skipped page ${state.next}`);
      await options.onFile(state.next, join(dir, name));
      state.next++;
    }
  };

  let stalled: number | null = null;
  let cutShort = false;
  let written = 0;
  let progressAt = Date.now();
  try {
    while (!ended) {
      await Promise.race([sleep(POLL_MS), settled]);
      if (ended) break;
      const newest = await look();
      if (files.size !== written) {
        written = files.size;
        progressAt = Date.now();
      }
      // Every file but the newest is complete; the newest too once it ends with the JPEG's
      // end marker (or a later one exists).
      const newestFile = files.get(newest);
      const complete =
        newestFile && newest >= state.next && endsJpeg(join(dir, newestFile)) ? newest : newest - 1;
      await hand(Math.min(complete, state.last));
      if (newest > state.last || (state.last < options.last && state.next > state.last)) {
        cutShort = true; // cut: the pages it keeps are all written
        stop.abort();
        break;
      }
      if (Date.now() - progressAt > pageTimeoutMs) {
        // pdftoppm writes a page's file once the page is rendered: it is on the page after
        // the files it wrote.
        stalled = first + written;
        stop.abort();
        break;
      }
    }
  } finally {
    // Whatever happened above, the process is not left running, and its end is awaited.
    if (!ended) stop.abort();
    await settled;
  }
  try {
    await tool;
  } catch (error) {
    if (!cutShort) {
      if (stalled !== null) {
        throw new RenderFailure(
          `Page ${stalled} took longer than ${pageTimeoutMs / 1000} s to render`,
        );
      }
      throw error;
    }
  }
  // It ended by itself (or was cut): every file it wrote up to `last` is complete.
  await look();
  await hand(state.last);
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
