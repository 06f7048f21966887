// Which blob store a command runs on: a directory (the default, <data-dir>/blobs or --blob-dir)
// or an S3-compatible bucket (--blob-url s3://bucket[/prefix]).
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlobStoreUnavailable } from '../domain/errors.ts';
import { defaultBlobDir } from '../store/location.ts';
import type { BlobStore } from './blobStore.ts';
import { bucketLimits } from './bucketLimits.ts';
import { openDirObjects } from './dirObjects.ts';
import { openS3Objects, type S3StoreOptions } from './s3Objects.ts';
import { blobStoreOn } from './storeOperations.ts';

export const openDirStore = async (dir: string) => blobStoreOn(await openDirObjects(dir));
export const openS3Store = async (options: S3StoreOptions) =>
  blobStoreOn(await openS3Objects(options));

export type BlobOptions = {
  dataDir?: string;
  blobDir?: string;
  blobUrl?: string;
  s3Endpoint?: string;
  s3PathStyle?: boolean;
  /** --s3-timeout: seconds for each of connect, socket wait and silence (./bucketLimits.ts) */
  s3Timeout?: number;
};

/**
 * Opens the store and, for a bucket, asks it once: a wrong bucket, endpoint or key is said at
 * start, in words, instead of every upload and render failing later.
 */
export const openCheckedBlobStore = async (options: BlobOptions): Promise<BlobStore> => {
  const store = await openBlobStore(options);
  if (store.kind === 's3') {
    try {
      await store.check();
    } catch (error) {
      await store.close();
      const detail = error instanceof BlobStoreUnavailable ? error.detail : String(error);
      throw new Error(`the blob store ${store.describe} is unavailable: ${detail}`);
    }
  }
  return store;
};

export const openBlobStore = (options: BlobOptions): Promise<BlobStore> => {
  if (!options.blobUrl) return openDirStore(options.blobDir ?? defaultBlobDir(options.dataDir));
  if (options.blobDir) throw new Error('--blob-dir and --blob-url name two stores: give one');
  return openS3Store({
    url: options.blobUrl,
    ...(options.s3Endpoint ? { endpoint: options.s3Endpoint } : {}),
    pathStyle: options.s3PathStyle ?? false,
    limits: bucketLimits(options.s3Timeout),
    // Renders and local copies of originals: beside the embedded database if there is one.
    scratchDir: options.dataDir ? join(options.dataDir, 'scratch') : join(tmpdir(), 'flipbook'),
  });
};
