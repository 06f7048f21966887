// A 500-page flipbook opens like a 5-page one, and flipping through it does not grow the page:
// only the pages near the current one are ever in the DOM or fetched. The books are made
// directly in the store (events, then page files), so the test does not wait for rendering.
import { randomUUID } from 'node:crypto';
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFlipbookCommand } from '../../src/app/commands.ts';
import { openBlobStore } from '../../src/blobs/blobStore.ts';
import { openStore } from '../../src/store/store.ts';
import { type ApiFixture, startApi } from '../support/apiFixture.ts';
import { markDone } from '../support/apiHelpers.ts';
import { TEST_METADATA } from '../support/metadata.ts';

const makeBook = async (fx: ApiFixture, pages: number) => {
  const dataDir = fx.storeArgs[1] as string;
  const store = await openStore({ dataDir });
  const blobs = await openBlobStore(join(dataDir, 'blobs'));
  const flipbookId = randomUUID();
  const versionId = randomUUID();
  try {
    await runFlipbookCommand(
      store,
      flipbookId,
      {
        type: 'CreateFlipbook',
        data: {
          flipbookId,
          workspaceId: fx.workspaceId,
          title: `${pages} pages`,
          slug: 'book',
          description: '',
          versionId,
          file: {
            name: 'b.pdf',
            type: 'pdf',
            mimeType: 'application/pdf',
            size: 1,
            checksum: 'ab'.repeat(32),
          },
          now: new Date(),
        },
      },
      TEST_METADATA,
    );
    await runFlipbookCommand(
      store,
      flipbookId,
      {
        type: 'StartProcessing',
        data: { versionId, attempt: 1, pageCount: pages, now: new Date() },
      },
      TEST_METADATA,
    );
    // One small image per rendition, copied for every page.
    const attempt = blobs.attemptDir(versionId, 1);
    await blobs.makeCurrent(versionId, attempt);
    const sample = join(attempt, 'sample.jpg');
    await sharp({ create: { width: 1000, height: 1294, channels: 3, background: '#fafafa' } })
      .jpeg()
      .toFile(sample);
    for (let n = 1; n <= pages; n++) {
      await mkdir(join(attempt, String(n)), { recursive: true });
      for (const file of ['max.jpg', 'mid.jpg', 'min.jpg'])
        await copyFile(sample, join(attempt, String(n), file));
    }
    await markDone(store, flipbookId, versionId, pages);
  } finally {
    await store.close();
  }
  return `${fx.daemon.url}/f/${flipbookId}`;
};

describe('the reader on a big flipbook', () => {
  let fx: ApiFixture;
  let browser: Browser;
  let small: string;
  let big: string;

  beforeAll(async () => {
    [fx, browser] = await Promise.all([
      startApi('embedded', ['--rate-limit', '0']),
      chromium.launch({
        executablePath: '/usr/bin/chromium',
        args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
      }),
    ]);
    small = await makeBook(fx, 5);
    big = await makeBook(fx, 500);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await fx?.stop();
  });

  const open = async (url: string) => {
    const page = await browser.newPage({
      viewport: { width: 1366, height: 800 },
      reducedMotion: 'reduce',
    });
    const images: string[] = [];
    page.on('request', (r) => r.url().includes('/files/pages/') && images.push(r.url()));
    await page.goto(url);
    // A string: this project's TypeScript has no DOM types, the expression runs in the page.
    await page.waitForFunction(
      "(() => { const img = document.querySelector('#stage img'); return Boolean(img && img.complete && img.naturalWidth > 0); })()",
    );
    return { page, images };
  };

  it('fetches the same few images to open 500 pages as to open 5', async () => {
    const a = await open(small);
    const b = await open(big);
    await Promise.all([a.page.waitForTimeout(1000), b.page.waitForTimeout(1000)]);
    expect(await b.page.textContent('#counter')).toBe('1 / 500');
    // The cover plus the spread one turn away; never the whole book.
    expect(b.images.length).toBeLessThanOrEqual(a.images.length + 2);
    expect(b.images.length).toBeLessThan(10);
    expect(await b.page.locator('#stage img').count()).toBeLessThanOrEqual(2);
    await Promise.all([a.page.close(), b.page.close()]);
  });

  it('keeps the DOM and the heap flat while flipping through 120 pages', async () => {
    const { page } = await open(big);
    const cdp = await page.context().newCDPSession(page);
    const heap = async () => {
      await cdp.send('HeapProfiler.collectGarbage');
      return (await cdp.send('Runtime.getHeapUsage')).usedSize;
    };
    for (let i = 0; i < 10; i++) await page.keyboard.press('ArrowRight');
    const before = await heap();
    for (let i = 0; i < 60; i++) await page.keyboard.press('ArrowRight');
    await page.waitForTimeout(300);
    const after = await heap();
    console.info(`heap after 10 turns ${before} bytes, after 70 turns ${after} bytes`);
    expect(await page.textContent('#counter')).toBe('140–141 / 500');
    expect(await page.locator('img').count()).toBeLessThanOrEqual(2);
    // JS heap may wobble by a few hundred KB, but must not grow with the pages seen.
    expect(after - before).toBeLessThan(2 * 1024 * 1024);
    await page.close();
  });
});
