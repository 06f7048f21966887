// Which pages each renderer process takes, and running the processes a few at a time.
import type { PageGeometry } from './pageSizes.ts';

export type Range = { first: number; last: number; sized: boolean };

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
export const inParallel = async <T>(
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

/** At most `size` of the wrapped calls run at once; the rest wait their turn. */
export const semaphore = (size: number) => {
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
