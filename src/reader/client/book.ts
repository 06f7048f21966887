// What the reader knows of the book: the data block the page carries (page sizes as runs, label
// runs, reading direction, URLs), what it fetches later when first needed (the page text, the
// document's contents and links, a page's word boxes), and what the status JSON adds while the
// version is still processing.
import { altText } from './altText.ts';
import { expandLabels, type LabelRun, labelOf, type SizeRun } from './layout.ts';
import { say } from './say.ts';
import type { ScriptWords } from './words.ts';

/** The data block the page carries (#flipbook-data, written by src/reader/readerPage.ts). */
export type FlipbookData = {
  pageCount: number;
  processing: boolean;
  versionId: string;
  url: string;
  dir: 'ltr' | 'rtl';
  pageBase: string;
  imageBase: string;
  runs: SizeRun[];
  labels: LabelRun[];
  /** the first pages' alternative text */
  alts: string[];
  text: string;
  /** the document's structure, once the version is done */
  document: string | null;
  /** every page's lines (src/pdf/pageLines.ts), once done; null when the version has none */
  lines?: string | null;
  status: string;
  /** the script's words in the reader's language (./words.ts) */
  words: ScriptWords;
  /** where beacons go, and the token they carry; absent: nothing is counted */
  beacon?: { url: string; token: string };
  /** a preview's reader: where its comparison with the live version is (./changesPanel.ts) */
  preview?: { compare: string };
};

/** A ready page and its size. */
export type Page = { n: number; w: number; h: number };

/** An entry of the PDF's outline: a heading, or a link to its page. */
export type OutlineEntry = { title: string; page: number | null; children: OutlineEntry[] };

/** A link on a page, its rect ([x, y, w, h]) in fractions of the page. */
export type PageLink =
  | { rect: [number, number, number, number]; kind: 'page'; page: number; text?: string }
  | { rect: [number, number, number, number]; kind: 'uri'; uri: string; text?: string };

/** The document's contents and links (links[i]: those of page i + 1). */
export type Structure = { outline: OutlineEntry[]; links: PageLink[][]; pending?: boolean };

/** A word on a page, its box in fractions of the page. */
export type Word = { x: number; y: number; w: number; h: number; t: string };

export type Book = {
  data: FlipbookData;
  pages: Map<number, Page>;
  labels: Map<number, string>;
  alts: Map<number, string>;
  rtl: boolean;
  total: number;
  addRuns: (runs: SizeRun[]) => void;
  label: (n: number) => string;
  aspect: (n: number) => number;
  url: (n: number, file: string) => string;
  texts: () => Promise<Map<number, string>>;
  forgetTexts: () => void;
  structure: () => Promise<Structure>;
  documentReady: () => void;
  alt: (n: number) => Promise<string | undefined>;
  words: (n: number) => Promise<Word[]>;
  /**
   * Page n's text in place, if it is here already: its lines from the document's lines.json, or
   * its words (fetched ahead or for a jump, ./wordsAhead.ts); undefined otherwise.
   */
  wordsNow: (n: number) => Word[] | undefined;
  /** Every page's lines (lines.json, src/pdf/pageLines.ts), once fetched (./wordsAhead.ts). */
  addLines: (pages: Line[][]) => void;
};

/** A line of lines.json: its box in fractions of the page, and its text. */
export type Line = [number, number, number, number, string];

export const createBook = (data: FlipbookData): Book => {
  /** Ready pages by number: { n, w, h }; sizes come as runs of equal pages. */
  const pages = new Map<number, Page>();
  const addRuns = (runs: SizeRun[]) => {
    for (const [first, count, w, h] of runs) {
      for (let n = first; n < first + count; n++) pages.set(n, { n, w, h });
    }
  };
  addRuns(data.runs);

  const alts = new Map(data.alts.map((alt, i) => [i + 1, alt]));
  const labels = expandLabels(data.labels);

  /** Every ready page's text (a Map), fetched once, when search or an alt text first needs it. */
  let texts: Promise<Map<number, string>> | null = null;

  /**
   * The document's structure (contents, links): written once the version is done, so a reader
   * opened while it was processing asks for it once the status says done (documentReady).
   * Absent for versions processed before it existed.
   */
  let structure: Promise<Structure> | null = null;

  /**
   * A page's alternative text when the page did not bring it (past the first pages): its own
   * text.txt, a few hundred bytes, rather than every page's text at once.
   */
  const altRequests = new Map<number, Promise<string | undefined>>();

  /** A page's words with their boxes, for search highlights; [] when they cannot be had. */
  const words = new Map<number, Promise<Word[]>>();
  const wordsHere = new Map<number, Word[]>();
  let wordsMissing = false;
  /** lines.json's pages (pages[0]: page 1's lines), once fetched */
  let linesHere: Line[][] = [];

  const book: Book = {
    data,
    pages,
    labels,
    alts,
    rtl: data.dir === 'rtl',
    total: data.pageCount,
    addRuns,
    label: (n) => labelOf(labels, n),
    /** width / height of page n; a page not ready yet borrows its nearest ready neighbour's. */
    aspect: (n) => {
      const page = pages.get(n) ?? nearest(pages, n);
      return page && page.w > 0 && page.h > 0 ? page.w / page.h : 0.75;
    },
    // Images may come from elsewhere (--blob-public-url); the JSON files are the daemon's.
    // max.jpg and the tiles from the daemon, which renders them when first asked for (a CDN
    // would answer 404).
    url: (n, file) =>
      `${file.endsWith('.jpg') && file !== 'max.jpg' && !file.startsWith('tile-') ? data.imageBase : data.pageBase}${n}/${file}`,

    texts: () => {
      texts ??= fetchJson<{ pages: { n: number; text: string }[] }>(data.text)
        .then((body) => {
          const map = new Map(body.pages.map((p) => [p.n, p.text]));
          for (const n of pages.keys())
            alts.set(n, altText(say('page', { label: book.label(n) }), map.get(n) ?? ''));
          return map;
        })
        .catch(() => {
          texts = null; // try again next time
          return new Map<number, string>();
        });
      return texts;
    },
    forgetTexts: () => {
      texts = null;
    },

    structure: () => {
      if (!data.document) return Promise.resolve({ outline: [], links: [], pending: true });
      structure ??= fetchJson<Structure>(data.document).catch(() => {
        structure = null; // try again next time
        return { outline: [], links: [] };
      });
      return structure;
    },
    documentReady: () => {
      data.document = `${data.pageBase}document.json`;
      // (done while this reader watched: processed now, so with its lines)
      data.lines = `${data.pageBase}lines.json`;
      structure = null;
    },

    alt: (n) => {
      if (alts.has(n)) return Promise.resolve(alts.get(n));
      let request = altRequests.get(n);
      if (!request) {
        request = fetch(book.url(n, 'text.txt'))
          .then((r) => (r.ok ? r.text() : ''))
          .catch(() => '')
          .then((text) => {
            if (!alts.has(n)) alts.set(n, altText(say('page', { label: book.label(n) }), text));
            return alts.get(n);
          });
        altRequests.set(n, request);
      }
      return request;
    },

    words: (n) => {
      // Written at the end of processing (its text pass): none to ask for before; and a done
      // version whose page has none (a 404) has none for any page: asked no more.
      if (!data.document || wordsMissing) return Promise.resolve([]);
      let request = words.get(n);
      if (!request) {
        request = fetch(book.url(n, 'words.json'))
          .then(async (r) => {
            if (r.status === 404) wordsMissing = true;
            if (!r.ok) throw new Error(String(r.status));
            const { words: found } = (await r.json()) as { words: Word[] };
            wordsHere.set(n, found);
            return found;
          })
          .catch(() => {
            words.delete(n); // try again next time (a network failure)
            return [];
          });
        words.set(n, request);
      }
      return request;
    },
    wordsNow: (n) => {
      const found = wordsHere.get(n);
      if (found) return found;
      const page = linesHere[n - 1];
      return page?.map(([x, y, w, h, t]) => ({ x, y, w, h, t }));
    },
    addLines: (pages) => {
      linesHere = pages;
    },
  };

  return book;
};

/** A JSON answer, as the daemon writes it; rejected unless the answer is a success. */
const fetchJson = <T>(url: string): Promise<T> =>
  fetch(url).then(
    (r): Promise<T> => (r.ok ? r.json() : Promise.reject(new Error(String(r.status)))),
  );

const nearest = (pages: Map<number, Page>, n: number) => {
  for (let d = 1; d < 50; d++) {
    const page = pages.get(n - d) ?? pages.get(n + d);
    if (page) return page;
  }
  return pages.values().next().value;
};
