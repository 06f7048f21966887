// Removing files no version uses: a deleted version's (a version's deletion and a flipbook's), and
// the original of an upload that was refused after it was stored.

import type { BlobStore } from '../blobs/blobStore.ts';
import { originalInUse, type VersionRow } from '../readTables/versions.ts';
import { forgetVersionTiles } from '../state/tileCache.ts';
import type { Store } from '../store/store.ts';
import { isDatabaseUnavailable } from '../store/unavailable.ts';
import { stopLaterRenditions } from './laterRenditions.ts';

/**
 * A deleted version's files: its pages, and its original (and the PDF made of it, when it was
 * not one) unless another version (of any flipbook) still uses the same bytes. The deletion is already recorded, so a failure here is
 * not the client's: a file left behind is the stopping render's, or the next start's sweep's.
 */
export const removeVersionFiles = async (
  store: Store,
  blobs: BlobStore,
  versionId: string,
  files: Pick<VersionRow, 'checksum' | 'pdf_checksum'>,
  /** false: leave the original to the sweep (the database is away: asking again only waits) */
  original = true,
) => {
  // This process's renders of its largest images first: none may write after the removal.
  await stopLaterRenditions(versionId);
  await blobs.removePages(versionId).catch(() => {});
  // Its tiles' rows in the cache's count (one left by a failure here goes with the next eviction pass).
  await forgetVersionTiles(store.db, versionId).catch(() => {});
  if (!original) return 'left';
  const made = files.pdf_checksum !== null && files.pdf_checksum !== files.checksum;
  if (made && (await dropUnusedOriginal(store, blobs, files.pdf_checksum as string)) === 'left')
    return 'left';
  return dropUnusedOriginal(store, blobs, files.checksum);
};

/**
 * Removes an original unless a version still uses it. Under the originals lock: an upload of the
 * same bytes, between committing the file (which it finds already there) and appending its
 * version, would otherwise lose it to us. Best effort: what stays is the start-up sweep's.
 */
export const dropUnusedOriginal = (
  store: Store,
  blobs: BlobStore,
  checksum: string,
): Promise<'done' | 'left'> =>
  store.locks
    .originals(async () => {
      if (!(await originalInUse(store.db, checksum)))
        await blobs.removeOriginal(checksum).catch(() => {});
      return 'done' as const;
    })
    .catch(() => 'left' as const);

/**
 * Runs `work` (which stores the original, then records the version); if it fails after the
 * original was stored (the flipbook was deleted meanwhile, say), the refused upload leaves no file.
 */
export const withStoredOriginal = async <T>(
  store: Store,
  blobs: BlobStore,
  checksum: string,
  work: (stored: () => void) => Promise<T>,
): Promise<T> => {
  let committed = false;
  try {
    return await work(() => {
      committed = true;
    });
  } catch (error) {
    // (after work's locks are released: the originals lock is taken exclusively here). Not when
    // the database is away: the request's answer must not wait for it again; the sweep removes
    // an original no version uses.
    if (committed && !isDatabaseUnavailable(error))
      await dropUnusedOriginal(store, blobs, checksum);
    throw error;
  }
};
