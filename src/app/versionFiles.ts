// Removing a deleted version's files, for a version's deletion and a flipbook's.
import { originalInUse } from '../../projections/versions.ts';
import type { BlobStore } from '../blobs/blobStore.ts';
import type { Store } from '../store/store.ts';

/**
 * A deleted version's files: its pages, and its original unless another version (of any
 * flipbook) still uses the same bytes. The deletion is already recorded, so a failure here is
 * not the client's: a file left behind is the stopping render's, or the next start's sweep's.
 */
export const removeVersionFiles = async (
  store: Store,
  blobs: BlobStore,
  versionId: string,
  checksum: string,
) => {
  await blobs.removePages(versionId).catch(() => {});
  // Under the originals lock: an upload of the same bytes, between committing the file (which it
  // finds already there) and appending its version, would otherwise lose it to us.
  await store.locks
    .originals(async () => {
      if (!(await originalInUse(store.db, checksum)))
        await blobs.removeOriginal(checksum).catch(() => {});
    })
    .catch(() => {});
};
