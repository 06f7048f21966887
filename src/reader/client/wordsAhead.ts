// Jumps read at once: the words of the pages a reader is likely to jump to (the targets of the
// links on the pages shown, then of the contents' entries) fetched ahead, one at a time and only
// once the pages shown have their images, so that a jump to one of them draws its words in the
// first frame (./textInPlace.ts) while its image comes; and the page a reader is about to choose
// (pointed at, touched or focused in a panel: a contents entry, a thumbnail, a search result; or
// typed in go to page), in the moment between the intent and the click. A few KB a page, within
// budgets; none on a connection that asks to save data or is 2G, where every byte is the reader's.
import type { OutlineEntry } from './book.ts';
import type { Context } from './context.ts';
import type { Side } from './layout.ts';

/** Pages whose words a reading session fetches ahead at most (~5 KB each, compressed). */
const MOST_PAGES = 40;
/** Pages pointed at or typed whose words a session fetches at most. */
const MOST_INTENTS = 200;

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

export const createWordsAhead = (ctx: Context, pageFor: (input: string) => number | null) => {
  const { book } = ctx;
  const asked = new Set<number>();
  const intended = new Set<number>();
  const intent = (n: number | null) => {
    if (n === null || !book.pages.has(n) || intended.has(n) || book.wordsNow(n) || sparing())
      return;
    if (intended.size >= MOST_INTENTS) return;
    intended.add(n);
    void book.words(n);
  };
  const pageOf = (target: EventTarget | null) =>
    target instanceof Element
      ? target.closest<HTMLElement>('[data-page]')?.dataset.page
      : undefined;
  for (const kind of ['pointerover', 'pointerdown', 'focusin'] as const) {
    document.addEventListener(kind, (e) => {
      const page = pageOf(e.target);
      if (page) intent(Number(page));
    });
  }
  document.addEventListener('input', (e) => {
    if (e.target instanceof HTMLInputElement && e.target.id === 'goto-input')
      intent(pageFor(e.target.value));
  });
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
