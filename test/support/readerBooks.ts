// Flipbooks of any length for the reader's tests, made directly in the store (events, then page
// files), so a test does not wait for rendering: one small JPEG copied for every page, and, when
// asked, a page of made-up text per page (varied words, so that compression cannot cheat).
import { randomUUID } from 'node:crypto';
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { runFlipbookCommand } from '../../src/app/commands.ts';
import { openBlobStore } from '../../src/blobs/openBlobStore.ts';
import { openStore } from '../../src/store/store.ts';
import type { ApiFixture } from './apiFixture.ts';
import { markDone } from './apiHelpers.ts';
import { createInStore } from './inStore.ts';
import { TEST_METADATA } from './metadata.ts';

export type MadeBook = {
  url: string;
  flipbookId: string;
  versionId: string;
  /** Renders the pages not ready yet and marks the version done (for `ready` books). */
  finish: () => Promise<void>;
};

/** A word found on one page only: `uniqueWord(n)` is on page n of a book made `withText`. */
export const uniqueWord = (n: number) => `quokkamarmalade${n}`;

/** About 1,500 characters of words from a 2,000-word made-up vocabulary, fixed per page. */
export const pageText = (n: number) => {
  let seed = n * 7919;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed;
  };
  const word = () => {
    const w = next() % 2000;
    return (w * 2654435761).toString(36).slice(0, 3 + (w % 7));
  };
  const paragraphs = Array.from({ length: 4 }, () => Array.from({ length: 45 }, word).join(' '));
  paragraphs[2] = `${paragraphs[2]} ${uniqueWord(n)}`;
  return paragraphs.join('\n\n');
};

export const makeBook = async (
  fx: ApiFixture,
  pages: number,
  options: { withText?: boolean; ready?: number } = {},
): Promise<MadeBook> => {
  const ready = options.ready ?? pages;
  const dataDir = fx.storeArgs[1] as string;
  const flipbookId = randomUUID();
  const versionId = randomUUID();
  const blobs = await openBlobStore({ blobDir: join(dataDir, 'blobs') });
  const target = await blobs.renderTarget(versionId, 1);
  const attempt = target.dir;
  const sample = join(attempt, 'sample.jpg');
  // The largest image as large as the reader expects it (2000 px high for these 612 × 792 pt
  // pages): a smaller one is a stand-in it asks for again (src/reader/client/upgrade.ts).
  const largest = join(attempt, 'largest.jpg');
  const writePages = async (from: number, to: number) => {
    for (let n = from; n <= to; n++) {
      await mkdir(join(attempt, String(n)), { recursive: true });
      await copyFile(largest, join(attempt, String(n), 'max.jpg'));
      for (const file of ['mid.jpg', 'min.jpg'])
        await copyFile(sample, join(attempt, String(n), file));
      await target.publishPage(n);
      if (options.withText) await target.writeFile(`${n}/text.txt`, pageText(n));
    }
  };
  const withStore = async (work: (store: Awaited<ReturnType<typeof openStore>>) => unknown) => {
    const store = await openStore({ dataDir });
    try {
      await work(store);
    } finally {
      await store.close();
    }
  };
  const sizes = (from: number, to: number) =>
    Array.from({ length: to - from + 1 }, (_, i) => ({
      pageId: randomUUID(),
      position: from + i,
      width: 612,
      height: 792,
    }));

  await withStore(async (store) => {
    await createInStore(store, {
      flipbookId,
      versionId,
      workspaceId: fx.workspaceId,
      title: `${pages} pages`,
      slug: 'book',
    });
    await runFlipbookCommand(
      store,
      flipbookId,
      {
        type: 'StartProcessing',
        data: { versionId, attempt: 1, pageCount: pages, now: new Date() },
      },
      TEST_METADATA,
    );
    await target.activate();
    await sharp({ create: { width: 1000, height: 1294, channels: 3, background: '#fafafa' } })
      .jpeg()
      .toFile(sample);
    await sharp({ create: { width: 1545, height: 2000, channels: 3, background: '#fafafa' } })
      .jpeg()
      .toFile(largest);
    await writePages(1, ready);
    if (ready === pages) {
      await markDone(store, flipbookId, versionId, pages);
    } else if (ready > 0) {
      await runFlipbookCommand(
        store,
        flipbookId,
        {
          type: 'RecordRenderedPages',
          data: { versionId, pages: sizes(1, ready), now: new Date() },
        },
        TEST_METADATA,
      );
    }
  });

  return {
    url: `${fx.daemon.url}/f/${flipbookId}`,
    flipbookId,
    versionId,
    finish: async () => {
      await writePages(ready + 1, pages);
      await withStore((store) => markDone(store, flipbookId, versionId, pages));
    },
  };
};
