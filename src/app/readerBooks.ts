// What the reader reads of a flipbook (src/reader/readerData.ts makes the page of it): the
// flipbook, the version it shows (the active one, or before anything is active the newest, never
// a preview's) and that version's ready pages; and a version's ready pages alone, and their text
// (the reader's text.json and /text, a preview's comparison).

import type { BlobStore } from '../blobs/blobStore.ts';
import { findReaderFlipbook, previewVersion, readerVersion } from '../queries/reader.ts';
import { listPages, type PageRow } from '../readTables/pages.ts';
import type { Db } from '../readTables/readTable.ts';

/**
 * The flipbook, the version shown and its pages; null when there is no such flipbook. A preview's
 * reader names its version (`previewOf`), shown only while it is a live preview's.
 */
export const readerBookRows = async (db: Db, flipbookId: string, previewOf?: string) => {
  const book = await findReaderFlipbook(db, flipbookId);
  if (!book) return null;
  if (book.status === 'archived') return { book, version: null, pages: [] };
  const version = previewOf
    ? await previewVersion(db, flipbookId, previewOf)
    : await readerVersion(db, flipbookId, book.active_version_id);
  // Nothing to show yet (a flipbook made by a preview has no version of its own): no book.
  if (!version) return null;
  const pages = await listPages(db, version.version_id);
  return { book, version, pages };
};

/** A version's ready pages, in order. */
export const readyPages = (db: Db, versionId: string) => listPages(db, versionId);

/** Every ready page's extracted text, in order. */
export const loadPageTexts = async (db: Db, blobs: BlobStore, versionId: string) => {
  const pages = await readyPages(db, versionId);
  const texts = await readTexts(blobs, versionId, pages);
  return pages.map((p) => ({ n: p.position, text: texts.get(p.position) ?? '' }));
};

/** 16 at a time: a bucket answers each with a request of its own. */
export const readTexts = async (blobs: BlobStore, versionId: string, pages: PageRow[]) => {
  const texts = new Map<number, string>();
  let next = 0;
  const reader = async () => {
    while (next < pages.length) {
      const page = pages[next++] as PageRow;
      const text = await blobs.readPageFile(versionId, page.position, 'text.txt').catch(() => null);
      texts.set(page.position, text ?? '');
    }
  };
  await Promise.all(Array.from({ length: Math.min(16, pages.length) }, reader));
  return texts;
};
