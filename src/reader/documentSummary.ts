// What the reader's HTML needs of a version's document.json (docs/processing.md, "Document
// structure"): the PDF's own title, its reading direction and its page labels. The file can be large (10,000 bookmarks, a list of links for every page), so it
// is read once per version and kept small: a finished version's document.json never changes.
import type { BlobStore } from '../blobs/blobStore.ts';

export type DocumentSummary = {
  title: string | null;
  direction: 'ltr' | 'rtl';
  labels: string[] | null;
  /** its lines.json has lines to show (a version processed before it, or a scan, has none) */
  lines: boolean;
};

const CACHE_SIZE = 200;
const cache = new Map<string, DocumentSummary | null>();

/** null when the version has no document.json (processed before it existed) or it is unreadable. */
export const readDocumentSummary = async (
  blobs: BlobStore,
  versionId: string,
): Promise<DocumentSummary | null> => {
  if (cache.has(versionId)) return cache.get(versionId) ?? null;
  const summary = await blobs.readDocument(versionId).then(
    (text) => (text === null ? null : summarize(JSON.parse(text))),
    () => null,
  );
  // A missing file is not kept: it may be there on the next request (written just after).
  if (summary) {
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    cache.set(versionId, summary);
  }
  return summary;
};

const summarize = (doc: unknown): DocumentSummary | null => {
  if (!doc || typeof doc !== 'object') return null;
  const d = doc as Record<string, unknown>;
  const labels = Array.isArray(d.labels) ? d.labels.map((l) => String(l)) : null;
  return {
    title: typeof d.title === 'string' ? usableTitle(d.title) : null,
    direction: d.direction === 'rtl' ? 'rtl' : 'ltr',
    labels,
    lines: typeof d.lines === 'number' && d.lines > 0,
  };
};

/**
 * The language a right-to-left script names when it is the only one of its family: Hebrew
 * letters mean Hebrew; Arabic letters most often Arabic (Persian and Urdu share them, and are
 * told by their own letters).
 */
export const scriptLanguage = (text: string): string | null => {
  const count = (re: RegExp) => (text.match(re) ?? []).length;
  const hebrew = count(/[\u0590-\u05ff]/g);
  const arabic = count(/[\u0600-\u06ff\u0750-\u077f\ufb50-\ufdff\ufe70-\ufeff]/g);
  if (hebrew === 0 && arabic === 0) return null;
  if (hebrew > arabic) return 'he';
  if (count(/[\u0679\u0688\u0691\u06ba\u06be\u06c1\u06d2]/g) > 0) return 'ur';
  if (count(/[\u067e\u0686\u0698\u06af\u06cc\u06a9]/g) > 0) return 'fa';
  return 'ar';
};

/**
 * The PDF's own title, when it is one a reader should see: without text-direction controls
 * (U+202A-E, U+2066-9, U+200E/F: "Invoice \u202eFDP.exe" must not read "Invoice exe.PDF", and a
 * title the API would refuse is not shown either), and not one of the things writers put there
 * instead of a title: a file name or path ("C:\Users\bob\final.pdf", "Q3 report.docx"), the
 * application's "Microsoft Word - …", a bare number, "Slide 1".
 */
export const usableTitle = (raw: string): string | null => {
  const title = raw
    .replace(/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (!title) return null;
  if (/^microsoft (word|powerpoint|excel) - /i.test(title)) return null;
  if (/^[a-z]:\\|^\\\\|^\/|\\/i.test(title)) return null;
  if (
    /\.(pdf|docx?|pptx?|xlsx?|odt|odp|ods|rtf|txt|tex|dvi|ps|indd|qxp|pages|key|numbers|psd|ai|eps)$/i.test(
      title,
    )
  ) {
    return null;
  }
  if (/^\d+$/.test(title) || /^(slide|page|document|presentation|book)\s*\d*$/i.test(title))
    return null;
  return title;
};
