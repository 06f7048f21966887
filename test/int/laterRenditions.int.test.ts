// Page images rendered after processing (src/app/laterRenditions.ts), on a real directory store
// with real poppler: a page poppler cannot render is set aside while the rest go on, and known
// afterwards (here every page is over its time limit: the limit is 1 ms). What is stored, and a
// deletion meanwhile, are in test/e2e/laterRenditions.e2e.test.ts.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderWhatCan } from '../../src/app/laterRenditions.ts';
import type { BlobStore } from '../../src/blobs/blobStore.ts';
import { openDirStore } from '../../src/blobs/openBlobStore.ts';
import { DEFAULT_RENDER_OPTIONS } from '../../src/pdf/renderPdf.ts';
import { RenderSlots } from '../../src/pdf/renderSlots.ts';
import type { Db } from '../../src/readTables/readTable.ts';
import { corpus } from '../support/corpus.ts';

const VERSION = '6a1f3e9c-2b4d-4e8f-9a7b-0c1d2e3f4a5b';
/** Nothing is stored here, so nothing asks the database (it is asked after a page is stored). */
const noDatabase: Db = {
  query: async () => {
    throw new Error('no database in this test');
  },
};

describe('page images rendered after processing', () => {
  let dir: string;
  let blobs: BlobStore;
  let checksum: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'later-renditions-'));
    blobs = await openDirStore(dir);
    const bytes = await readFile(corpus('vec_tracemonkey.pdf'));
    checksum = createHash('sha256').update(bytes).digest('hex');
    const incoming = await blobs.temporary();
    await pipeline(Readable.from([bytes]), incoming.stream);
    await blobs.commitOriginal(incoming.ref, checksum);
  });
  afterAll(async () => {
    await blobs?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const deps = (pageTimeoutMs: number) => ({
    db: noDatabase,
    blobs,
    render: {
      ...DEFAULT_RENDER_OPTIONS,
      pageTimeoutMs,
      slots: new RenderSlots({ capacity: 2 }),
    },
  });

  it('sets aside the pages it cannot render, one by one, and ends (every page over a 1 ms limit)', async () => {
    const skipped = await renderWhatCan(
      deps(1),
      { versionId: VERSION, checksum },
      [4, 5, 6],
      'max',
      'fill',
      AbortSignal.timeout(60_000),
    );
    expect(skipped.sort()).toEqual([4, 5, 6]);
    // asked again, they are known: no render at all (a limit that would pass changes nothing)
    const again = await renderWhatCan(
      deps(30_000),
      { versionId: VERSION, checksum },
      [4, 5],
      'max',
      'demand',
      AbortSignal.timeout(60_000),
    );
    expect(again.sort()).toEqual([4, 5]);
    expect(await blobs.openPageFile(VERSION, 4, 'max.jpg')).toBeNull();
  });
});
