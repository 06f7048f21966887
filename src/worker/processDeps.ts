// What processing stands on (./processVersion.ts, ./fillRenditions.ts, ./workerPool.ts): apart,
// so that processing and the filling of later renditions, which it queues, do not import each
// other.
import type { Clock } from '../app/clock.ts';
import type { BlobStore } from '../blobs/blobStore.ts';
import type { Logger } from '../log.ts';
import type { RenderOptions } from '../pdf/renderPdf.ts';
import type { Store } from '../store/store.ts';

export type ProcessDeps = {
  store: Store;
  blobs: BlobStore;
  log: Logger;
  render: RenderOptions;
  /** dates the events processing records */
  clock: Clock;
};
