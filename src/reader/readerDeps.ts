// What the reader's routes stand on (./readerRoutes.ts, ./assetRoutes.ts).

import type { Analytics } from '../app/analytics/analytics.ts';
import type { AccessDeps } from '../app/readerAccess.ts';
import type { Urls } from '../app/urls.ts';
import type { BlobStore } from '../blobs/blobStore.ts';
import type { Db } from '../readTables/readTable.ts';

export type ReaderDeps = {
  /** reader analytics (src/app/analytics): the token its page carries; absent: none counted */
  analytics?: Pick<Analytics, 'tokenFor'>;
  db: Db;
  blobs: BlobStore;
  urls: Urls;
  access: AccessDeps;
  trustProxy?: boolean;
};
