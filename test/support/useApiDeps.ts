// The use cases' dependencies (src/app/apiDeps.ts) in process for the suite it is called in: a
// test store of the kind given, a blob directory of its own, the test's clock, and
// https://books.example for the links they make; opened before the suite's first test, closed
// and removed after its last.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiDeps } from '../../src/app/apiDeps.ts';
import type { Clock } from '../../src/app/clock.ts';
import { urlsFor } from '../../src/app/urls.ts';
import { openDirStore } from '../../src/blobs/openBlobStore.ts';
import { forSuite } from './forSuite.ts';
import { openTestStore, type StoreKind } from './stores.ts';

export const useApiDeps = (kind: StoreKind, clock: Clock): ApiDeps =>
  forSuite(
    `the ${kind} store`,
    async () => {
      const blobDir = await mkdtemp(join(tmpdir(), 'flipbook-use-cases-'));
      const [store, blobs] = await Promise.all([openTestStore(kind), openDirStore(blobDir)]);
      return { store, blobs, clock, urls: urlsFor(() => 'https://books.example'), blobDir };
    },
    async ({ store, blobs, blobDir }) => {
      await store.close();
      await blobs.close();
      await rm(blobDir, { recursive: true, force: true });
    },
  );
