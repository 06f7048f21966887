// A 500-page flipbook opens like a 5-page one, and flipping through it does not grow the page:
// its HTML stays small, and only the pages near the current one are ever in the DOM or fetched.
// The books are made directly in the store (test/support/readerBooks.ts): no rendering to wait for.
import { request } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiFixture, startApi } from '../support/apiFixture.ts';
import { makeBook } from '../support/readerBooks.ts';
import { launchChromium } from '../support/readerBrowser.ts';

describe('the reader on a big flipbook', () => {
  let fx: ApiFixture;
  let browser: Browser;
  let small: string;
  let big: string;

  beforeAll(async () => {
    [fx, browser] = await Promise.all([
      startApi('embedded', ['--rate-limit', '0']),
      launchChromium(),
    ]);
    small = (await makeBook(fx, 5)).url;
    big = (await makeBook(fx, 500, { withText: true })).url;
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

  it('sends an HTML page under 30 KB compressed for 500 pages of text', async () => {
    const sizes: Record<string, number> = {};
    for (const encoding of ['gzip', 'br', 'identity']) {
      sizes[encoding] = await new Promise<number>((resolve, reject) => {
        request(big, { headers: { 'accept-encoding': encoding } }, (res) => {
          expect(res.statusCode).toBe(200);
          expect(res.headers['content-encoding'] ?? 'identity').toBe(encoding);
          let length = 0;
          res.on('data', (chunk: Buffer) => {
            length += chunk.length;
          });
          res.on('end', () => resolve(length));
        })
          .on('error', reject)
          .end();
      });
    }
    console.info(`500-page reader HTML: ${JSON.stringify(sizes)} bytes`);
    expect(sizes.gzip).toBeLessThanOrEqual(30 * 1024);
    expect(sizes.br).toBeLessThanOrEqual(30 * 1024);
    // The text of the pages is not in it (about 1,500 characters a page: 750 KB).
    expect(sizes.identity).toBeLessThan(60 * 1024);
  });

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
