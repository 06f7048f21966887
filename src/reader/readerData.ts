// What the reader shows for a flipbook: its active version's pages, or, before anything is active,
// the newest version's pages ready so far. Public: the flipbook id in the URL is the share link.
import { readFile } from 'node:fs/promises';
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

export const loadReaderBook = async (
  db: Db,
  blobs: BlobStore,
  urls: Urls,
  flipbookId: string,
): Promise<ReaderBook | null> => {
  const { rows } = await db.query<{
    title: string;
    description: string;
    status: string;
    active_version_id: string | null;
    download_allowed: boolean;
  }>(
    `SELECT title, description, status, active_version_id, download_allowed
     FROM flipbooks WHERE flipbook_id = $1`,
    [flipbookId],
  );
  const book = rows[0];
  if (!book || book.status === 'archived') return null;

  const version = (
    await db.query<{ version_id: string; status: ReaderBook['status']; page_count: number }>(
      `SELECT version_id, status, page_count FROM versions WHERE flipbook_id = $1
       ORDER BY (version_id = $2) DESC, number DESC LIMIT 1`,
      [flipbookId, book.active_version_id],
    )
  ).rows[0];
  const pages = version
    ? (
        await db.query<{ position: number; width: number; height: number }>(
          'SELECT position, width, height FROM pages WHERE version_id = $1 ORDER BY position',
          [version.version_id],
        )
      ).rows
    : [];
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
