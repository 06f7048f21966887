// The reader's features, one by one, in real headless Chromium (Debian's chromium-headless-shell
// driven by playwright-core), at desktop 1440×900 and phone 390×844 (2×, touch): a fixed stage the wheel
// turns, zoom (buttons, double-click, Escape, a pinch that brings img_max), true page shapes in
// spreads and single view, contents, links, thumbnails, page labels and go to page, search,
// a right-to-left book, no JavaScript, share, axe on every panel, a page's words in place while
// its image is slow, and no console error anywhere.
// The book is written by hand (test/support/readerPdf.ts: outline, links, labels, three page
// shapes, a unique word per page) and processed by the daemon's own workers, with the corpus's
// Arabic book. Screenshots for docs/reader.md go to docs/images/.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, BrowserContextOptions, Locator, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiFixture, startApi } from '../support/apiFixture.ts';
import { client, createFlipbook, pdf, waitActive } from '../support/apiHelpers.ts';
import { ROOT } from '../support/cli.ts';
import { pdfBytes } from '../support/pdfWriter.ts';
import { launchChromium, pinch, swipe, watchedPages } from '../support/readerBrowser.ts';
import {
  CONTENTS,
  LABELS,
  MAIL_LINK,
  MAIL_TEXT,
  OUTLINE,
  PAGE_SIZES,
  readerPdf,
  TITLE,
  UNIQUE,
  WEB_LINK,
  WEB_TEXT,
} from '../support/readerPdf.ts';

const ARABIC = 'odd_habibi-rotated.pdf'; // 4 A4 pages turned a quarter, Arabic text
const DESKTOP: BrowserContextOptions = { viewport: { width: 1440, height: 900 } };
const PHONE: BrowserContextOptions = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
};
const SIZES = [
  ['desktop', DESKTOP],
  ['phone', PHONE],
] as const;
const DOCS_IMAGES = join(ROOT, 'docs', 'images');
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const TOTAL = PAGE_SIZES.length;

type Box = { x: number; y: number; width: number; height: number };

/** Holds back the images of the pages matching `pages` (a slow link's stand-in) until released. */
const holdImages = async (page: Page, pages: string) => {
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(new RegExp(`/(${pages})/(min|mid|max)\\.jpg`), async (route) => {
    await held;
    await route.continue();
  });
  return release;
};

/** The pages a spread (or a single view) shows with page n, as the reader pairs them. */
const shownWith = (n: number, spread: boolean, total = TOTAL) => {
  if (!spread) return [n];
  if (n === 1) return [1];
  const left = n % 2 === 0 ? n : n - 1;
  return left + 1 <= total ? [left, left + 1] : [left];
};

/** What the counter says with page n shown: "ii–1 (2–3 / 8)", the book's labels first. */
const counterFor = (n: number, spread: boolean) => {
  const shown = shownWith(n, spread);
  const numbers = shown.join('–');
  const labels = shown.map((p) => LABELS[p - 1]).join('–');
  return `${labels} (${numbers} / ${TOTAL})`;
};

describe('the reader’s features in headless Chromium (embedded store, --workers 2)', () => {
  let fx: ApiFixture;
  let browser: Browser;
  let origin = '';
  let url = ''; // the almanac (readerPdf.ts)
  let versionId = '';
  let arabicUrl = '';
  let arabicVersion = '';
  /** test/fixtures/rtl's Chromium print: Arabic lines of many words, glyphs drawn from the left */
  let rtlUrl = '';
  let rtlVersion = '';
  let arabicText: { n: number; text: string }[] = [];
  let almanacText: { n: number; text: string }[] = [];

  // Pages change at once (reduced motion) unless a test asks otherwise: the stage is settled.
  // No page may log a console error or a page error, or open a dialog.
  const openPage = watchedPages(() => browser);
  const open = (options: BrowserContextOptions = DESKTOP) => openPage(options);

  const js = <T>(page: Page, expression: string) => page.evaluate(expression) as Promise<T>;
  const counter = (page: Page) => page.locator('#counter').textContent();
  const expectCounter = (page: Page, text: string) =>
    expect.poll(() => counter(page), { timeout: 10_000 }).toBe(text);
  /** A new page on the almanac, at page `n` when given, once its counter shows that page. */
  const openAlmanac = async (options: BrowserContextOptions, spread: boolean, n?: number) => {
    const page = await open(options);
    await page.goto(n === undefined ? url : `${url}#page=${n}`);
    await expectCounter(page, counterFor(n ?? 1, spread));
    return page;
  };
  // Polled from here (a string waitForFunction would need eval, which the reader's CSP forbids).
  const imagesLoaded = (page: Page, selector = '#stage img') =>
    expect
      .poll(
        () =>
          js<boolean>(
            page,
            `(() => { const all = [...document.querySelectorAll(${JSON.stringify(selector)})];
              return all.length > 0 && all.every((i) => i.complete && i.naturalWidth > 0); })()`,
          ),
        { timeout: 10_000 },
      )
      .toBe(true);
  const box = async (page: Page, selector: string): Promise<Box> => {
    const found = await page.locator(selector).first().boundingBox();
    if (!found) throw new Error(`${selector} has no box`);
    return found;
  };
  /** A screenshot for the docs, once every loaded image is decoded (painted, not blank). */
  const shot = async (page: Page, name: string) => {
    await js(
      page,
      `Promise.all([...document.images].filter((i) => i.complete && i.naturalWidth > 0)
        .map((i) => i.decode().catch(() => {})))`,
    );
    await page.screenshot({ path: join(DOCS_IMAGES, `${name}.png`) });
  };
  const focused = (page: Page) =>
    js<string>(
      page,
      `(() => { const e = document.activeElement; return e ? (e.id || e.dataset.page || e.dataset.panel || e.tagName) : ''; })()`,
    );
  const shown = (locator: Locator) =>
    expect.poll(() => locator.isVisible(), { timeout: 10_000 }).toBe(true);
  const gone = (locator: Locator) =>
    expect.poll(() => locator.isVisible(), { timeout: 10_000 }).toBe(false);
  const hasText = (locator: Locator, text: string | RegExp) =>
    typeof text === 'string'
      ? expect.poll(() => locator.textContent(), { timeout: 10_000 }).toBe(text)
      : expect.poll(() => locator.textContent(), { timeout: 10_000 }).toMatch(text);
  const hasValue = (locator: Locator, value: string) =>
    expect.poll(() => locator.inputValue(), { timeout: 10_000 }).toBe(value);
  /** A panel's toolbar button. */
  const tool = (page: Page, name: string) => page.locator(`.tools [data-panel="${name}"]`);

  /** Serious or critical axe violations on the page as it is. */
  const axe = async (page: Page) => {
    if (!(await js<boolean>(page, `typeof axe !== 'undefined'`))) {
      await page.addScriptTag({ path: AXE });
    }
    const violations = await js<{ id: string; impact: string; targets: string[] }[]>(
      page,
      `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({
        id: v.id, impact: v.impact, targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')),
      })))`,
    );
    return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  };

  /** Whether the arrow drawn on an edge button points left (its tip, mid-height, is its leftmost part). */
  const pointsLeft = async (page: Page, selector: string) => {
    const png = await page.locator(selector).screenshot();
    const { data, info } = await sharp(png).greyscale().raw().toBuffer({ resolveWithObject: true });
    const rows = new Map<number, number[]>();
    const background = data[0] ?? 0; // light or dark: the arrow is what differs from it
    for (let y = 0; y < info.height; y++) {
      for (let x = 0; x < info.width; x++) {
        const grey = data[y * info.width + x] ?? 0;
        if (Math.abs(grey - background) > 60) rows.set(y, [...(rows.get(y) ?? []), x]);
      }
    }
    const ys = [...rows.keys()];
    if (ys.length < 5) throw new Error(`no arrow drawn on ${selector}`);
    const meanX = (y: number) => {
      const xs = rows.get(y) ?? [];
      return xs.reduce((a, b) => a + b, 0) / xs.length;
    };
    const top = Math.min(...ys);
    const middle = ys.reduce((a, b) =>
      Math.abs(b - (top + Math.max(...ys)) / 2) < Math.abs(a - (top + Math.max(...ys)) / 2) ? b : a,
    );
    return meanX(middle) < meanX(top);
  };

  beforeAll(async () => {
    [fx, browser] = await Promise.all([
      startApi('embedded', ['--workers', '2', '--rate-limit', '0']),
      launchChromium(),
    ]);
    const c = client(fx.api, fx.key);
    origin = new URL(fx.daemon.url).origin;
    // No title given: the reader shows the PDF's own.
    const [almanac, arabic, rtl] = await Promise.all([
      createFlipbook(
        c,
        {},
        {
          bytes: new Uint8Array(pdfBytes(readerPdf())),
          name: 'almanac.pdf',
          type: 'application/pdf',
        },
      ),
      createFlipbook(c, {}, pdf(ARABIC)),
      createFlipbook(
        c,
        {},
        {
          bytes: new Uint8Array(readFileSync(join(ROOT, 'test/fixtures/rtl/rtl-chromium.pdf'))),
          name: 'rtl.pdf',
          type: 'application/pdf',
        },
      ),
    ]);
    await Promise.all([
      waitActive(c, almanac.flipbookId, almanac.versionId),
      waitActive(c, arabic.flipbookId, arabic.versionId),
      waitActive(c, rtl.flipbookId, rtl.versionId),
    ]);
    rtlUrl = (await c.flipbook(rtl.flipbookId)).body.url;
    rtlVersion = rtl.versionId;
    url = (await c.flipbook(almanac.flipbookId)).body.url;
    arabicUrl = (await c.flipbook(arabic.flipbookId)).body.url;
    arabicVersion = arabic.versionId;
    versionId = almanac.versionId;
    expect(url).toBe(`${origin}/f/${almanac.flipbookId}`);
    arabicText = (
      (await (await fetch(`${origin}/files/pages/${arabic.versionId}/text.json`)).json()) as {
        pages: { n: number; text: string }[];
      }
    ).pages;
    almanacText = (
      (await (await fetch(`${origin}/files/pages/${versionId}/text.json`)).json()) as {
        pages: { n: number; text: string }[];
      }
    ).pages;
    mkdirSync(DOCS_IMAGES, { recursive: true });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await fx?.stop();
  });

  it('the daemon read the book’s structure: outline, labels, links, sizes', async () => {
    const structure = (await (
      await fetch(`${origin}/files/pages/${versionId}/document.json`)
    ).json()) as {
      title: string;
      labels: string[];
      outline: { title: string; page: number; children: { title: string; page: number }[] }[];
      links: { kind: string; page?: number; uri?: string; text?: string }[][];
    };
    expect(structure.title).toBe(TITLE);
    expect(structure.labels).toEqual(LABELS);
    expect(structure.outline.map((e) => [e.title, e.page, e.children.map((c) => c.page)])).toEqual([
      ['Harbour and Tides', 3, [3, 5]],
      ['The Storm', 7, []],
    ]);
    expect(structure.links[1]?.map((l) => l.page ?? l.uri)).toEqual([
      ...CONTENTS.map(([, page]) => page),
      WEB_LINK,
      MAIL_LINK,
    ]);
    expect(structure.links[1]?.map((l) => l.text)).toEqual([
      ...CONTENTS.map(([text]) => text),
      WEB_TEXT,
      MAIL_TEXT,
    ]);
  });

  describe.each(SIZES)('%s', (size, options) => {
    const spread = size === 'desktop';

    it('a fixed stage: nothing scrolls, the wheel turns one page per gesture, Ctrl+wheel zooms', async () => {
      const page = await openAlmanac(options, spread);
      await imagesLoaded(page);
      expect(await page.locator('h1.title').textContent()).toBe(TITLE); // the PDF's own title
      const [scrollHeight, innerHeight, scrollWidth, innerWidth] = await js<
        [number, number, number, number]
      >(
        page,
        `[document.documentElement.scrollHeight, innerHeight, document.documentElement.scrollWidth, innerWidth]`,
      );
      expect(scrollHeight).toBeLessThanOrEqual(innerHeight);
      expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
      const stage = await box(page, '#book');
      // The controls are on screen, under the book.
      const controls = await box(page, '.controls');
      expect(controls.y + controls.height).toBeLessThanOrEqual(innerHeight + 0.5);
      expect(controls.y).toBeGreaterThanOrEqual(stage.y + stage.height - 0.5);

      if (spread) {
        await page.mouse.move(stage.x + stage.width / 2, stage.y + stage.height / 2);
        // A long scroll (a trackpad's, many events in a row) is one turn, not one per event:
        // five events at once, so that no pause between them could end the gesture.
        await js(
          page,
          `(() => { const book = document.getElementById('book');
            for (let i = 0; i < 5; i++) book.dispatchEvent(new WheelEvent('wheel', {
              deltaY: 100, clientX: innerWidth / 2, clientY: innerHeight / 2, bubbles: true, cancelable: true,
            })); })()`,
        );
        expect(await counter(page)).toBe(counterFor(2, spread));
        // The mouse wheel turns the page once that gesture is over (250 ms without a wheel
        // event: tried every 400 ms), and the document stays where it is.
        await expect
          .poll(
            async () => {
              await page.mouse.wheel(0, 120);
              return counter(page);
            },
            { interval: 400, timeout: 10_000 },
          )
          .toBe(counterFor(4, spread));
        expect(await js<number>(page, 'scrollY')).toBe(0);
        expect(await box(page, '#book')).toEqual(stage);
        expect(await box(page, '.controls')).toEqual(controls);
        await page.keyboard.down('Control');
        await page.mouse.wheel(0, -150);
        await page.keyboard.up('Control');
        await page.waitForSelector('.book.zoomed');
        expect(await counter(page)).toBe(counterFor(4, spread));
        expect(await js<number>(page, 'scrollY')).toBe(0);
        expect(await box(page, '#book')).toEqual(stage);
      } else {
        // A finger dragged up the page neither scrolls the document nor moves the book.
        const cdp = await page.context().newCDPSession(page);
        const x = stage.x + stage.width / 2;
        await cdp.send('Input.dispatchTouchEvent', {
          type: 'touchStart',
          touchPoints: [{ x, y: stage.y + stage.height - 60 }],
        });
        for (const dy of [100, 200, 300, 400]) {
          await cdp.send('Input.dispatchTouchEvent', {
            type: 'touchMove',
            touchPoints: [{ x, y: stage.y + stage.height - 60 - dy }],
          });
        }
        await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
        expect(await js<number>(page, 'scrollY')).toBe(0);
        expect(await counter(page)).toBe(counterFor(1, spread)); // not a swipe: no turn
        // A finger moving to the left turns to the next page, and the stage stays.
        await swipe(page, 320, 70, stage.y + stage.height / 2);
        await expectCounter(page, counterFor(2, spread));
        expect(await js<number>(page, 'scrollY')).toBe(0);
        // The bars make way while reading on a phone: the book has the whole screen.
        await expect.poll(async () => (await box(page, '#book')).height).toBe(844);
      }
    });

    it('contents: the outline nested, an entry turns to its page, Escape closes and gives focus back', async () => {
      const page = await openAlmanac(options, spread);
      expect(
        await page
          .getByRole('button', { name: 'Contents', exact: true })
          .getAttribute('data-panel'),
      ).toBe('contents');
      await tool(page, 'contents').click();
      const panel = page.locator('#panel-contents');
      await shown(panel);
      expect(await tool(page, 'contents').getAttribute('aria-expanded')).toBe('true');
      await page.waitForSelector('#panel-contents nav a');
      // Each entry: its depth, title and label, as the PDF's outline has them.
      const entries = await js<[number, string, string, string][]>(
        page,
        `[...document.querySelectorAll('#panel-contents nav a')].map((a) => {
          let depth = 0;
          for (let e = a.closest('ul').parentElement.closest('ul'); e; e = e.parentElement.closest('ul')) depth += 1;
          return [depth, a.firstChild.textContent, a.querySelector('.page-label').textContent, a.dataset.page];
        })`,
      );
      expect(entries).toEqual(
        OUTLINE.map(([depth, title, n]) => [depth, title, LABELS[n - 1], String(n)]),
      );
      await imagesLoaded(page);
      // The panel sits beside the book on a wide screen, over it on a phone; never over the tools.
      const head = await box(page, 'header.bar');
      const panelBox = await box(page, '#panel-contents');
      expect(panelBox.y).toBeGreaterThanOrEqual(head.y + head.height - 0.5);
      if (spread) {
        const book = await box(page, '#book');
        expect(book.x).toBeGreaterThanOrEqual(panelBox.x + panelBox.width - 0.5);
      }
      await shot(page, `reader-contents-${size}`);

      // Opened, the panel has the focus on its first entry; Escape closes it and gives the focus
      // back to its button.
      expect(await focused(page)).toBe(String(OUTLINE[0]?.[2]));
      await page.keyboard.press('Escape');
      await gone(panel);
      expect(await focused(page)).toBe('contents');
      expect(await tool(page, 'contents').getAttribute('aria-expanded')).toBe('false');

      await tool(page, 'contents').click();
      await page.locator('#panel-contents nav a', { hasText: 'The Tides' }).click();
      await expectCounter(page, counterFor(5, spread));
      expect(new URL(page.url()).hash).toBe('#page=5');
      // On a phone the panel covered the book: it closes to show the page.
      if (spread) await shown(panel);
      else await gone(panel);
      if (!spread) await tool(page, 'contents').click();
      await page.locator('#panel-contents nav a', { hasText: 'The Storm' }).click();
      await expectCounter(page, counterFor(7, spread));
    });

    it('links on the page: internal ones turn, web and mail ones open safely, named by their text', async () => {
      const page = await openAlmanac(options, spread, 2);
      await imagesLoaded(page);
      const links = page.locator('#stage figure[data-n="2"] a.link');
      await expect.poll(() => links.count()).toBe(CONTENTS.length + 2);
      const web = page.getByRole('link', { name: WEB_TEXT });
      expect(await web.getAttribute('href')).toBe(WEB_LINK);
      expect(await web.getAttribute('target')).toBe('_blank');
      expect(await web.getAttribute('rel')).toBe('noopener noreferrer');
      const mail = page.getByRole('link', { name: MAIL_TEXT });
      expect(await mail.getAttribute('href')).toBe(MAIL_LINK);
      expect(await mail.getAttribute('rel')).toBe('noopener noreferrer');
      // Each link covers the text it is named by: its box is inside the page, where the text is.
      const pageBox = await box(page, '#stage figure[data-n="2"]');
      const webBox = await box(page, `#stage a.link[href="${WEB_LINK}"]`);
      expect(webBox.x).toBeGreaterThan(pageBox.x);
      expect(webBox.x + webBox.width).toBeLessThan(pageBox.x + pageBox.width / 2);
      expect(webBox.y).toBeGreaterThan(pageBox.y + pageBox.height * 0.4);
      expect(webBox.y).toBeLessThan(pageBox.y + pageBox.height * 0.55);

      const tides = page.getByRole('link', { name: /^Part Two: The Tides/ });
      expect(await tides.getAttribute('href')).toBe('#page=5');
      if (spread) {
        // Links grow with the zoom.
        const before = await box(page, '#stage a.link[data-page="5"]');
        await page.getByRole('button', { name: 'Zoom in' }).click();
        await expect
          .poll(async () => (await box(page, '#stage a.link[data-page="5"]')).width)
          .toBeCloseTo(before.width * 1.5, 0);
        await page.getByRole('button', { name: 'Reset zoom' }).click();
        await expect.poll(() => page.locator('.book.zoomed').count()).toBe(0);
        await tides.click();
      } else {
        await tides.tap();
      }
      await expectCounter(page, counterFor(5, spread));
      expect(new URL(page.url()).hash).toBe('#page=5');
    });

    it('page labels in the counter; go to page takes a label or a number', async () => {
      const page = await open(options);
      await page.goto(`${url}#label=5`); // the page the book numbers 5
      await expectCounter(page, counterFor(7, spread));
      expect(await page.locator('#slider').getAttribute('aria-valuetext')).toBe(
        spread ? 'Page 4–5 (6–7 of 8)' : 'Page 5 (7 of 8)',
      );
      await page.locator('#counter').click();
      const panel = page.locator('#panel-goto');
      await shown(panel);
      expect(await focused(page)).toBe('goto-input');
      await page.locator('#goto-input').fill('ii');
      await page.locator('#goto-input').press('Enter');
      await expectCounter(page, counterFor(2, spread));
      await gone(panel);
      // "2" is a label first: the page printed "2" is page 4.
      await page.locator('#counter').click();
      await page.locator('#goto-input').fill('2');
      await page.locator('#goto-input').press('Enter');
      await expectCounter(page, counterFor(4, spread));
      // Not a label, and past the last page: said so, and nothing moves.
      await page.locator('#counter').click();
      await page.locator('#goto-input').fill('vii');
      await page.locator('#goto-input').press('Enter');
      await hasText(page.locator('#panel-goto .message-line'), 'There is no page “vii”.');
      expect(await page.locator('#goto-input').getAttribute('aria-invalid')).toBe('true');
      await page.locator('#goto-input').fill('8');
      await page.locator('#goto-input').press('Enter');
      await expectCounter(page, counterFor(8, spread));
    });

    it('search: hits counted and listed with their page labels, a result turns there', async () => {
      const page = await openAlmanac(options, spread);
      await tool(page, 'search').click();
      await shown(page.locator('#panel-search'));
      expect(await focused(page)).toBe('search-input');
      // A word of page 7 (printed "5") only.
      await page.locator('#search-input').fill(UNIQUE[6] as string);
      await page.locator('#search-input').press('Enter');
      await hasText(page.locator('#search-summary'), 'Hits: 1 · pages: 1');
      await expectCounter(page, counterFor(7, spread));
      const result = page.locator('#search-results li');
      expect(await result.count()).toBe(1);
      expect(await result.locator('.page-label').textContent()).toBe('Page 5');
      expect(await result.locator('mark').textContent()).toBe(UNIQUE[6]);
      expect(await result.textContent()).toContain('keeper wrote of');

      // A word on many pages (the running head has it): every hit counted and listed.
      const perPage = almanacText.map((p) => p.text.toLowerCase().split('keeper').length - 1);
      const hits = perPage.reduce((a, b) => a + b, 0);
      const pages = perPage.filter((k) => k > 0).length;
      expect(pages).toBeGreaterThan(5);
      await page.locator('#search-input').fill('Keeper');
      await page.locator('#search-input').press('Enter');
      await hasText(page.locator('#search-summary'), `Hits: ${hits} · pages: ${pages}`);
      expect(await result.count()).toBe(hits);
      expect(await result.locator('.page-label').allTextContents()).toEqual(
        perPage.flatMap((k, i) => Array.from({ length: k }, () => `Page ${LABELS[i]}`)),
      );
      for (const mark of await result.locator('mark').allTextContents()) {
        expect(mark).toMatch(/^keeper$/i);
      }

      // Back to the unique word, then elsewhere; its result turns back to it.
      await page.locator('#search-input').fill(UNIQUE[6] as string);
      await page.locator('#search-input').press('Enter');
      await hasText(page.locator('#search-summary'), 'Hits: 1 · pages: 1');
      await expectCounter(page, counterFor(7, spread));
      await imagesLoaded(page);
      // The word is lit on the page, over its text (the page's words.json): the one line that
      // has it, past the words before it, as wide as a word.
      const hit = page.locator('#stage figure[data-n="7"] .hit');
      await expect.poll(() => hit.count()).toBe(1);
      const figure = await box(page, '#stage figure[data-n="7"]');
      const lit = await box(page, '#stage figure[data-n="7"] .hit');
      expect(lit.x).toBeGreaterThan(figure.x + figure.width * 0.3);
      expect(lit.width).toBeLessThan(figure.width * 0.2);
      expect(lit.y).toBeGreaterThan(figure.y + figure.height * 0.4);
      expect(lit.y).toBeLessThan(figure.y + figure.height * 0.5);
      await shot(page, `reader-search-${size}`);
      if (!spread) {
        await page.locator('#panel-search .panel-close').click();
        await gone(page.locator('#panel-search'));
        await page.keyboard.press('Home');
        await expectCounter(page, counterFor(1, spread));
        await tool(page, 'search').click();
      } else {
        await page.locator('#book').focus();
        await page.keyboard.press('Home');
        await expectCounter(page, counterFor(1, spread));
      }
      await result.locator('a').click();
      await expectCounter(page, counterFor(7, spread));
    });

    it('thumbnails: one lazy img_min per page, arrow keys move between them, Enter and click turn', async () => {
      const page = await openAlmanac(options, spread);
      expect(
        await page.getByRole('button', { name: 'Pages', exact: true }).getAttribute('data-panel'),
      ).toBe('thumbnails');
      await tool(page, 'thumbnails').click();
      await shown(page.locator('#panel-thumbnails'));
      const thumbs = page.locator('#panel-thumbnails .thumb');
      expect(await thumbs.count()).toBe(TOTAL);
      const imgs = await js<{ src: string; loading: string; label: string | null }[]>(
        page,
        `[...document.querySelectorAll('#panel-thumbnails .thumb')].map((b) => ({
          src: b.querySelector('img').src, loading: b.querySelector('img').loading,
          label: b.getAttribute('aria-label') }))`,
      );
      imgs.forEach((img, i) => {
        expect(img.src).toBe(`${origin}/files/pages/${versionId}/${i + 1}/min.jpg`);
        expect(img.loading).toBe('lazy');
        expect(img.label).toBe(`Page ${LABELS[i]}`);
      });
      // Each thumbnail has its page's shape.
      for (const n of [3, 4, 6]) {
        const frame = await box(page, `#panel-thumbnails [data-page="${n}"] .thumb-frame`);
        const [w, h] = PAGE_SIZES[n - 1] as [number, number];
        expect(frame.width / frame.height).toBeCloseTo(w / h, 1);
      }
      // Focus starts on the current page; the arrows move it.
      expect(await focused(page)).toBe('1');
      expect(await thumbs.first().getAttribute('aria-current')).toBe('page');
      await page.keyboard.press('ArrowRight');
      expect(await focused(page)).toBe('2');
      await page.keyboard.press('ArrowRight');
      expect(await focused(page)).toBe('3');
      await page.keyboard.press('ArrowLeft');
      expect(await focused(page)).toBe('2');
      const columns = await js<number>(
        page,
        `getComputedStyle(document.querySelector('.thumbs')).gridTemplateColumns.split(' ').length`,
      );
      expect(columns).toBeGreaterThan(1);
      await page.keyboard.press('ArrowDown');
      expect(await focused(page)).toBe(String(Math.min(TOTAL, 2 + columns)));
      await page.keyboard.press('End');
      expect(await focused(page)).toBe(String(TOTAL));
      await page.keyboard.press('ArrowUp');
      const up = Number(await focused(page));
      expect(up).toBe(TOTAL - columns);
      await page.keyboard.press('Enter');
      await expectCounter(page, counterFor(up, spread));
      if (spread) {
        await imagesLoaded(page, '#panel-thumbnails img');
        await imagesLoaded(page);
        await shot(page, 'reader-thumbnails-desktop');
        await thumbs.nth(5).click();
        await expectCounter(page, counterFor(6, spread));
        expect(await thumbs.nth(5).getAttribute('aria-current')).toBe('page');
        expect(await thumbs.nth(6).getAttribute('aria-current')).toBe('page');
      } else {
        // On a phone the panel covers the book: it closes when a page is chosen.
        await gone(page.locator('#panel-thumbnails'));
        await tool(page, 'thumbnails').click();
        await thumbs.nth(5).tap();
        await expectCounter(page, counterFor(6, spread));
      }
    });

    it('share: the link, the link to this page and an <iframe> snippet; Copy copies', async () => {
      const page = await openAlmanac(
        {
          ...options,
          permissions: ['clipboard-read', 'clipboard-write'],
        },
        spread,
        5,
      );
      await tool(page, 'share').click();
      await shown(page.locator('#panel-share'));
      expect(await page.locator('#share-link').inputValue()).toBe(url);
      expect(await page.locator('#share-page').inputValue()).toBe(`${url}#page=5`);
      const embed = await page.locator('#share-embed').inputValue();
      // (it opens at this page unless told otherwise: readerPolish.e2e)
      expect(embed).toMatch(
        new RegExp(`^<iframe src="${url}#page=5" [^>]*title="[^"]+"[^>]*></iframe>$`),
      );
      expect(embed).toContain('title="The Lighthouse Keeper’s Almanac"');
      await page.getByRole('button', { name: 'Copy: Link to this page' }).click();
      await hasText(page.locator('#panel-share .message-line'), 'Copied: Link to this page.');
      expect(await js<string>(page, 'navigator.clipboard.readText()')).toBe(`${url}#page=5`);
      await page.getByRole('button', { name: 'Copy: Link to the flipbook' }).click();
      await hasText(page.locator('#panel-share .message-line'), 'Copied: Link to the flipbook.');
      expect(await js<string>(page, 'navigator.clipboard.readText()')).toBe(url);
      // The page link follows the turns.
      await page.locator('.controls [data-action="next"]').click();
      await hasValue(page.locator('#share-page'), `${url}#page=6`);
      if (spread) {
        await imagesLoaded(page);
        await shot(page, 'reader-share-desktop');
      }
    });

    it('no serious or critical axe violations with each panel open', async () => {
      const page = await openAlmanac({ ...options, bypassCSP: true }, spread);
      await imagesLoaded(page);
      const found: Record<string, unknown[]> = { stage: await axe(page) };
      for (const name of ['contents', 'thumbnails', 'search', 'share', 'goto']) {
        const button = name === 'goto' ? page.locator('#counter') : tool(page, name);
        await button.click();
        await shown(page.locator(`#panel-${name}`));
        if (name === 'contents') await page.waitForSelector('#panel-contents nav a');
        if (name === 'search') {
          await page.locator('#search-input').fill('lantern');
          await page.locator('#search-input').press('Enter');
          await shown(page.locator('#search-results li').first());
        }
        found[name] = await axe(page);
        await page.keyboard.press('Escape');
        await gone(page.locator(`#panel-${name}`));
      }
      // Zoomed, too (the book becomes focusable then).
      await page.getByRole('button', { name: 'Zoom in' }).click();
      await page.waitForSelector('.book.zoomed');
      found.zoomed = await axe(page);
      expect(found).toEqual({
        stage: [],
        contents: [],
        thumbnails: [],
        search: [],
        share: [],
        goto: [],
        zoomed: [],
      });
    });
  });

  it('desktop zoom: the buttons, a double-click, Escape on the book and the reset button', async () => {
    const page = await openAlmanac(DESKTOP, true);
    await imagesLoaded(page);
    const img = '#stage figure[data-n="1"] img';
    const width = async () => (await box(page, img)).width;
    const base = await width();
    expect(await page.locator('[data-action="zoom-out"]').isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Zoom in' }).click();
    await expect.poll(width).toBeCloseTo(base * 1.5, 0);
    await page.getByRole('button', { name: 'Zoom in' }).click();
    await expect.poll(width).toBeCloseTo(base * 2.25, 0);
    // Zoomed, the wheel pans and never turns.
    const stage = await box(page, '#book');
    await page.mouse.move(stage.x + stage.width / 2, stage.y + stage.height / 2);
    const top = (await box(page, img)).y;
    await page.mouse.wheel(0, 200);
    await expect.poll(async () => (await box(page, img)).y).toBeLessThan(top - 100);
    expect(await counter(page)).toBe(counterFor(1, true));
    // The big image once zoomed.
    await expect
      .poll(() => js<string>(page, `document.querySelector(${JSON.stringify(img)}).currentSrc`))
      .toMatch(/\/max\.jpg$/);
    await page.getByRole('button', { name: 'Zoom out' }).click();
    await expect.poll(width).toBeCloseTo(base * 1.5, 0);
    await page.getByRole('button', { name: 'Reset zoom' }).click();
    await expect.poll(width).toBeCloseTo(base, 0);
    expect(await page.locator('.book.zoomed').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Reset zoom' }).isHidden()).toBe(true);

    // A double-click zooms in about the point, and the book takes the keys: Escape resets.
    const cover = await box(page, img);
    // (Across the middle: near an edge the page would be moved to fill the book.)
    const at = { x: cover.x + cover.width * 0.5, y: cover.y + cover.height * 0.3 };
    await page.mouse.dblclick(at.x, at.y);
    await expect.poll(width).toBeCloseTo(base * 2.5, 0);
    // The point under the pointer stays under it.
    const zoomedBox = await box(page, img);
    expect(zoomedBox.x + zoomedBox.width * 0.5).toBeCloseTo(at.x, -1);
    expect(zoomedBox.y + zoomedBox.height * 0.3).toBeCloseTo(at.y, -1);
    expect(await focused(page)).toBe('book');
    await page.keyboard.press('Escape');
    await expect.poll(width).toBeCloseTo(base, 0);
    // Keys: + zooms, 0 resets, and unzoomed the arrows turn again.
    await page.keyboard.press('+');
    await expect.poll(width).toBeCloseTo(base * 1.5, 0);
    await page.keyboard.press('0');
    await expect.poll(width).toBeCloseTo(base, 0);
    await page.keyboard.press('ArrowRight');
    await expectCounter(page, counterFor(2, true));
  });

  it('phone zoom: a pinch grows the page past the screen and brings img_max; pinching in resets', async () => {
    const page = await openAlmanac(PHONE, false, 3);
    await imagesLoaded(page);
    const img = '#stage figure[data-n="3"] img';
    const base = await box(page, img);
    // The page uses most of the screen's width.
    expect(base.width).toBeGreaterThan(390 * 0.85);
    const cy = base.y + base.height * 0.3;
    await pinch(page, 195, cy, 40, 130);
    await page.waitForSelector('.book.zoomed');
    const zoomed = await box(page, img);
    expect(zoomed.width).toBeGreaterThan(390 * 2);
    expect(zoomed.width / base.width).toBeGreaterThan(2.5);
    await expect
      .poll(() => js<string>(page, `document.querySelector(${JSON.stringify(img)}).currentSrc`))
      .toMatch(/\/max\.jpg$/);
    await imagesLoaded(page);
    expect(await counter(page)).toBe(counterFor(3, false)); // a pinch never turns
    await shot(page, 'reader-zoom-phone');
    // Zoomed, one finger pans instead of turning.
    const before = await box(page, img);
    await swipe(page, 300, 100, cy);
    await expect.poll(async () => (await box(page, img)).x).toBeLessThan(before.x - 50);
    expect(await counter(page)).toBe(counterFor(3, false));
    await pinch(page, 195, cy, 130, 20);
    await page.waitForSelector('.book:not(.zoomed)');
    await expect.poll(async () => (await box(page, img)).width).toBeCloseTo(base.width, 0);
    // A double tap zooms in, and another out.
    const tap = async () => {
      await page.touchscreen.tap(195, cy);
    };
    await tap();
    await tap();
    await page.waitForSelector('.book.zoomed');
    await tap();
    await tap();
    await page.waitForSelector('.book:not(.zoomed)');
  });

  it('true page shapes: landscape and tall pages keep their aspect, in a spread and alone', async () => {
    const ratioOf = (n: number) => {
      const [w, h] = PAGE_SIZES[n - 1] as [number, number];
      return w / h;
    };
    const check = async (page: Page, pages: number[]) => {
      await imagesLoaded(page);
      for (const n of pages) {
        const img = await box(page, `#stage figure[data-n="${n}"] img`);
        const ratio = img.width / img.height;
        expect(Math.abs(ratio / ratioOf(n) - 1), `page ${n}: ${ratio}`).toBeLessThan(0.02);
      }
      // A spread's pages share one height, as in a bound book, and fit the stage.
      const boxes = await Promise.all(
        pages.map((n) => box(page, `#stage figure[data-n="${n}"] img`)),
      );
      const stage = await box(page, '#stage');
      for (const b of boxes) {
        expect(b.height).toBeCloseTo(boxes[0]?.height ?? 0, 0);
        expect(b.x).toBeGreaterThanOrEqual(stage.x - 0.5);
        expect(b.x + b.width).toBeLessThanOrEqual(stage.x + stage.width + 0.5);
        expect(b.y).toBeGreaterThanOrEqual(stage.y - 0.5);
        expect(b.y + b.height).toBeLessThanOrEqual(stage.y + stage.height + 0.5);
      }
    };

    const desktop = await openAlmanac(DESKTOP, true, 4); // landscape 4 beside portrait 5
    await check(desktop, [4, 5]);
    // The spine is at the stage's centre... of the pair: the pages touch.
    const [p4, p5] = await Promise.all([
      box(desktop, '#stage figure[data-n="4"]'),
      box(desktop, '#stage figure[data-n="5"]'),
    ]);
    expect(p5.x).toBeCloseTo(p4.x + p4.width, 0);
    await shot(desktop, 'reader-spread-shapes-desktop');
    await desktop.keyboard.press('ArrowRight'); // tall 6 beside portrait 7
    await expectCounter(desktop, counterFor(6, true));
    await check(desktop, [6, 7]);

    const phone = await open(PHONE);
    for (const n of [4, 6, 3]) {
      await phone.goto(`${url}#page=${n}`);
      await expectCounter(phone, counterFor(n, false));
      await check(phone, [n]);
    }

    // The image hints are the real pixel sizes: mid of a portrait page is under 1000 px wide.
    for (const n of [3, 4, 6]) {
      await desktop.goto(`${url}#page=${n}`);
      await expectCounter(desktop, counterFor(n, true));
      const img = desktop.locator(`#stage figure[data-n="${n}"] img`);
      const srcset = (await img.getAttribute('srcset')) ?? '';
      const candidates = srcset.split(', ').map((c) => {
        const [src = '', w = ''] = c.split(' ');
        return { src, w: Number(w.replace(/w$/, '')) };
      });
      expect(candidates.map((c) => c.src.split('/').at(-1))).toEqual([
        'min.jpg',
        'mid.jpg',
        'max.jpg',
      ]);
      for (const candidate of candidates) {
        const bytes = Buffer.from(
          await (await fetch(new URL(candidate.src, origin))).arrayBuffer(),
        );
        const meta = await sharp(bytes).metadata();
        // The renditions are made at a long edge of 2000 (pdftoppm) then 1000 and 300 (sharp),
        // each rounding its own way: the reader's estimate may be a pixel off, never more.
        expect(Math.abs(candidate.w - (meta.width ?? 0)), candidate.src).toBeLessThanOrEqual(1);
      }
      const mid = candidates[1]?.w ?? 0;
      if (ratioOf(n) < 1) expect(mid).toBeLessThan(1000);
      expect(Number(await img.getAttribute('width'))).toBe(mid);
      expect(Math.abs(Number(await img.getAttribute('height')) - mid / ratioOf(n))).toBeLessThan(2);
    }
  });

  it('right to left: the Arabic book mirrors its order, keys, swipe and edges; search finds its words', async () => {
    const page = await open(DESKTOP);
    await page.goto(arabicUrl);
    await expectCounter(page, '1 / 4');
    const book = page.locator('main#book');
    expect(await book.getAttribute('dir')).toBe('rtl');
    expect(await book.getAttribute('lang')).toBe('ar');
    await imagesLoaded(page);
    // The cover stands alone, centred (as any lone page): the order shows in the spreads.
    const stage = await box(page, '#stage');
    const cover = await box(page, '#stage figure[data-n="1"]');
    expect(await page.locator('#stage figure[data-n]').count()).toBe(1);
    expect(Math.abs(cover.x + cover.width / 2 - (stage.x + stage.width / 2))).toBeLessThan(2);
    expect(await page.locator('.edge.left').getAttribute('aria-label')).toBe('Next page');
    expect(await page.locator('.edge.right').getAttribute('aria-label')).toBe('Previous page');
    await page.keyboard.press('ArrowLeft');
    await expectCounter(page, '2–3 / 4');
    // Page 2 on the right, 3 on the left.
    const [two, three] = await Promise.all([
      box(page, '#stage figure[data-n="2"]'),
      box(page, '#stage figure[data-n="3"]'),
    ]);
    expect(three.x).toBeLessThan(two.x);
    await imagesLoaded(page);
    await shot(page, 'reader-rtl-desktop');
    // The edge arrows point to their own side (the bidi algorithm mirrors ‹ and › in a
    // right-to-left paragraph): the left one, "Next page" here, points left, as in the almanac.
    const ltr = await openAlmanac(DESKTOP, true, 4);
    expect(await pointsLeft(ltr, '.edge.left')).toBe(true);
    expect(await pointsLeft(ltr, '.edge.right')).toBe(false);
    expect(await pointsLeft(page, '.edge.left')).toBe(true);
    expect(await pointsLeft(page, '.edge.right')).toBe(false);
    await page.keyboard.press('ArrowRight');
    await expectCounter(page, '1 / 4');
    await page.locator('.edge.left').click();
    await expectCounter(page, '2–3 / 4');

    // A word of its text, as text.json has it (in logical order), found by search.
    const word = arabicText
      .map((p) => /\p{Script=Arabic}[\p{Script=Arabic}\p{M}]+/u.exec(p.text)?.[0])
      .find(Boolean);
    if (!word) throw new Error(`no Arabic word in ${JSON.stringify(arabicText)}`);
    await tool(page, 'search').click();
    await page.locator('#search-input').fill(word);
    await page.locator('#search-input').press('Enter');
    await hasText(page.locator('#search-summary'), /^Hits: \d+ · pages: \d+$/);
    expect(await page.locator('#search-results li').count()).toBeGreaterThan(0);
    expect(await page.locator('#search-results mark').first().textContent()).toBe(word);

    // On a phone: one page, and a finger moving left to right turns to the next page.
    const phone = await open(PHONE);
    await phone.goto(arabicUrl);
    await expectCounter(phone, '1 / 4');
    const area = await box(phone, '#stage');
    const y = area.y + area.height / 2;
    await swipe(phone, 60, 320, y);
    await expectCounter(phone, '2 / 4');
    await swipe(phone, 320, 60, y);
    await expectCounter(phone, '1 / 4');
  });

  it('without JavaScript: the pages as a list of images, and the document scrolls', async () => {
    const page = await open({ ...PHONE, javaScriptEnabled: false });
    await page.goto(url);
    const images = page.locator('.noscript-pages img');
    expect(await images.count()).toBe(TOTAL);
    await shown(page.locator('p.noscript'));
    expect(await images.first().getAttribute('alt')).toBe(`Page ${LABELS[0]}`);
    await expect
      .poll(() =>
        images.first().evaluate((i) => (i as unknown as { naturalWidth: number }).naturalWidth),
      )
      .toBeGreaterThan(0);
    // The pages keep their shapes (width and height given: no shift as they load).
    const tall = await images.nth(5).boundingBox();
    if (!tall) throw new Error('no box');
    expect(tall.width / tall.height).toBeCloseTo(400 / 1200, 1);
    await imagesLoaded(page, '.noscript-pages li:first-child img');
    await shot(page, 'reader-noscript-phone');
    await page.mouse.wheel(0, 3000);
    await expect.poll(() => js<number>(page, 'scrollY')).toBeGreaterThan(1000);
    await images.last().scrollIntoViewIfNeeded();
    await expect
      .poll(() =>
        images.last().evaluate((i) => (i as unknown as { naturalWidth: number }).naturalWidth),
      )
      .toBeGreaterThan(0);
  });

  it.each(SIZES)(
    '%s: a page whose image is slow to come shows its words in place, then its image over them',
    async (size, options) => {
      const page = await open(options);
      // Page 5's images held back: a slow link's stand-in. Its words (words.json) come first.
      const release = await holdImages(page, '5');
      // (not awaiting `load`, which waits for the images held)
      await page.goto(`${url}#page=5`, { waitUntil: 'domcontentloaded' });
      const words = page.locator('#stage figure[data-n="5"] .words-in-place');
      try {
        await expect.poll(() => words.textContent(), { timeout: 10_000 }).toContain(UNIQUE[4]);
        // Hidden from screen readers (the image's alternative text says the page), and on the page.
        expect(await words.getAttribute('aria-hidden')).toBe('true');
        const figure = await box(page, '#stage figure[data-n="5"]');
        const word = await box(page, '#stage figure[data-n="5"] .words-in-place span');
        expect(word.x).toBeGreaterThanOrEqual(figure.x - 1);
        expect(word.y + word.height).toBeLessThanOrEqual(figure.y + figure.height + 1);
        expect(word.height).toBeGreaterThan(2);
        await page.screenshot({ path: join(DOCS_IMAGES, `reader-words-in-place-${size}.png`) });
      } finally {
        release();
      }
      await imagesLoaded(page, '#stage img[data-n="5"]');
      await expect.poll(() => words.count()).toBe(0);
    },
  );

  it('takes the words away once a deep zoom’s tiles cover the page, its image still held', async () => {
    const page = await open(PHONE);
    const release = await holdImages(page, '5');
    await page.goto(`${url}#page=5`, { waitUntil: 'domcontentloaded' });
    const figure = page.locator('#stage figure[data-n="5"]');
    const words = figure.locator('.words-in-place');
    try {
      await expect.poll(() => words.count(), { timeout: 10_000 }).toBe(1);
      // Zoomed all the way, past what the largest image holds: the tiles of the part on screen.
      const zoomIn = page.locator('[data-action="zoom-in"]');
      for (let i = 0; i < 8 && !(await zoomIn.isDisabled()); i++) await zoomIn.click();
      await expect
        .poll(
          () =>
            figure
              .locator('.tiles img')
              .evaluateAll(
                (imgs) =>
                  imgs.filter((i) => (i as unknown as { naturalWidth: number }).naturalWidth > 0)
                    .length,
              ),
          { timeout: 10_000 },
        )
        .toBeGreaterThan(0);
      // The real pixels win: no words drawn over them (each line twice, a little apart), once
      // the tiles on screen are in (the first one in is not all of them: under load the rest
      // came a moment later).
      await expect.poll(() => words.count(), { timeout: 10_000 }).toBe(0);
    } finally {
      release();
    }
  });

  /** Runs `jump`, then gives the text drawn in place in the frame after page n's figure is on the stage. */
  const firstFrame = (page: Page, n: number, jump: string) =>
    page.evaluate(`new Promise((resolve) => {
      ${jump};
      const frame = () => {
        const figure = document.querySelector('#stage figure[data-n="${n}"]');
        if (!figure) return requestAnimationFrame(frame);
        requestAnimationFrame(() =>
          resolve(figure.querySelector('.words-in-place')?.textContent ?? ''),
        );
      };
      frame();
    })`);

  it('has every page’s lines once page 1 is in: a jump anywhere shows the page’s text in its first frame', async () => {
    const page = await open(PHONE);
    const entry = OUTLINE[3]?.[2] ?? 0; // "The Storm", an entry of the contents
    const typed = TOTAL; // on no link and in no entry
    const release = await holdImages(page, `${entry}|${typed}`);
    // One file for the whole book, once page 1's image is in, before any jump.
    const lines = page.waitForResponse(/\/lines\.json$/);
    await page.goto(url, { waitUntil: 'domcontentloaded' });
    expect((await lines).status()).toBe(200);
    await (await lines).finished();
    // (page 1's own words may have been asked for while its image came, before the lines)
    const words: string[] = [];
    page.on('request', (r) => r.url().endsWith('words.json') && words.push(r.url()));
    try {
      expect(await firstFrame(page, entry, `location.hash = '#page=${entry}'`)).toContain(
        UNIQUE[entry - 1],
      );
      await page.locator('#counter').click();
      await page.locator('#goto-input').fill(LABELS[typed - 1] ?? '');
      expect(
        await firstFrame(page, typed, `document.getElementById('goto-input').form.requestSubmit()`),
      ).toContain(UNIQUE[typed - 1]);
      // Each line one element, stretched to its box: a fraction of the page's words.
      const spans = page.locator(`#stage figure[data-n="${typed}"] .words-in-place span`);
      const pageWords = (
        (await (await fetch(`${origin}/files/pages/${versionId}/${typed}/words.json`)).json()) as {
          words: unknown[];
        }
      ).words.length;
      expect(await spans.count()).toBeGreaterThan(0);
      expect(await spans.count()).toBeLessThan(pageWords / 3);
      expect(words).toEqual([]); // no page's words asked for: the lines were here
    } finally {
      release();
    }
  });

  it('lays a right-to-left line out as it is read, stretched to its box (Arabic letters join)', async () => {
    type Line = [number, number, number, number, string];
    const { pages } = (await (
      await fetch(`${origin}/files/pages/${rtlVersion}/lines.json`)
    ).json()) as { pages: Line[][] };
    const n = 2;
    const line = pages[n - 1]?.find((l) => l[4].includes('الكتاب مفتوح'));
    if (!line) throw new Error(`no such line on page 2: ${JSON.stringify(pages[1])}`);
    // as read, after a right-to-left mark: the direction the text pass found its paragraph in
    expect(line[4]).toBe(
      '\u200fالكتاب مفتوح على الطاولة، وعبارة Open Source في وسط السطر، والنافذة مفتوحة.',
    );
    const page = await open(DESKTOP);
    const lines = page.waitForResponse(/\/lines\.json$/);
    await page.goto(rtlUrl, { waitUntil: 'domcontentloaded' });
    await (await lines).finished();
    const release = await holdImages(page, String(n));
    try {
      await page.evaluate(`location.hash = '#page=${n}'`);
      const text = JSON.stringify(line[4]);
      const measured = () =>
        page.evaluate(`(() => {
          const figure = document.querySelector('#stage figure[data-n="${n}"]');
          const span = [...(figure?.querySelectorAll('.words-in-place span') ?? [])].find((s) => s.textContent === ${text});
          if (!span) return null;
          // where the line's first and last words are drawn
          const at = (from, to) => {
            const range = document.createRange();
            range.setStart(span.firstChild, from);
            range.setEnd(span.firstChild, to);
            return range.getBoundingClientRect().left;
          };
          const length = span.textContent.length;
          return [span.getBoundingClientRect().width, figure.getBoundingClientRect().width, at(1, 7), at(length - 8, length)];
        })()`) as Promise<[number, number, number, number] | null>;
      await expect.poll(measured, { timeout: 10_000 }).not.toBeNull();
      const [drawn = 0, figureWidth = 0, first = 0, last = 0] = (await measured()) ?? [];
      // as wide as the line's box on the page (a letter measured alone is a quarter wider)
      expect(drawn / (line[2] * figureWidth)).toBeGreaterThan(0.9);
      expect(drawn / (line[2] * figureWidth)).toBeLessThan(1.1);
      // read from the right: its first word drawn right of its last
      expect(first).toBeGreaterThan(last + 0.5 * drawn);
    } finally {
      release();
    }
  });

  it.each([
    ['without lines.json (a version processed before it)', 'none'],
    ['with a lines.json over the budget (400 KB on the wire)', 'large'],
  ] as const)(
    '%s: the words of a contents entry, and of a page typed in go to page, come before the jump and show in its first frame',
    async (_, lines) => {
      const page = await open(PHONE);
      if (lines === 'none') {
        // The reader's page as a version processed before lines.json has it: none to fetch.
        await page.route(url, async (route) => {
          const response = await route.fetch();
          const body = (await response.text()).replace(/"lines":"[^"]*"/, '"lines":null');
          expect(body).toContain('"lines":null');
          await route.fulfill({ response, body });
        });
      } else {
        // A book of dense text: the file is left once its size is known, its pages never read.
        const pages = Array.from({ length: 2000 }, (_, i) => [
          [0.1, 0.1, 0.8, 0.02, `${i} `.repeat(60)],
        ]);
        await page.route(/\/lines\.json$/, (route) =>
          route.fulfill({ contentType: 'application/json', body: JSON.stringify({ pages }) }),
        );
      }
      const entry = OUTLINE[3]?.[2] ?? 0; // "The Storm", an entry of the contents
      const typed = TOTAL; // on no link and in no entry: its words come when it is typed
      const release = await holdImages(page, `${entry}|${typed}`);
      // The entry's words: fetched once page 1's image is in, before any jump.
      const ahead = page.waitForResponse(new RegExp(`/${entry}/words\\.json`));
      await page.goto(url, { waitUntil: 'domcontentloaded' });
      await (await ahead).finished();
      try {
        // Without them here, a slow image's words come 100 ms later, after a request.
        expect(await firstFrame(page, entry, `location.hash = '#page=${entry}'`)).toContain(
          UNIQUE[entry - 1],
        );
        await page.locator('#counter').click();
        const asked = page.waitForResponse(new RegExp(`/${typed}/words\\.json`));
        await page.locator('#goto-input').fill(LABELS[typed - 1] ?? '');
        await (await asked).finished();
        expect(
          await firstFrame(
            page,
            typed,
            `document.getElementById('goto-input').form.requestSubmit()`,
          ),
        ).toContain(UNIQUE[typed - 1]);
      } finally {
        release();
      }
    },
  );
});
