// What the reader shows for a flipbook: its active version's pages, or, before anything is active,
// the newest version's pages ready so far. Public: the flipbook id in the URL is the share link.
// The page text is not part of it (the HTML would grow with the book): only the first pages'
// alternative text is; the whole text is read by `loadPageTexts`, for text.json and /text.

import { readerBookRows, readTexts } from '../app/readerBooks.ts';
import type { Urls } from '../app/urls.ts';
import type { BlobStore } from '../blobs/blobStore.ts';
import { frameAncestors } from '../domain/flipbook/access.ts';
import type { PageRow } from '../readTables/pages.ts';
import type { Db } from '../readTables/readTable.ts';
import type { LabelRun, SizeRun } from './client/layout.ts';
import { readDocumentSummary, scriptLanguage } from './documentSummary.ts';

export type ReaderBook = {
  id: string;
  title: string;
  description: string;
  url: string;
  versionId: string | null;
  status: 'pending' | 'processing' | 'done' | 'error' | null;
  pageCount: number;
  /** Pages ready, and their sizes as runs: a 500-page book of one size is one run. */
  ready: number;
  runs: SizeRun[];
  /** `<pageBase>text.json`, `<pageBase><position>/words.json`; null before any page is ready. */
  pageBase: string | null;
  /** `<imageBase><position>/mid.jpg` (the daemon's, or --blob-public-url's) */
  imageBase: string | null;
  /** every page's lines are in `<pageBase>lines.json` (the reader's text in place) */
  hasLines: boolean;
  /** The text of the first pages (index 0 is page 1), for their images' alternative text. */
  leadTexts: string[];
  download: string | null;
  /** the flipbook's own direction, else the one found in its PDF */
  direction: 'ltr' | 'rtl';
  /** the language of the book's text when its script tells it (Arabic, Hebrew...), else null */
  lang: string | null;
  /** the PDF's page labels, compactly (see labelRuns); [] when it has none */
  labelRuns: LabelRun[];
  /** page n's label, or its number */
  labelOf: (n: number) => string;
  /**
   * read at its public URLs (false: let in with a grant, at /f/:id as a member or at a share
   * link): a public reader has previews and search engines; a private one neither
   */
  isPublic: boolean;
  /** the sites that may frame the reader; [] for the default of its visibility (access.ts) */
  frameAncestors: string;
  /** its workspace counts its readers (analytics on) */
  counted: boolean;
  /** the workspace's branding: the key its stylesheet and logo are served under; none: null */
  brand: { key: string; logo: { width: number; height: number } | null } | null;
  /** a preview's reader (/p/<token>): which preview, and where its comparison is */
  preview?: ReaderPreview;
  /** where the reader sends its beacon and the token it holds, once the route gave one */
  beacon?: { url: string; token: string };
};

export type ReaderPreview = {
  name: string;
  versionId: string;
  /** the flipbook's own reader (where the version goes live when promoted) */
  liveUrl: string;
  /** the comparison with the live version, as JSON (src/reader/previewRoutes.ts) */
  compare: string;
};

/** How many pages' alternative text the HTML carries: the rest comes with text.json. */
export const LEAD_PAGES = 40;

/**
 * The flipbook the reader shows; `archived` when its owner has withdrawn it (the page says so and
 * shows nothing of it); null when there is no such flipbook (never created, or deleted).
 * `leadTexts` only when asked for (the status JSON has no use for them).
 */
export const loadReaderBook = async (
  db: Db,
  blobs: BlobStore,
  urls: Urls,
  flipbookId: string,
  withLeadTexts = true,
  /**
   * let in with a grant: the reader's own URL (a share link's, a preview's), whether it may
   * download, and for a preview the version it shows
   */
  granted?: { url: string; download: boolean; preview?: ReaderPreview },
): Promise<ReaderBook | 'archived' | null> => {
  const rows = await readerBookRows(db, flipbookId, granted?.preview?.versionId);
  if (!rows) return null;
  const { book, version, pages } = rows;
  if (book.status === 'archived') return 'archived';

  const lead = pages.filter((p) => p.position <= LEAD_PAGES);
  const texts =
    version && withLeadTexts ? await readTexts(blobs, version.version_id, lead) : new Map();
  // Written once the version is done: before that, the flipbook's own title and direction.
  const summary =
    version?.status === 'done' ? await readDocumentSummary(blobs, version.version_id) : null;
  const labels = summary?.labels ?? null;
  const direction = book.direction ?? summary?.direction ?? 'ltr';
  return {
    id: flipbookId,
    // The spec makes the file name the title when the upload gave none: the reader shows the
    // PDF's own title then, when it has one, or the file's name without its ".pdf".
    title: book.title_from_file
      ? summary?.title || book.title.replace(/\.pdf$/i, '') || book.title
      : book.title,
    direction,
    lang:
      direction === 'rtl'
        ? scriptLanguage([summary?.title ?? '', ...texts.values()].join(' ').slice(0, 50_000))
        : null,
    labelRuns: labels ? labelRuns(labels) : [],
    labelOf: (n) => labels?.[n - 1] ?? String(n),
    description: book.description,
    url: granted?.url ?? urls.reader(flipbookId),
    isPublic: !granted,
    frameAncestors: frameAncestors({
      visibility: granted ? 'links' : book.visibility,
      embedOrigins: book.embed_origins,
    }),
    counted: book.analytics_enabled,
    brand: book.brand_key
      ? {
          key: book.brand_key,
          logo:
            book.brand_logo_width && book.brand_logo_height
              ? { width: book.brand_logo_width, height: book.brand_logo_height }
              : null,
        }
      : null,
    versionId: version?.version_id ?? null,
    status: version?.status ?? null,
    pageCount: version?.page_count ?? 0,
    ready: pages.length,
    runs: pageRuns(pages),
    pageBase: version && pages.length > 0 ? urls.pages(version.version_id) : null,
    imageBase: version && pages.length > 0 ? urls.images(version.version_id) : null,
    hasLines: summary?.lines === true,
    leadTexts: lead.length
      ? Array.from({ length: Math.max(...lead.map((p) => p.position)) }, (_, i) =>
          String(texts.get(i + 1) ?? ''),
        )
      : [],
    ...(granted?.preview ? { preview: granted.preview } : {}),
    download:
      book.download_allowed && (granted?.download ?? true) && version && pages.length > 0
        ? urls.original(version.version_id)
        : null,
  };
};

export const pageRuns = (pages: Pick<PageRow, 'position' | 'width' | 'height'>[]) => {
  const runs: SizeRun[] = [];
  for (const p of pages) {
    const last = runs.at(-1);
    if (last && last[0] + last[1] === p.position && last[2] === p.width && last[3] === p.height) {
      last[1] += 1;
    } else {
      runs.push([p.position, 1, p.width, p.height]);
    }
  }
  return runs;
};

/** What the reader polls while a version is processing: small, whatever the book's length. */
export const readerStatus = (book: ReaderBook) => ({
  versionId: book.versionId,
  status: book.status,
  pageCount: book.pageCount,
  ready: book.ready,
  runs: book.runs,
});

/**
 * Page labels as runs, so a 500-page book's labels cost a few runs in the HTML: consecutive
 * pages numbered prefix+k, prefix+k+1, ... are one run; any other label is a run of one.
 * Labels equal to the page number make no run at all (the reader shows the number anyway).
 */
export const labelRuns = (labels: string[]): LabelRun[] => {
  const runs: LabelRun[] = [];
  labels.forEach((label, i) => {
    const n = i + 1;
    if (label === String(n)) return;
    const match = /^(.*?)(\d{1,9})$/.exec(label);
    const last = runs.at(-1);
    if (match && !match[2]?.startsWith('0')) {
      const prefix = match[1] ?? '';
      const number = Number(match[2]);
      if (
        last &&
        last.length === 4 &&
        last[0] + last[1] === n &&
        last[2] === prefix &&
        last[3] + last[1] === number
      ) {
        last[1] += 1;
        return;
      }
      runs.push([n, 1, prefix, number]);
      return;
    }
    runs.push([n, 1, label]);
  });
  return runs;
};
