// What the API's use cases stand on (./flipbooks.ts, ./uploadPipeline.ts, ./manageFlipbooks.ts...).
import type { BlobStore } from '../blobs/blobStore.ts';
import type { Store } from '../store/store.ts';
import type { Clock } from './clock.ts';
import type { Urls } from './urls.ts';

/** What the flipbook use cases stand on; the clock dates every event they record. */
export type ApiDeps = {
  store: Store;
  blobs: BlobStore;
  urls: Urls;
  clock: Clock;
  /**
   * whether office documents are taken (processing converts them with LibreOffice); false with
   * `--no-convert` or without LibreOffice on the machine. Absent: taken.
   */
  convertsOffice?: boolean;
};
