// Which blob store a command runs on: a directory (the default, <data-dir>/blobs or --blob-dir)
// or an S3-compatible bucket (--blob-url s3://bucket[/prefix]).
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlobStoreUnavailable } from '../domain/errors.ts';
import { defaultBlobDir } from '../store/location.ts';
import { hostOf, NotAvailable, networkReason, type Waiting, waitAtStart } from '../waitAtStart.ts';
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
  /** the database's clock minus this machine's (src/store/databaseTime.ts): requests are signed by it */
  clockOffsetMs?: number;
};

/**
 * Opens the store and, for a bucket, asks it: a wrong bucket, endpoint or key is said at start,
 * in words, instead of every upload and render failing later. A bucket not there yet (a name that
 * does not resolve, a refused connection, no answer, a 5xx, a bucket not made yet) is asked again
 * for `patienceMs` (src/waitAtStart.ts); a refusal waiting cannot mend (a key it does not know,
 * no right to list) ends the start at once.
 */
export const openCheckedBlobStore = async (
  options: BlobOptions,
  waiting: { patienceMs?: number; onWaiting?: (waiting: Waiting) => void } = {},
): Promise<BlobStore> => {
  const store = await openBlobStore(options);
  if (store.kind === 's3') {
    const endpoint = options.s3Endpoint ?? process.env.AWS_ENDPOINT_URL_S3;
    const at = endpoint
      ? ` at ${hostOf(endpoint, endpoint.startsWith('https:') ? '443' : '80') ?? endpoint}`
      : '';
    try {
      await waitAtStart({
        what: `the bucket ${store.describe}${at}`,
        attempt: () => store.check(),
        worthWaiting: bucketReason,
        describe: (error) => (error instanceof BlobStoreUnavailable ? error.detail : String(error)),
        patienceMs: waiting.patienceMs ?? 0,
        ...(waiting.onWaiting ? { onWaiting: waiting.onWaiting } : {}),
      });
    } catch (error) {
      await store.close();
      throw error instanceof NotAvailable
        ? new Error(error.message, { cause: error.cause })
        : error;
    }
  }
  return store;
};

/** Why the bucket could not be listed, in words, when waiting may mend it; else null. */
const bucketReason = (error: unknown): string | null => {
  const cause = (error instanceof BlobStoreUnavailable ? error.cause : error) as {
    name?: string;
    code?: string;
    message?: string;
    $metadata?: { httpStatusCode?: number };
  } | null;
  const network = networkReason(cause?.code);
  if (network) return network;
  if (cause?.code === 'ETIMEDOUT' || cause?.name === 'TimeoutError') {
    return `no answer in time (${cause.message ?? 'timed out'})`;
  }
  // Often made by another container once the store runs (compose's `mc mb`).
  if (cause?.name === 'NoSuchBucket') return 'the bucket does not exist (NoSuchBucket)';
  const status = cause?.$metadata?.httpStatusCode;
  if (status !== undefined && (status >= 500 || status === 429)) {
    return `it answered HTTP ${status} (${cause?.name ?? 'an error'})`;
  }
  return null;
};

export const openBlobStore = (options: BlobOptions): Promise<BlobStore> => {
  if (!options.blobUrl) return openDirStore(options.blobDir ?? defaultBlobDir(options.dataDir));
  if (options.blobDir) throw new Error('--blob-dir and --blob-url name two stores: give one');
  return openS3Store({
    url: options.blobUrl,
    ...(options.s3Endpoint ? { endpoint: options.s3Endpoint } : {}),
    pathStyle: options.s3PathStyle ?? false,
    limits: bucketLimits(options.s3Timeout),
    ...(options.clockOffsetMs ? { clockOffsetMs: options.clockOffsetMs } : {}),
    // Renders and local copies of originals: beside the embedded database if there is one.
    scratchDir: options.dataDir ? join(options.dataDir, 'scratch') : join(tmpdir(), 'flipbook'),
  });
};
