// A preview compared with the version that is live (issue "Review a PDF change like a code
// change"), from what processing already made: each page's text and its images. Pages are aligned
// (src/domain/pageAlignment.ts), each aligned pair is compared by pixels at the 1000 px rendition
// (src/pdf/pageDiff.ts), and for each changed page the page before (as it was: the live version
// may be replaced or deleted later) and a small marked image are kept beside the preview's own
// pages. The result is the preview's compare.json; its counts go into PreviewCompared
// (src/worker/comparePreviews.ts records them).
import type { BlobStore } from '../blobs/blobStore.ts';
import { BlobStoreUnavailable } from '../domain/errors.ts';
import {
  alignPages,
  type Comparison,
  type PageSignature,
  type Region,
} from '../domain/pageAlignment.ts';
import { changedRegions, imageHash, markedImage } from '../pdf/pageDiff.ts';
import type { Db } from '../readTables/readTable.ts';
import { loadPageTexts } from './readerBooks.ts';

export type ComparisonDeps = { db: Db; blobs: BlobStore };

/** Fewer letters than this and a page's image hash is needed to align it (as pageAlignment says). */
const NEEDS_IMAGE = 24;
/** Pages compared at once: each holds two decoded images of about a megapixel. */
const AT_ONCE = 4;

const bytesOf = async (
  blobs: BlobStore,
  versionId: string,
  position: number,
  file: 'mid.jpg' | 'min.jpg',
) => {
  const bytes = await blobs.readPageBytes(versionId, position, file);
  // processing made it: gone now is the store's fault (a 503 and a retry), not the document's
  if (!bytes)
    throw new BlobStoreUnavailable('get', new Error(`page ${position}'s ${file} is missing`));
  return bytes;
};

const signatures = async (deps: ComparisonDeps, versionId: string): Promise<PageSignature[]> => {
  const pages = await loadPageTexts(deps.db, deps.blobs, versionId);
  return inBatches(pages, async ({ n, text }) => ({
    text,
    image:
      text.replace(/\s/g, '').length < NEEDS_IMAGE
        ? await imageHash(await bytesOf(deps.blobs, versionId, n, 'min.jpg'))
        : '',
  }));
};

const inBatches = async <T, R>(items: T[], work: (item: T) => Promise<R>): Promise<R[]> => {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, items.length) }, worker));
  return results;
};

const folded = (text = '') => text.replace(/\s+/g, ' ').trim();

/** What a preview has when nothing was live to compare it with. */
export const nothingToCompare = (pagesAfter: number, failure: string): Comparison => ({
  againstVersionId: null,
  pagesBefore: 0,
  pagesAfter,
  changed: [],
  inserted: [],
  removed: [],
  moved: [],
  unchanged: 0,
  failure,
});

/**
 * Compares the preview's version with `againstVersionId` (both done) and keeps what a reviewer
 * is shown: compare.json and, for each changed page, its before images and its marked image.
 * Written before the event that says it is made, so a kill in between computes it again.
 */
export const comparePreview = async (
  deps: ComparisonDeps,
  previewVersionId: string,
  againstVersionId: string,
  signal?: AbortSignal,
): Promise<Comparison> => {
  const [before, after] = await Promise.all([
    signatures(deps, againstVersionId),
    signatures(deps, previewVersionId),
  ]);
  signal?.throwIfAborted();
  const alignment = alignPages(before, after);
  const compared = await inBatches(alignment.pairs, async (pair) => {
    signal?.throwIfAborted();
    const [was, now] = await Promise.all([
      bytesOf(deps.blobs, againstVersionId, pair.before, 'mid.jpg'),
      bytesOf(deps.blobs, previewVersionId, pair.after, 'mid.jpg'),
    ]);
    const textDiffers =
      folded(before[pair.before - 1]?.text) !== folded(after[pair.after - 1]?.text);
    const regions: Region[] = await changedRegions(was, now, { textDiffers });
    if (regions.length > 0)
      await keepBefore(deps.blobs, previewVersionId, againstVersionId, pair, was, regions);
    return { ...pair, regions };
  });
  const changed = compared.filter((pair) => pair.regions.length > 0);
  const comparison: Comparison = {
    againstVersionId,
    pagesBefore: before.length,
    pagesAfter: after.length,
    changed,
    inserted: alignment.inserted,
    removed: alignment.removed,
    moved: alignment.moved,
    unchanged: compared.length - changed.length,
  };
  await deps.blobs.writeComparison(previewVersionId, JSON.stringify(comparison));
  return comparison;
};

/** A changed page's before images (as they were) and its small image with the changes marked. */
const keepBefore = async (
  blobs: BlobStore,
  previewVersionId: string,
  againstVersionId: string,
  pair: { before: number; after: number },
  was: Buffer,
  regions: Region[],
) => {
  const [wasSmall, nowSmall] = await Promise.all([
    bytesOf(blobs, againstVersionId, pair.before, 'min.jpg'),
    bytesOf(blobs, previewVersionId, pair.after, 'min.jpg'),
  ]);
  await Promise.all([
    blobs.writePageFile(previewVersionId, pair.after, 'before.jpg', was),
    blobs.writePageFile(previewVersionId, pair.after, 'before-min.jpg', wasSmall),
    blobs.writePageFile(
      previewVersionId,
      pair.after,
      'diff.jpg',
      await markedImage(nowSmall, regions),
    ),
  ]);
};
