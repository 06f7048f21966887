// Jumps read at once: every page's lines (lines.json, one file for the document: the why3
// manual's 184 pages in 153 KB compressed) fetched once the pages shown have their images, so that
// a jump anywhere draws its text in its first frame (./textInPlace.ts) while its image comes.
// Where the version has none (processed before it) or it is over the budget, the words of the
// pages a reader is likely to jump to, one page at a time: the targets of the links on the pages
// shown, then of the contents' entries; and, either way until the lines are here, the page a
// reader is about to choose (pointed at, touched or focused in a panel: a contents entry, a
// thumbnail, a search result; or typed in go to page), in the moment between the intent and the
// click. Within budgets; none on a connection that asks to save data or is 2G, where every byte
// is the reader's.
import type { Book, Line, OutlineEntry } from './book.ts';
import type { Context } from './context.ts';
import type { Side } from './layout.ts';

/** lines.json's largest size on the wire that a reading session fetches (why3's: 153 KB). */
const MOST_LINES_BYTES = 400 * 1024;
/** Pages whose words a reading session fetches ahead at most (~5 KB each, compressed). */
const MOST_PAGES = 40;
/** Pages pointed at or typed whose words a session fetches at most. */
const MOST_INTENTS = 200;

type Connection = { saveData?: boolean; effectiveType?: string };

/**
 * lines.json's pages, or null: none, failed, or larger than `most` bytes on the wire (left as
 * soon as its size is known, before its body comes).
 */
const fetchLines = async (url: string, most: number): Promise<Line[][] | null> => {
  const stop = new AbortController();
  try {
    const r = await fetch(url, { signal: stop.signal });
    const size = Number(r.headers.get('content-length') ?? Number.NaN);
    if (!r.ok || !(size <= most)) {
      stop.abort();
      return null;
    }
    const body = (await r.json()) as { pages?: unknown };
    return Array.isArray(body.pages) ? (body.pages as Line[][]) : null;
  } catch {
    return null;
  }
};

/** Every page's lines into the book, once a session; whether they are here. */
let lines: Promise<boolean> | null = null;
const linesOf = (book: Book) => {
  const url = book.data.lines;
  if (!url) return Promise.resolve(false);
  lines ??= fetchLines(url, MOST_LINES_BYTES).then((pages) => {
    if (pages) book.addLines(pages);
    return pages !== null;
  });
  return lines;
};

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
    if (await linesOf(book)) return;
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
