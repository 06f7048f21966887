// Jumps read at once: the words of the pages a reader is likely to jump to (the targets of the
// links on the pages shown, then of the contents' entries) fetched ahead, one at a time and only
// once the pages shown have their images, so that a jump to one of them draws its words in the
// first frame (./textInPlace.ts) while its image comes. A few KB a page, within a budget; none on
// a connection that asks to save data or is 2G, where every byte is the reader's.
import type { OutlineEntry } from './book.ts';
import type { Context } from './context.ts';
import type { Side } from './layout.ts';

/** Pages whose words a reading session fetches ahead at most (~3 KB each, compressed). */
const MOST_PAGES = 40;

type Connection = { saveData?: boolean; effectiveType?: string };

const sparing = () => {
  const connection = (navigator as Navigator & { connection?: Connection }).connection;
  return connection?.saveData === true || /2g/.test(connection?.effectiveType ?? '');
};

/** The contents' targets, top level first: the chapters before their sections. */
const outlineTargets = (entries: OutlineEntry[]): number[] => {
  const pages: number[] = [];
  let level = entries;
  while (level.length > 0) {
    for (const entry of level) if (entry.page !== null) pages.push(entry.page);
    level = level.flatMap((entry) => entry.children);
  }
  return pages;
};

export const createWordsAhead = (ctx: Context) => {
  const { book } = ctx;
  const asked = new Set<number>();
  const queue: number[] = [];
  let running = false;

  const run = async () => {
    if (running) return;
    running = true;
    try {
      for (let n = queue.shift(); n !== undefined; n = queue.shift()) await book.words(n);
    } finally {
      running = false;
    }
  };

  const want = (pages: number[], shown: Side[]) => {
    for (const n of pages) {
      if (asked.size >= MOST_PAGES) break;
      if (asked.has(n) || shown.includes(n) || !book.pages.has(n)) continue;
      asked.add(n);
      queue.push(n);
    }
  };

  /** The pages shown have their images: their links' targets next, then the contents'. */
  return async (shown: Side[]) => {
    if (sparing() || asked.size >= MOST_PAGES) return;
    const structure = await book.structure();
    const linked = shown.flatMap((n) =>
      n
        ? (structure.links[n - 1] ?? []).flatMap((link) =>
            link.kind === 'page' ? [link.page] : [],
          )
        : [],
    );
    want(linked, shown);
    want(outlineTargets(structure.outline), shown);
    void run();
  };
};
