// What the reader knows of the book: the data block the page carries (page sizes as runs, label
// runs, reading direction, URLs), what it fetches later when first needed (the page text, the
// document's contents and links, a page's word boxes), and what the status JSON adds while the
// version is still processing.
import { altText } from './altText.js';
import { expandLabels, labelOf } from './layout.js';

export const createBook = (data) => {
  /** Ready pages by number: { n, w, h }; sizes come as runs of equal pages. */
  const pages = new Map();
  const addRuns = (runs) => {
    for (const [first, count, w, h] of runs) {
      for (let n = first; n < first + count; n++) pages.set(n, { n, w, h });
    }
  };
  addRuns(data.runs);

  const alts = new Map(data.alts.map((alt, i) => [i + 1, alt]));
  const labels = expandLabels(data.labels);

  const book = {
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
    // max.jpg from the daemon, which renders it when first asked for (a CDN would answer 404).
    url: (n, file) =>
      `${file.endsWith('.jpg') && file !== 'max.jpg' ? data.imageBase : data.pageBase}${n}/${file}`,
  };

  /** Every ready page's text (a Map), fetched once, when search or an alt text first needs it. */
  let texts = null;
  book.texts = () => {
    texts ??= fetchJson(data.text)
      .then((body) => {
        const map = new Map(body.pages.map((p) => [p.n, p.text]));
        for (const n of pages.keys()) alts.set(n, altText(book.label(n), map.get(n) ?? ''));
        return map;
      })
      .catch(() => {
        texts = null; // try again next time
        return new Map();
      });
    return texts;
  };
  book.forgetTexts = () => {
    texts = null;
  };

  /**
   * The document's structure (contents, links): written once the version is done, so a reader
   * opened while it was processing asks for it once the status says done (documentReady).
   * Absent for versions processed before it existed.
   */
  let structure = null;
  book.structure = () => {
    if (!data.document) return Promise.resolve({ outline: [], links: [], pending: true });
    structure ??= fetchJson(data.document).catch(() => {
      structure = null; // try again next time
      return { outline: [], links: [] };
    });
    return structure;
  };
  book.documentReady = () => {
    data.document = `${data.pageBase}document.json`;
    structure = null;
  };

  /**
   * A page's alternative text when the page did not bring it (past the first pages): its own
   * text.txt, a few hundred bytes, rather than every page's text at once.
   */
  const altRequests = new Map();
  book.alt = (n) => {
    if (alts.has(n)) return Promise.resolve(alts.get(n));
    if (!altRequests.has(n)) {
      altRequests.set(
        n,
        fetch(book.url(n, 'text.txt'))
          .then((r) => (r.ok ? r.text() : ''))
          .catch(() => '')
          .then((text) => {
            if (!alts.has(n)) alts.set(n, altText(book.label(n), text));
            return alts.get(n);
          }),
      );
    }
    return altRequests.get(n);
  };

  /** A page's words with their boxes, for search highlights; [] when they cannot be had. */
  const words = new Map();
  book.words = (n) => {
    if (!words.has(n)) {
      words.set(
        n,
        fetchJson(book.url(n, 'words.json'))
          .then((body) => body.words)
          .catch(() => {
            words.delete(n);
            return [];
          }),
      );
    }
    return words.get(n);
  };

  return book;
};

const fetchJson = (url) =>
  fetch(url).then((r) => (r.ok ? r.json() : Promise.reject(new Error(String(r.status)))));

const nearest = (pages, n) => {
  for (let d = 1; d < 50; d++) {
    const page = pages.get(n - d) ?? pages.get(n + d);
    if (page) return page;
  }
  return pages.values().next().value;
};
