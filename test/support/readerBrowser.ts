// Driving the reader in real headless Chromium (Debian's chromium-headless-shell, playwright-core):
// the browser, the screens the reader is tested at, touch gestures by CDP, and axe-core.
import { createRequire } from 'node:module';
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Page,
} from 'playwright-core';
import { afterEach, expect } from 'vitest';

/**
 * Debian's Chromium, headless: the one browser every browser suite (reader and dashboard) drives.
 * Its headless shell (the same Blink, V8 and version as /usr/bin/chromium, without the desktop
 * browser around them: Playwright's own default for headless) and not the full browser in its
 * headless mode: on readerPolish, 50 s of the browsers' CPU instead of 116 s and 62 processes
 * instead of 175, the same 24 tests passing and the same screenshots (measured 2026-12-05). The
 * browsers were the suite's largest use of CPU. The benchmarks keep the full browser.
 */
export const launchChromium = () =>
  chromium.launch({
    executablePath: '/usr/bin/chromium-headless-shell',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });

export const DESKTOP: BrowserContextOptions = { viewport: { width: 1440, height: 900 } };
/** A 3× phone held upright, with touch. */
export const PHONE3: BrowserContextOptions = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 3,
  isMobile: true,
  hasTouch: true,
};
/** The same phone on its side. */
export const PHONE3_SIDEWAYS: BrowserContextOptions = {
  ...PHONE3,
  viewport: { width: 844, height: 390 },
};

/**
 * Pages for the tests of the suite it is called in, each in a browser context of its own with
 * reduced motion (unless the options say otherwise). After each test the contexts close, and no
 * page may have logged a console error, thrown, or opened a dialog (dismissed, and a problem).
 */
export const watchedPages = (browser: () => Browser) => {
  let contexts: BrowserContext[] = [];
  let problems: string[] = [];
  afterEach(async () => {
    await Promise.all(contexts.map((context) => context.close()));
    contexts = [];
    const seen = problems;
    problems = [];
    expect(seen).toEqual([]);
  });
  return async (options: BrowserContextOptions): Promise<Page> => {
    const context = await browser().newContext({ reducedMotion: 'reduce', ...options });
    contexts.push(context);
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') {
        problems.push(`console: ${message.text()} (${message.location().url})`);
      }
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('dialog', (dialog) => {
      problems.push(`dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
    return page;
  };
};

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/**
 * axe-core's violations of the page as it is, of every impact unless `impacts` says which (the
 * context needs bypassCSP: the reader's CSP keeps an injected script out).
 */
export const axeOf = async (page: Page, impacts?: string[]) => {
  if (!(await page.evaluate(`typeof axe !== 'undefined'`))) await page.addScriptTag({ path: AXE });
  const violations = (await page.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({
      id: v.id, impact: v.impact, targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')),
    })))`,
  )) as { id: string; impact: string; targets: string[] }[];
  return impacts ? violations.filter((v) => impacts.includes(v.impact)) : violations;
};

type TouchPoint = { x: number; y: number; id?: number };

/** A touch gesture by CDP: the fingers at each step, from touching down to lifting. */
export const touch = async (page: Page, steps: TouchPoint[][]) => {
  const cdp = await page.context().newCDPSession(page);
  const [first, ...moves] = steps;
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: first ?? [] });
  for (const points of moves) {
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: points });
  }
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
};

/** A one-finger drag from (x0, y0) to (x1, y1) in four moves. */
export const drag = (page: Page, x0: number, y0: number, x1: number, y1: number) =>
  touch(
    page,
    [0, 1, 2, 3, 4].map((i) => [{ x: x0 + ((x1 - x0) * i) / 4, y: y0 + ((y1 - y0) * i) / 4 }]),
  );

/** A one-finger swipe across the book (from x0 to x1 at height y). */
export const swipe = (page: Page, x0: number, x1: number, y: number) => drag(page, x0, y, x1, y);

/** Two fingers about (cx, cy), from `from` px either side of it to `to` px. */
export const pinch = (page: Page, cx: number, cy: number, from: number, to: number) =>
  touch(
    page,
    [0, 1, 2, 3, 4, 5, 6].map((i) => {
      const d = from + ((to - from) * i) / 6;
      return [
        { x: cx - d, y: cy, id: 1 },
        { x: cx + d, y: cy, id: 2 },
      ];
    }),
  );

/** A tap with one finger. */
export const tap = (page: Page, x: number, y: number) => touch(page, [[{ x, y }]]);
