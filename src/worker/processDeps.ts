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
  /** how uploads that are not PDFs are made into PDFs (./convertVersion.ts); absent: defaults */
  convert?: ConvertOptions;
};

/** How processing converts (`serve` and `worker`: `--convert-timeout`, `--no-convert`). */
export type ConvertOptions = {
  /** false: this machine converts no office document (`--no-convert`, or no LibreOffice) */
  office: boolean;
  timeoutMs: number;
  /** LibreOffice's address-space limit */
  memoryMb: number;
};

export const DEFAULT_CONVERT: ConvertOptions = { office: true, timeoutMs: 120_000, memoryMb: 1536 };
