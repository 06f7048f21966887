// What the reader reads of a flipbook (src/reader/readerData.ts makes the page of it): the
// flipbook, the version it shows (the active one, or before anything is active the newest, never
// a preview's) and that version's ready pages; and a version's ready pages alone (its text).

import { findReaderFlipbook, readerVersion } from '../queries/reader.ts';
import { listPages } from '../readTables/pages.ts';
import type { Db } from '../readTables/readTable.ts';

/** The flipbook, the version shown and its pages; null when there is no such flipbook. */
export const readerBookRows = async (db: Db, flipbookId: string) => {
  const book = await findReaderFlipbook(db, flipbookId);
  if (!book) return null;
  if (book.status === 'archived') return { book, version: null, pages: [] };
  const version = await readerVersion(db, flipbookId, book.active_version_id);
  // Nothing to show yet (a flipbook made by a preview has no version of its own): no book.
  if (!version) return null;
  const pages = await listPages(db, version.version_id);
  return { book, version, pages };
};

/** A version's ready pages, in order. */
export const readyPages = (db: Db, versionId: string) => listPages(db, versionId);
