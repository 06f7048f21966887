// What the reader shows for a flipbook: its active version's pages, or, before anything is active,
// the newest version's pages ready so far. Public: the flipbook id in the URL is the share link.
import { readFile } from 'node:fs/promises';
import { listPages } from '../../projections/pages.ts';
import { findReaderFlipbook, readerVersion } from '../../projections/reader.ts';
import type { Db } from '../../projections/readTable.ts';
import type { BlobStore } from '../blobs/blobStore.ts';
import type { Urls } from '../http/present.ts';

export type ReaderPage = {
  position: number;
  width: number;
  height: number;
  min: string;
  mid: string;
  max: string;
  text: string;
};

export type ReaderBook = {
  id: string;
  title: string;
  description: string;
  url: string;
  versionId: string | null;
  status: 'pending' | 'processing' | 'done' | 'error' | null;
  pageCount: number;
  pages: ReaderPage[];
  download: string | null;
};

/**
 * The flipbook the reader shows; `archived` when its owner has withdrawn it (the page says so and
 * shows nothing of it); null when there is no such flipbook (never created, or deleted).
 */
export const loadReaderBook = async (
  db: Db,
  blobs: BlobStore,
  urls: Urls,
  flipbookId: string,
): Promise<ReaderBook | 'archived' | null> => {
  const book = await findReaderFlipbook(db, flipbookId);
  if (!book) return null;
  if (book.status === 'archived') return 'archived';

  const version = await readerVersion(db, flipbookId, book.active_version_id);
  const pages = version ? await listPages(db, version.version_id) : [];
  const texts = await Promise.all(
    pages.map((p) =>
      readFile(blobs.pagePath(version?.version_id ?? '', p.position, 'text.txt'), 'utf8').catch(
        () => '',
      ),
    ),
  );
  return {
    id: flipbookId,
    title: book.title,
    description: book.description,
    url: urls.reader(flipbookId),
    versionId: version?.version_id ?? null,
    status: version?.status ?? null,
    pageCount: version?.page_count ?? 0,
    pages: pages.map((p, i) => ({
      position: p.position,
      width: p.width,
      height: p.height,
      min: urls.page(version?.version_id ?? '', p.position, 'min'),
      mid: urls.page(version?.version_id ?? '', p.position, 'mid'),
      max: urls.page(version?.version_id ?? '', p.position, 'max'),
      text: texts[i] ?? '',
    })),
    download:
      book.download_allowed && version && pages.length > 0
        ? urls.original(version.version_id)
        : null,
  };
};
