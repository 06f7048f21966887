// The reader's polish (issue 31), item by item, in real headless Chromium at desktop 1440×900 and
// a 3× phone with touch, upright and on its side: jumps are history entries, zoomed panning
// stays within the page, the keyboard reaches the controls first and keeps its focus on the
// book, a phone on its side reads one page fitted to its width and the bars make way while
// reading, the slider turns on every key press, light and dark themes, the smaller fixes, and
// axe (every impact) on every panel. Books: the almanac (test/support/readerPdf.ts) and a
// one-page strip with no title of its own.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { renderSVG } from 'uqr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fill } from '../../src/reader/client/words.ts';
import { languageFor } from '../../src/reader/words/language.ts';
import { type ApiFixture, startApi } from '../support/apiFixture.ts';
import { client, createFlipbook, waitForOutcome } from '../support/apiHelpers.ts';
import { ROOT } from '../support/cli.ts';
import { type PdfObjects, pdfBytes, stream, text } from '../support/pdfWriter.ts';
import {
  axeOf,
  DESKTOP,
  drag,
  launchChromium,
  PHONE3,
  PHONE3_SIDEWAYS,
  swipe,
  tap,
  watchedPages,
} from '../support/readerBrowser.ts';
import { readerPdf, UNIQUE } from '../support/readerPdf.ts';

const DOCS_IMAGES = join(ROOT, 'docs', 'images');
const SCREENS = [
  ['desktop', DESKTOP],
  ['phone', PHONE3],
  ['phone on its side', PHONE3_SIDEWAYS],
] as const;

/** One page 2400 × 300 pt (a panorama strip), with no /Info title: the reader names it by file. */
const stripPdf = (): PdfObjects => {
  const words = Array.from({ length: 12 }, (_, i) => text(40 + i * 196, 150, `Bay ${i + 1}`, 28));
  return {
    root: 1,
    objects: new Map([
      [1, '<< /Type /Catalog /Pages 2 0 R >>'],
      [2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>'],
      [
        3,
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 2400 300] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
      ],
      [4, stream(['0.8 0.9 1 rg 0 0 2400 300 re f 0 0 0 rg', ...words].join('\n'))],
      [5, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'],
    ]),
  };
};

/** Eight Letter pages alike (a turn curls only between pages of one shape), a big number on each. */
const uniformPdf = (): PdfObjects => {
  const pages = [1, 2, 3, 4, 5, 6, 7, 8];
  const objects = new Map<number, string>([
    [1, '<< /Type /Catalog /Pages 2 0 R >>'],
    [2, `<< /Type /Pages /Kids [${pages.map((n) => `${10 + n} 0 R`).join(' ')}] /Count 8 >>`],
    [3, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'],
  ]);
  for (const n of pages) {
    objects.set(
      10 + n,
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${30 + n} 0 R /Resources << /Font << /F1 3 0 R >> >> >>`,
    );
    const tint = (0.6 + n * 0.04).toFixed(2);
    objects.set(
      30 + n,
      stream(`${tint} 0.85 0.95 rg 0 0 612 792 re f 0 0 0 rg\n${text(200, 380, `Page ${n}`, 64)}`),
    );
  }
  return { root: 1, objects };
};

type Box = { x: number; y: number; width: number; height: number };

describe('the reader, polished (issue 31)', () => {
  let fx: ApiFixture;
  let browser: Browser;
  let almanac = '';
  let strip = '';
  let uniform = '';
  const openPage = watchedPages(() => browser);
  const open = async (options: BrowserContextOptions, url: string, extra = {}) => {
    const page = await openPage({ bypassCSP: true, ...options, ...extra }); // axe is injected
    await page.goto(url);
    if (url.includes('/f/')) await page.locator('#stage figure[data-n] img').first().waitFor();
    return page;
  };
  const js = <T>(page: Page, expression: string) => page.evaluate(expression) as Promise<T>;
  /** The page numbers on the stage. */
  const shown = (page: Page) =>
    js<number[]>(
      page,
      `[...document.querySelectorAll('#stage > figure[data-n]')].map((f) => +f.dataset.n)`,
    );
  const showsPage = (page: Page, n: number) =>
    expect.poll(() => shown(page), { timeout: 10_000 }).toContain(n);
  const box = async (page: Page, selector: string): Promise<Box> => {
    const found = await page.locator(selector).first().boundingBox();
    if (!found) throw new Error(`${selector} has no box`);
    return found;
  };
  /** How many leaves are turning on the stage (0 or 1), and a wait for the one turning to end. */
  const turns = (page: Page) => js<number>(page, `document.querySelectorAll('.turn').length`);
  const turnEnded = (page: Page) => expect.poll(() => turns(page)).toBe(0);
  /** The box of all the pages on the stage together (a spread's two). */
  const pagesBox = (page: Page) =>
    js<Box>(
      page,
      `(() => { const rs = [...document.querySelectorAll('#stage > figure')].map((f) => f.getBoundingClientRect());
        const x = Math.min(...rs.map((r) => r.left)), y = Math.min(...rs.map((r) => r.top));
        return { x, y, width: Math.max(...rs.map((r) => r.right)) - x, height: Math.max(...rs.map((r) => r.bottom)) - y }; })()`,
    );
  const focused = (page: Page) =>
    js<string>(
      page,
      `(() => { const e = document.activeElement; if (!e || e === document.body) return 'body';
        return e.id || e.getAttribute('aria-label') || e.className || e.tagName; })()`,
    );
  const visible = (page: Page, selector: string) => page.locator(selector).isVisible();

  beforeAll(async () => {
    [fx, browser] = await Promise.all([
      startApi('embedded', ['--workers', '2', '--rate-limit', '0']),
      launchChromium(),
    ]);
    const c = client(fx.api, fx.key);
    const made = await Promise.all([
      createFlipbook(
        c,
        {},
        {
          bytes: new Uint8Array(pdfBytes(readerPdf())),
          name: 'almanac.pdf',
          type: 'application/pdf',
        },
      ),
      createFlipbook(
        c,
        {},
        {
          bytes: new Uint8Array(pdfBytes(uniformPdf())),
          name: 'uniform.pdf',
          type: 'application/pdf',
        },
      ),
      createFlipbook(
        c,
        {},
        {
          bytes: new Uint8Array(pdfBytes(stripPdf())),
          name: 'harbour-strip.pdf',
          type: 'application/pdf',
        },
      ),
    ]);
    for (const book of made) {
      expect(await waitForOutcome(c, book.flipbookId, book.versionId)).toMatchObject({
        status: 'done',
      });
    }
    const urls = await Promise.all(
      made.map(async (b) => (await c.flipbook(b.flipbookId)).body.url as string),
    );
    [almanac, uniform, strip] = [urls[0] ?? '', urls[1] ?? '', urls[2] ?? ''];
    mkdirSync(DOCS_IMAGES, { recursive: true });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await fx?.stop();
  });

  describe.each(SCREENS)('on a %s', (_name, screen) => {
    it('1. a contents entry, a link, a search result are history entries: Back returns to each, turns are not', async () => {
      const page = await open(screen, `${fx.daemon.url}/healthz`);
      await page.goto(`${almanac}#page=1`);
      await showsPage(page, 1);
      // a contents entry: The Storm (7)
      await page.locator('.tools [data-panel="contents"]').click();
      await page.locator('#panel-contents a[data-page="7"]').click();
      await showsPage(page, 7);
      // a link on the contents page (2) to page 5, after going there by the thumbnails
      await page.locator('.tools [data-panel="thumbnails"]').click();
      await page.locator('#panel-thumbnails [data-page="2"]').click();
      await showsPage(page, 2);
      if (await page.locator('.panel:not([hidden])').count()) {
        await page.locator('.panel:not([hidden]) .panel-close').click();
      } else {
        // the panel closed by itself (a phone): the focus went to the book, not the page's body
        expect(await js(page, 'document.activeElement.id')).toBe('book');
      }
      await page.locator('#stage figure[data-n="2"] a.link[data-page="5"]').click();
      await showsPage(page, 5);
      // a turn: the entry is updated, not added
      await page.keyboard.press('PageDown');
      await expect.poll(() => js(page, 'location.hash')).not.toBe('#page=5');
      // a search result: the unique word of page 8
      await page.locator('.tools [data-panel="search"]').click();
      await page.locator('#search-input').fill(UNIQUE[7] ?? '');
      await page.locator('#search-input').press('Enter');
      await showsPage(page, 8);
      await page.keyboard.press('Escape');

      // Back: to page 6, where the turn had taken the reader from the link's 5, then 2, 7, 1.
      for (const n of [6, 2, 7, 1]) {
        await page.goBack();
        await showsPage(page, n);
        expect(new URL(page.url()).pathname).toBe(new URL(almanac).pathname);
      }
      await page.goBack();
      expect(new URL(page.url()).pathname).toBe('/healthz');
      await page.goForward();
      await showsPage(page, 1);
    });

    it('2. zoomed in all the way, panning keeps the page on screen (a strip) and covering the book (a page)', async () => {
      for (const url of [strip, `${almanac}#page=3`]) {
        const page = await open(screen, url);
        for (let i = 0; i < 12; i++) {
          const zoomIn = page.locator('[data-action="zoom-in"]');
          if (await zoomIn.isDisabled()) break;
          await zoomIn.click();
        }
        expect(await page.locator('[data-action="zoom-in"]').isDisabled()).toBe(true);
        const book = await box(page, '#book');
        const mid = { x: book.x + book.width / 2, y: book.y + book.height / 2 };
        for (const [dx, dy] of [
          [0, 3000],
          [0, -3000],
          [3000, 0],
          [-3000, 0],
          [2000, 2000],
        ] as const) {
          if (screen.hasTouch) {
            await drag(page, mid.x, mid.y, mid.x + dx / 10, mid.y + dy / 10);
          } else {
            await page.mouse.move(mid.x, mid.y);
            await page.mouse.down();
            await page.mouse.move(mid.x + dx / 10, mid.y + dy / 10, { steps: 4 });
            await page.mouse.up();
          }
          const at = await pagesBox(page);
          for (const [start, size, bookStart, bookSize] of [
            [at.x, at.width, book.x, book.width],
            [at.y, at.height, book.y, book.height],
          ] as const) {
            if (size >= bookSize) {
              // larger than the book: its edges never come inside it
              expect(start).toBeLessThanOrEqual(bookStart + 1);
              expect(start + size).toBeGreaterThanOrEqual(bookStart + bookSize - 1);
            } else {
              // smaller: wholly on screen
              expect(start).toBeGreaterThanOrEqual(bookStart - 1);
              expect(start + size).toBeLessThanOrEqual(bookStart + bookSize + 1);
            }
          }
        }
      }
    });

    it('5. zoomed past what the largest image shows, tiles of the part on screen keep it sharp; a strip zooms past 4×', async () => {
      for (const url of [strip, `${almanac}#page=3`]) {
        const page = await open(screen, url);
        const zoomIn = page.locator('[data-action="zoom-in"]');
        for (let i = 0; i < 12 && !(await zoomIn.isDisabled()); i++) await zoomIn.click();
        const scale = await js<number>(
          page,
          `new DOMMatrix(getComputedStyle(document.getElementById('view')).transform).a`,
        );
        if (url === strip) expect(scale).toBeGreaterThan(4); // a strip needs more than 4×
        // The tiles shown are loaded and sharp (at least one image pixel to a screen pixel), and
        // only those on screen are asked for, never the whole page. (Polled: a tile the server
        // had not rendered within its second is asked again a second later.)
        const tiles = page.locator('#stage .tiles img');
        const state = () =>
          js<{ count: number; loaded: boolean; sharp: boolean; offScreen: number }>(
            page,
            `(() => { const b = document.getElementById('book').getBoundingClientRect();
              const all = [...document.querySelectorAll('#stage .tiles img')];
              return { count: all.length,
                loaded: all.every((t) => t.complete && t.naturalWidth > 0),
                sharp: all.every((t) => t.naturalWidth / (t.getBoundingClientRect().width * devicePixelRatio) >= 0.99),
                offScreen: all.filter((t) => { const r = t.getBoundingClientRect();
                  return !(r.right > b.left && r.left < b.right && r.bottom > b.top && r.top < b.bottom); }).length }; })()`,
          );
        await expect
          .poll(async () => (await state()).count, { timeout: 10_000 })
          .toBeGreaterThan(0);
        // (A tile not rendered within its second is answered with the page's image, which the
        // reader drops and asks again for later: polled until real tiles are there.)
        await expect
          .poll(
            async () => {
              const now = await state();
              return { ...now, count: now.count > 0 };
            },
            { timeout: 30_000 },
          )
          .toMatchObject({ count: true, loaded: true, sharp: true, offScreen: 0 });
        // Made once and kept: immutable; a tile beyond the page, a level past the last, a
        // name of our own invention: 404.
        const src = (await tiles.first().getAttribute('src')) ?? '';
        const again = await fetch(new URL(src, almanac));
        expect(again.status).toBe(200);
        expect(again.headers.get('content-type')).toBe('image/jpeg');
        expect(again.headers.get('cache-control')).toContain('immutable');
        const folder = new URL(src, almanac).href.replace(/[^/]+$/, '');
        for (const name of [
          'tile-1-99-0.jpg',
          'tile-4-0-0.jpg',
          'tile-0-0-0.jpg',
          'tile-1-0-0.png',
          'tile-1--1-0.jpg',
        ]) {
          expect((await fetch(`${folder}${name}`)).status, name).toBe(404);
        }
        // Back to 1×: the tiles go (a phone on its side shows its page magnified to the width
        // even then: it keeps the tiles that makes sharp).
        await page.locator('[data-action="zoom-reset"]').click();
        if (screen !== PHONE3_SIDEWAYS) await expect.poll(() => tiles.count()).toBe(0);
      }
    });

    it('6. the slider turns on every key press; a one-page document has no slider and no "1 / 1"', async () => {
      const page = await open(screen, `${almanac}#page=1`);
      const spread = screen === DESKTOP; // a phone on its side shows one page too
      await page.locator('#slider').focus();
      const seen: number[][] = [await shown(page)];
      for (let i = 0; i < (spread ? 4 : 7); i++) {
        await page.keyboard.press('ArrowRight');
        await expect.poll(() => shown(page)).not.toEqual(seen.at(-1));
        seen.push(await shown(page));
      }
      expect(seen).toEqual(
        spread ? [[1], [2, 3], [4, 5], [6, 7], [8]] : [[1], [2], [3], [4], [5], [6], [7], [8]],
      );
      await page.keyboard.press('ArrowLeft');
      await expect.poll(() => shown(page)).toEqual(spread ? [6, 7] : [7]);
      // PageUp and PageDown on the slider turn as they do everywhere else in the reader
      await page.keyboard.press('PageUp');
      await expect.poll(() => shown(page)).toEqual(spread ? [4, 5] : [6]);
      await page.keyboard.press('PageDown');
      await expect.poll(() => shown(page)).toEqual(spread ? [6, 7] : [7]);

      const one = await open(screen, strip);
      expect(await visible(one, '#slider')).toBe(false);
      expect(await visible(one, '#counter')).toBe(false);
      expect(await one.locator('body').innerText()).not.toContain('1 / 1');
    });

    it('9. share: the share sheet, links to this page and the book, a QR code, an embed snippet at a size', async () => {
      const page = await open(screen, `${almanac}#page=3`, {
        permissions: ['clipboard-read', 'clipboard-write'],
      });
      // A share sheet where the device has one (headless Chromium has none: one is stood in).
      await page.evaluate(
        `navigator.share = (data) => { window.shared = data; return Promise.resolve(); }`,
      );
      await page.locator('.tools [data-panel="share"]').click();
      const pageLink = `${almanac}#page=3`;
      expect(await page.locator('#share-page').inputValue()).toBe(pageLink);
      expect(await page.locator('#share-link').inputValue()).toBe(almanac);
      await page.getByRole('button', { name: 'Share…' }).click();
      expect(await js(page, 'window.shared')).toEqual({ title: await page.title(), url: pageLink });
      // Copy puts the link on the clipboard.
      await page.getByRole('button', { name: 'Copy: Link to this page' }).click();
      expect(await js(page, 'navigator.clipboard.readText()')).toBe(pageLink);
      // The QR code: of the link to this page, drawn by the server, loaded.
      const qr = page.locator('.qr img');
      await expect
        .poll(() => js<number>(page, `document.querySelector('.qr img').naturalWidth`))
        .toBeGreaterThan(0);
      const src = (await qr.getAttribute('src')) ?? '';
      expect(await qr.getAttribute('alt')).toMatch(/^QR code of the link to page /);
      const svg = await (await fetch(new URL(src, almanac))).text();
      expect(svg).toBe(renderSVG(pageLink, { border: 2 }));
      // A page that is not plainly one (or past the book) is the book's own link.
      for (const asked of ['2e0', '0x8', '%208', '8.0', '99999999', '-3']) {
        const other = await fetch(`${almanac}/qr.svg?page=${asked}`);
        expect(await other.text()).toBe(renderSVG(almanac, { border: 2 }));
      }
      expect(await page.locator('.qr a[download]').getAttribute('href')).toBe(src);
      // The snippet: at this page, or the book's start; the size asked, within bounds.
      const snippet = page.locator('#share-embed');
      expect(await snippet.inputValue()).toContain(`src="${pageLink}" width="960" height="640"`);
      await page.locator('#embed-start').uncheck();
      await page.locator('#embed-width').fill('500');
      await page.locator('#embed-height').fill('99999');
      expect(await snippet.inputValue()).toContain(`src="${almanac}" width="500" height="4000"`);
      // A turn updates the links and the QR code.
      await page.keyboard.press('Escape');
      await page.keyboard.press('End');
      await showsPage(page, 8);
      await page.locator('.tools [data-panel="share"]').click();
      expect(await page.locator('#share-page').inputValue()).toBe(`${almanac}#page=8`);
      expect(await qr.getAttribute('src')).toMatch(/qr\.svg\?page=8$/);
    });

    it('10. the smaller things: a title without ".pdf", the current section marked, nothing drawn over the page', async () => {
      const page = await open(screen, strip);
      expect(await page.title()).toBe('harbour-strip');
      expect(await page.locator('h1.title').textContent()).toBe('harbour-strip');

      const book = await open(screen, `${almanac}#page=5`);
      await book.locator('.tools [data-panel="contents"]').click();
      const current = book.locator('#panel-contents [aria-current]');
      await expect.poll(() => current.textContent()).toContain('The Tides');
      await book.keyboard.press('Escape');
      // The address typed wins over a render that writes the page shown over it before the
      // hashchange event comes (as a panel closing, which resizes the stage, did under load).
      await js(book, `location.hash = '#page=3'; history.replaceState(null, '', '#page=5')`);
      await showsPage(book, 3);
      await book.locator('.tools [data-panel="contents"]').click();
      // page 3 begins "Harbour and Tides" and, within it, "The Harbour"
      await expect.poll(() => current.textContent()).toContain('The Harbour');
      expect(await current.count()).toBe(1);
      await book.keyboard.press('Escape');

      // No control is drawn over the pages (the zoom buttons sit in the bottom bar).
      const overlapping = await js<string[]>(
        book,
        `(() => {
        // each page as far as it is seen: the book clips it (a page fitted to a phone's width)
        const book = document.getElementById('book').getBoundingClientRect();
        const pages = [...document.querySelectorAll('#stage > figure')].map((f) => {
          const r = f.getBoundingClientRect();
          return { left: Math.max(r.left, book.left), right: Math.min(r.right, book.right),
            top: Math.max(r.top, book.top), bottom: Math.min(r.bottom, book.bottom) };
        });
        return [...document.querySelectorAll('button, a.button, input')].filter((el) => {
          const r = el.getBoundingClientRect();
          if (getComputedStyle(el).opacity === '0' || r.width === 0 || el.closest('.panel, #stage')) {
            return false;
          }
          return pages.some((p) => r.left < p.right && r.right > p.left && r.top < p.bottom && r.bottom > p.top);
        }).map((el) => el.getAttribute('aria-label') || el.textContent);
      })()`,
      );
      expect(overlapping).toEqual([]);
    });
  });

  it('3. the keyboard reaches the page controls in a few presses, page links are one stop, focus stays on the book', async () => {
    // (a phone too: with a keyboard attached, or a switch or a screen reader driving focus)
    for (const screen of [DESKTOP, PHONE3]) {
      const spread = screen === DESKTOP;
      const page = await open(screen, `${almanac}#page=2`);
      await page.locator('#stage figure[data-n="2"] a.link').first().waitFor();
      // from the top of the page
      await page.locator('body').focus();
      const order: string[] = [];
      for (let i = 0; i < 30 && !order.includes('Next page'); i++) {
        await page.keyboard.press('Tab');
        order.push(await focused(page));
      }
      expect(order.indexOf('Next page'), order.join(' → ')).toBeLessThan(12);
      // The page's links: one Tab stop, the arrow keys go through them.
      expect(await page.locator('#stage a.link[tabindex="0"]').count()).toBe(1);
      const first = page.locator('#stage a.link[tabindex="0"]');
      await first.focus();
      const name = await focused(page);
      await page.keyboard.press('ArrowDown');
      expect(await focused(page)).not.toBe(name);
      const onLink = `!!document.activeElement?.matches('#stage a.link')`;
      expect(await js(page, onLink)).toBe(true);
      await page.keyboard.press('Tab');
      expect(await js(page, onLink)).toBe(false);
      // A turn from a link: the link goes, the focus stays on the book.
      await page.locator('#stage a.link[tabindex="0"]').focus();
      await page.keyboard.press('PageDown');
      await showsPage(page, spread ? 4 : 3);
      expect(await focused(page)).not.toBe('body');
      // Next page pressed to the end: focus never drops to the page's body.
      await page.locator('.controls [data-action="next"]').focus();
      for (let i = 0; i < (spread ? 4 : 5); i++) {
        await page.keyboard.press('Enter');
        expect(await focused(page)).not.toBe('body');
      }
      await showsPage(page, 8);
    }
  });

  it('4. a phone on its side reads one page fitted to the width from its top; the bars make way while reading', async () => {
    const page = await open(PHONE3_SIDEWAYS, `${almanac}#page=3`);
    expect(await shown(page)).toEqual([3]);
    const book = await box(page, '#book');
    let at = await box(page, '#stage > figure');
    expect(at.width).toBeGreaterThan(book.width * 0.95);
    expect(Math.abs(at.y - book.y)).toBeLessThan(2);
    // a drag upwards, from the book's foot to its head, reads on down the page, never past its foot
    const dragUp = () =>
      drag(
        page,
        book.x + book.width / 2,
        book.y + book.height - 20,
        book.x + book.width / 2,
        book.y + 20,
      );
    await dragUp();
    const lower = await box(page, '#stage > figure');
    expect(lower.y).toBeLessThan(at.y - 100);
    for (let i = 0; i < 8; i++) await dragUp();
    at = await box(page, '#stage > figure');
    expect(at.y + at.height).toBeGreaterThanOrEqual(book.y + book.height - 1);

    // A swipe turns, and the bars go; a tap brings them back, another hides them again.
    expect(await visible(page, '.bar')).toBe(true);
    await swipe(
      page,
      book.x + book.width * 0.8,
      book.x + book.width * 0.2,
      book.y + book.height / 2,
    );
    await showsPage(page, 4);
    await expect.poll(() => visible(page, '.bar')).toBe(false);
    expect(await visible(page, '.controls')).toBe(false);
    const full = await box(page, '#book');
    expect(full.height).toBeGreaterThan(389);
    await tap(page, full.x + full.width / 2, full.y + full.height / 2);
    await expect.poll(() => visible(page, '.bar')).toBe(true);
    expect(await visible(page, '.controls')).toBe(true);

    // Upright, the same: the bars make way on a swipe, and the page grows.
    const upright = await open(PHONE3, `${almanac}#page=3`);
    const b = await box(upright, '#book');
    await swipe(upright, b.x + b.width * 0.8, b.x + b.width * 0.2, b.y + b.height / 2);
    await showsPage(upright, 4);
    await expect.poll(() => visible(upright, '.bar')).toBe(false);
    // the book takes the whole screen
    expect((await box(upright, '#book')).height).toBeGreaterThan(843);
    await swipe(upright, b.x + b.width * 0.2, b.x + b.width * 0.8, b.y + b.height / 2);
    await showsPage(upright, 3);
    await tap(upright, b.x + b.width / 2, b.y + b.height / 2);
    await expect.poll(() => visible(upright, '.bar')).toBe(true);
  });

  it('7. a drag curls the leaf after the pointer, inside the book; let go past the middle it turns, short of it it falls back', async () => {
    const motion = { reducedMotion: 'no-preference' };
    for (const screen of [DESKTOP, PHONE3]) {
      const page = await open(screen, `${uniform}#page=${screen === DESKTOP ? 4 : 7}`, motion);
      const before = await shown(page);
      const pages = await pagesBox(page);
      const bar = await box(page, '.bar');
      const y = pages.y + pages.height * 0.85;
      const x0 = pages.x + pages.width - 20;
      const moveTo = async (x: number) => {
        if (screen.hasTouch) return;
        await page.mouse.move(x, y, { steps: 6 });
      };
      // Held short of the middle: the leaf follows, stays within the pages, then falls back.
      const cdp = screen.hasTouch ? await page.context().newCDPSession(page) : null;
      const touchTo = async (type: 'touchStart' | 'touchMove' | 'touchEnd', x: number) =>
        cdp?.send('Input.dispatchTouchEvent', {
          type,
          touchPoints: type === 'touchEnd' ? [] : [{ x, y }],
        });
      const hold = async (to: number) => {
        if (cdp) {
          await touchTo('touchStart', x0);
          for (let i = 1; i <= 6; i++) await touchTo('touchMove', x0 + ((to - x0) * i) / 6);
        } else {
          await page.mouse.move(x0, y);
          await page.mouse.down();
          await moveTo(to);
        }
      };
      const letGo = async () => {
        if (cdp) await touchTo('touchEnd', 0);
        else await page.mouse.up();
      };
      // What the live region says meanwhile: a leaf that falls back never names a page not shown.
      const spokenBefore = await js<string>(page, `document.getElementById('live').textContent`);
      await js(
        page,
        `(() => { const live = document.getElementById('live'); window.said = [];
        new MutationObserver(() => window.said.push(live.textContent))
          .observe(live, { childList: true, characterData: true, subtree: true }); })()`,
      );
      await hold(x0 - pages.width * 0.12);
      const turn = await box(page, '.turn');
      expect(turn.y).toBeGreaterThanOrEqual(bar.y + bar.height - 1); // never over the bar
      expect(turn.x).toBeGreaterThanOrEqual(pages.x - 1);
      expect(turn.x + turn.width).toBeLessThanOrEqual(pages.x + pages.width + 1);
      const clip = await js<string>(page, `document.querySelector('.leaf > .page').style.clipPath`);
      expect(clip).toMatch(/^polygon\(/);
      if (screen === DESKTOP)
        await page.screenshot({ path: join(DOCS_IMAGES, 'reader-curl-desktop.png') });
      else await page.screenshot({ path: join(DOCS_IMAGES, 'reader-curl-phone.png') });
      // held still past a flick's 300 ms, whatever the machine's load made of the steps above
      await page.waitForTimeout(350);
      await letGo();
      await turnEnded(page);
      expect(await shown(page)).toEqual(before);
      expect(await js<string[]>(page, 'window.said')).toEqual(
        (await js<string[]>(page, 'window.said')).map(() => spokenBefore),
      );
      // Past the middle: it turns.
      await hold(pages.x + pages.width * 0.2);
      await letGo();
      await turnEnded(page);
      expect(await shown(page)).toEqual(screen === DESKTOP ? [6, 7] : [8]);
      expect(await js<string>(page, `document.getElementById('live').textContent`)).toMatch(
        screen === DESKTOP ? /6–7/ : /\b8\b/,
      );
      // Held and let go slowly (no flick) with the corner past half a page: it turns, on a page
      // alone too (where that is far short of the spine, its outer edge).
      await page.keyboard.press('Home');
      await showsPage(page, 1);
      await page.keyboard.press('PageDown');
      await turnEnded(page);
      const start = await shown(page);
      await hold(x0 - pages.width * (screen === DESKTOP ? 0.35 : 0.6));
      await page.waitForTimeout(400); // held still: a slow drag, not a flick
      await letGo();
      await turnEnded(page);
      expect(await shown(page)).not.toEqual(start);
      // Turns asked for during a turn all happen: the last one wins, none is undone.
      await page.keyboard.press('Home');
      await showsPage(page, 1);
      await page.keyboard.press('PageDown');
      await page.keyboard.press('PageDown');
      await page.keyboard.press('PageDown');
      await turnEnded(page);
      expect(await shown(page)).toEqual(screen === DESKTOP ? [6, 7] : [4]);
      // A button turns with the curl too, and ends with the pages in place.
      await page.keyboard.press('Home');
      await showsPage(page, 1);
      await page.locator('.controls [data-action="next"]').click();
      await showsPage(page, 2);
      await turnEnded(page);
    }
    // Reduced motion, or pages of other shapes: the pages change at once, no leaf.
    const still = await open(DESKTOP, `${uniform}#page=4`);
    await still.locator('.controls [data-action="next"]').click();
    expect(await turns(still)).toBe(0);
    await showsPage(still, 6);
    const shapes = await open(PHONE3, `${almanac}#page=3`, motion);
    await shapes.locator('.controls [data-action="next"]').click(); // 3 → 4, a landscape page
    expect(await turns(shapes)).toBe(0);
    await showsPage(shapes, 4);
  });

  it('8. light and dark follow the system; axe finds nothing, of any impact, on any panel, in either', async () => {
    const backgrounds = new Set<string>();
    for (const screen of [DESKTOP, PHONE3]) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const page = await open(screen, `${almanac}#page=2`, { colorScheme });
        backgrounds.add(
          await js<string>(
            page,
            `getComputedStyle(document.querySelector('.bar')).backgroundColor`,
          ),
        );
        expect(await axeOf(page), `${colorScheme}, no panel`).toEqual([]);
        for (const name of ['contents', 'thumbnails', 'search', 'share']) {
          await page.locator(`.tools [data-panel="${name}"]`).click();
          if (name === 'search') {
            await page.locator('#search-input').fill('the');
            await page.locator('#search-input').press('Enter');
            await page.locator('#search-results li').first().waitFor();
          }
          expect(await axeOf(page), `${colorScheme}, ${name}`).toEqual([]);
          await page.keyboard.press('Escape');
        }
        await page.locator('#counter').click();
        expect(await axeOf(page), `${colorScheme}, go to page`).toEqual([]);
      }
    }
    expect(backgrounds.size).toBe(2); // one bar colour per scheme
  });

  it('11. the reader’s words follow the reader’s language; right-to-left ones are laid out so', async () => {
    const cases = [
      ['de-DE', 'de', 'ltr'],
      ['fr-FR', 'fr', 'ltr'],
      ['es-ES', 'es', 'ltr'],
      ['pt-BR', 'pt', 'ltr'],
      ['ja-JP', 'ja', 'ltr'],
      ['ar-EG', 'ar', 'rtl'],
      ['he-IL', 'he', 'rtl'],
    ] as const;
    const seen = new Set<string>();
    for (const [locale, lang, dir] of cases) {
      const words = languageFor(lang).words;
      const page = await open(DESKTOP, `${almanac}#page=3`, { locale });
      expect(await js(page, 'document.documentElement.lang')).toBe(lang);
      expect(await js(page, 'document.documentElement.dir || "ltr"')).toBe(dir);
      expect((await page.locator('.tools [data-panel="search"]').textContent())?.trim()).toBe(
        words.search,
      );
      expect(await page.locator('.controls [data-action="next"]').getAttribute('aria-label')).toBe(
        words.next,
      );
      // the script's words too: the counter's spoken text, the contents panel
      expect(await page.locator('#slider').getAttribute('aria-valuetext')).toBe(
        fill(words.script.pageOfLabelled, { label: 'ii–1', n: '2–3', total: 8 }),
      );
      seen.add(words.search);
      // Right to left: the title on the right, the tools on the left.
      const [title, tools] = [await box(page, 'h1.title'), await box(page, '.tools')];
      if (dir === 'rtl') expect(title.x).toBeGreaterThan(tools.x);
      else expect(title.x).toBeLessThan(tools.x);
      expect(await axeOf(page), lang).toEqual([]);
    }
    expect(seen.size).toBe(cases.length);
    // Caches keep one copy per language.
    const res = await fetch(almanac, { headers: { 'accept-language': 'de' } });
    expect(res.headers.get('content-language')).toBe('de');
    expect(res.headers.get('vary')).toContain('Accept-Language');
    const phone = await open(PHONE3, `${almanac}#page=3`, { locale: 'ar' });
    expect(await axeOf(phone)).toEqual([]);
  });

  it('looks right: screenshots for docs/reader.md', async () => {
    const shots: [string, BrowserContextOptions, object, string | null][] = [
      ['desktop-light', DESKTOP, { colorScheme: 'light' }, null],
      ['desktop-dark', DESKTOP, { colorScheme: 'dark' }, null],
      ['phone-light', PHONE3, { colorScheme: 'light' }, null],
      ['phone-sideways', PHONE3_SIDEWAYS, { colorScheme: 'dark' }, null],
      ['phone-share', PHONE3, { colorScheme: 'dark' }, 'share'],
      ['desktop-arabic', DESKTOP, { colorScheme: 'light', locale: 'ar' }, 'contents'],
    ];
    for (const [name, options, extra, panel] of shots) {
      const page = await open(options, `${almanac}#page=2`, extra);
      if (panel) {
        await page.locator(`.tools [data-panel="${panel}"]`).click();
        await page.locator(`#panel-${panel} a, #panel-${panel} img`).last().waitFor();
      }
      // Every image asked for has come (a sideways phone's page is a larger one, fetched after
      // the first drawn: a screenshot before it came showed a blank page), then decoded.
      await page.waitForLoadState('networkidle');
      await page.evaluate(
        `Promise.all([...document.images].filter((i) => i.complete && i.naturalWidth > 0)
          .map((i) => i.decode().catch(() => {})))`,
      );
      await page.screenshot({ path: join(DOCS_IMAGES, `reader-${name}.png`) });
      expect(await axeOf(page), name).toEqual([]);
    }
  });
});
