// Reader analytics end to end (issue 30): real Chromium reads a flipbook on a real daemon, and the
// figures come back from GET /flipbooks/:id/stats within seconds. Not counted: Do Not Track,
// Global Privacy Control, a robot. No cookie and no Set-Cookie on any reader response, nothing
// in the browser's storage. The page's clock is Playwright's (time on a page is injected, not
// waited for); the reader turns without animation (reduced motion).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContextOptions, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiFixture, startApi } from '../support/apiFixture.ts';
import {
  type Client,
  client,
  createFlipbook,
  expectError,
  expectJson,
  type Json,
  pdf,
  SMALL_PDF,
  waitActive,
} from '../support/apiHelpers.ts';
import { flipbook, startDaemon } from '../support/cli.ts';
import { countryDatabase } from '../support/mmdbWriter.ts';
import { rawExchange } from '../support/rawHttp.ts';
import { launchChromium } from '../support/readerBrowser.ts';
import { waitFor } from '../support/waitFor.ts';

/** A desktop Chrome: headless Chromium's own user agent says HeadlessChrome, a robot. */
const CHROME =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
/** One page at a time (a narrow window): what is on screen is one page. */
const WINDOW: BrowserContextOptions = {
  viewport: { width: 420, height: 800 },
  reducedMotion: 'reduce',
  userAgent: CHROME,
};

const isBeacon = (r: Response) => r.url().endsWith('/b') && r.request().method() === 'POST';

describe('reader analytics, in Chromium', () => {
  let fx: ApiFixture;
  let browser: Browser;
  let c: Client;
  let book: { flipbookId: string; versionId: string };
  /** every response the daemon gave the browsers: its URL and its Set-Cookie, if any */
  const responses: Promise<[string, string | undefined]>[] = [];

  beforeAll(async () => {
    [fx, browser] = await Promise.all([
      startApi('embedded', ['--workers', '1', '--rate-limit', '0']),
      launchChromium(),
    ]);
    c = client(fx.api, fx.key);
    book = await createFlipbook(c, { title: 'Counted' }, pdf(SMALL_PDF));
    await waitActive(c, book.flipbookId, book.versionId);
  });
  afterAll(async () => {
    await browser?.close();
    await fx?.stop();
  });

  const stats = async (query = '') => {
    const reply = await c.get(`/flipbooks/${book.flipbookId}/stats${query}`);
    expectJson(reply, 200);
    return reply.body as Json;
  };

  /** A reader in a browser of its own, its clock in the test's hands, its first beacon sent. */
  const openReader = async (url: string, options: BrowserContextOptions = {}) => {
    const context = await browser.newContext({ ...WINDOW, ...options });
    const page = await context.newPage();
    page.on('response', (r) => {
      if (r.url().startsWith(fx.daemon.url)) {
        // (a response still arriving as its context closes has no headers left to read: it
        // rejected unhandled once, failing the test)
        responses.push(
          r.allHeaders().then(
            (headers) => [r.url(), headers['set-cookie']],
            () => [r.url(), undefined],
          ),
        );
      }
    });
    // The page's time moves only as the test says (readFor).
    await page.clock.install();
    await page.clock.pauseAt(Date.now() + 1000);
    const opened = page.waitForResponse(isBeacon);
    await page.goto(url);
    expect((await opened).status()).toBe(202);
    return { context, page };
  };

  /** Reads on for `ms` of the page's time (its timers run: a beacon goes every 5 s). */
  const readFor = (page: Page, ms: number) => page.clock.runFor(ms);

  it('counts what a reader read, page by page, within seconds; robots and opt-outs not at all', async () => {
    const reader = `${fx.daemon.url}/f/${book.flipbookId}`;
    // Not counted, each answered 202 like any other (a robot learns nothing).
    const notCounted: BrowserContextOptions[] = [
      { extraHTTPHeaders: { DNT: '1' } },
      { extraHTTPHeaders: { 'Sec-GPC': '1' } },
      { userAgent: GOOGLEBOT },
    ];
    for (const options of notCounted) {
      const { context, page } = await openReader(reader, options);
      const sent = page.waitForResponse(isBeacon);
      await readFor(page, 2000);
      await page.keyboard.press('ArrowRight');
      await readFor(page, 5000);
      expect((await sent).status()).toBe(202);
      await context.close();
    }

    const { context, page } = await openReader(`${reader}#page=1`);
    await readFor(page, 3000); // page 1: 3 s
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.locator('#counter').textContent()).toBe('2 / 3');
    await readFor(page, 2000); // page 2: 2 s
    await page.keyboard.press('ArrowRight');
    await page.locator('[data-panel="search"]').click();
    await page.locator('#search-input').fill('the');
    await page.locator('#search-input').press('Enter');
    await page.keyboard.press('Escape');
    await page.locator('[data-action="zoom-in"]').click();
    const sent = page.waitForResponse(isBeacon);
    await readFor(page, 5000); // page 3 on screen: the timer sends pages 1 and 2
    expect((await sent).status()).toBe(202);

    // Within 10 s of the beacon, in the report.
    const figures = await waitFor(
      'the reading in the stats',
      async () => {
        const s = await stats();
        return s.views >= 2 ? s : undefined;
      },
      10_000,
    );
    const today = new Date().toISOString().slice(0, 10);
    expect(figures).toMatchObject({
      flipbook_id: book.flipbookId,
      to: today,
      opens: 1,
      readers: 1,
      views: 2,
      searches: 1,
      zooms: 1,
      downloads: 0,
      referrers: [{ name: '(direct)', opens: 1 }],
      devices: [{ name: 'desktop', opens: 1 }],
      share_links: [],
    });
    expect(figures.days).toHaveLength(30);
    expect(figures.days.at(-1)).toMatchObject({ date: today, opens: 1, views: 2, readers: 1 });
    expect(figures.pages.map((p: Json) => [p.position, p.views])).toEqual([
      [1, 1],
      [2, 1],
      [3, 0],
    ]);
    expect(figures.pages[0].seconds).toBeCloseTo(3, 1);
    expect(figures.pages[1].seconds).toBeCloseTo(2, 1);

    // Leaving sends the rest: page 3's time.
    const last = page.waitForResponse(isBeacon);
    await readFor(page, 4000);
    await page.close({ runBeforeUnload: true });
    await last.catch(() => null);
    await waitFor('page 3 in the stats', async () => {
      const s = await stats();
      return s.pages[2].views === 1 ? s : undefined;
    });

    // Nothing kept in the browser: no cookie, no storage; no Set-Cookie anywhere.
    expect(await context.cookies()).toEqual([]);
    await context.close();
    // Counted in the metrics by outcome.
    const metrics = await (await fetch(`${fx.daemon.url}/metrics`)).text();
    const outcome = (name: string) =>
      Number(
        new RegExp(`^flipbook_beacons_total\\{outcome="${name}"\\} (\\d+)$`, 'm').exec(
          metrics,
        )?.[1],
      );
    expect(outcome('dropped')).toBeGreaterThanOrEqual(6);
    expect(outcome('counted')).toBeGreaterThanOrEqual(3);

    const seen = await Promise.all(responses);
    expect(seen.length).toBeGreaterThan(10);
    expect(seen.filter(([, cookie]) => cookie !== undefined)).toEqual([]);
  });

  it('counts a share link’s readers apart, and stays within its own flipbook', async () => {
    const made = await c.post(`/flipbooks/${book.flipbookId}/links`, {
      body: JSON.stringify({ label: 'Board' }),
      headers: { 'content-type': 'application/json' },
    });
    expectJson(made, 201);
    const { context, page } = await openReader(made.body.url, {
      userAgent: CHROME.replace('131', '132'),
    });
    expect(await page.evaluate(() => localStorage.length + sessionStorage.length)).toBe(0);
    await readFor(page, 1500);
    const sent = page.waitForResponse(isBeacon);
    await page.keyboard.press('ArrowRight');
    await readFor(page, 5000);
    await sent;
    const s = await waitFor('the link in the stats', async () => {
      const figures = await stats();
      return figures.share_links[0]?.views ? figures : undefined;
    });
    expect(s.share_links).toEqual([
      {
        id: made.body.id,
        label: 'Board',
        opens: 1,
        views: 1,
        readers: 1,
        read_seconds: expect.closeTo(1.5, 1),
      },
    ]);
    await context.close();

    // Another flipbook's figures are not this one's; another workspace's flipbook is a 404.
    const other = await fx.newWorkspace('elsewhere');
    const theirs = client(fx.api, other.key);
    expectError(
      await theirs.get(`/flipbooks/${book.flipbookId}/stats`),
      404,
      /^Flipbook not found$/,
    );
  });

  it('prints the figures with `flipbook stats`, as a table and as CSV', async () => {
    const env = {
      ...process.env,
      HOME: '/nonexistent',
      FLIPBOOK_URL: fx.daemon.url,
      FLIPBOOK_API_KEY: fx.key,
    };
    const table = await flipbook(['stats', book.flipbookId, '--pages'], env);
    expect(table.stderr).toBe('');
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^Reading figures of [0-9a-f-]{36}, \d{4}-\d{2}-\d{2} to /);
    expect(table.stdout).toMatch(/^opens\s+2$/m);
    expect(table.stdout).toMatch(/^desktop\s+2$/m);
    expect(table.stdout).toMatch(/^[0-9a-f-]{36}\s+Board\s+1\s+1\s+[12]\s+/m);
    const csv = await flipbook(['stats', book.flipbookId, '--csv', '--pages'], env);
    expect(csv.code).toBe(0);
    expect(csv.stdout.split('\r\n').slice(0, 2)).toEqual([
      'position,views,seconds',
      expect.stringMatching(/^1,2,\d+(\.\d)?$/),
    ]);
    const days = await flipbook(
      ['stats', book.flipbookId, '--csv', '--from', '2026-01-01', '--to', '2026-01-02'],
      env,
    );
    expect(days.stdout).toBe(
      'date,opens,views,readers,read_seconds\r\n2026-01-01,0,0,0,0\r\n2026-01-02,0,0,0,0\r\n',
    );
    const wrong = await flipbook(['stats', book.flipbookId, '--from', '2026-13-01'], env);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toMatch(/Invalid from: a day as YYYY-MM-DD/);
  });

  it('sends nothing while the tab is hidden, and counts only the time it was visible', async () => {
    const before = await stats();
    const { context, page } = await openReader(`${fx.daemon.url}/f/${book.flipbookId}#page=1`);
    let beacons = 0;
    page.on('request', (r) => {
      if (r.url().endsWith('/b') && r.method() === 'POST') beacons++;
    });
    /** The tab hidden or shown, as the browser says it (a headless page is always visible). */
    const setHidden = (hidden: boolean) =>
      page.evaluate(`(() => {
        Object.defineProperty(document, 'hidden', { value: ${hidden}, configurable: true });
        Object.defineProperty(document, 'visibilityState', {
          value: '${hidden ? 'hidden' : 'visible'}', configurable: true });
        document.dispatchEvent(new Event('visibilitychange'));
      })()`);
    await readFor(page, 2000); // page 1 on screen for 2 s
    const onHiding = page.waitForResponse(isBeacon);
    await setHidden(true);
    expect((await onHiding).status()).toBe(202); // hidden: the last chance, page 1's 2 s go
    const sentBefore = beacons;
    await readFor(page, 30_000); // six of the reader's 5-second sends, all skipped
    await page.evaluate(() => 0); // (any request of those timers would be seen by now)
    expect(beacons).toBe(sentBefore);
    await setHidden(false);
    await readFor(page, 3000); // visible again: 3 s more of page 1
    const sent = page.waitForResponse(isBeacon);
    await page.keyboard.press('ArrowRight');
    await readFor(page, 5000);
    expect((await sent).status()).toBe(202);
    const added = (s: Json) => s.pages[0].seconds - before.pages[0].seconds;
    const after = await waitFor('the visible time in the stats', async () => {
      const s = await stats();
      return added(s) > 4.5 ? s : undefined;
    });
    // 2 + 3 seconds: the 30 hidden ones never counted; one view of page 1
    expect(added(after)).toBeCloseTo(5, 0);
    expect(after.pages[0].views - before.pages[0].views).toBe(1);
    await context.close();
  });

  it('refuses a range it cannot answer, in words', async () => {
    const path = `/flipbooks/${book.flipbookId}/stats`;
    const refusals: [string, RegExp][] = [
      ['?from=2026-02-30', /^Invalid from: a day as YYYY-MM-DD/],
      ['?to=yesterday', /^Invalid to: a day as YYYY-MM-DD/],
      ['?from=2026-11-02&to=2026-11-01', /^Invalid range: from is after to$/],
      ['?from=2000-01-01&to=2026-01-01', /^Invalid range: at most 3661 days at once$/],
      ['?from=2026-01-01&from=2026-01-02', /from/],
    ];
    for (const [query, message] of refusals) {
      expectError(await c.get(`${path}${query}`), 400, message);
    }
    const s = await stats('?from=2026-01-01&to=2026-01-03');
    expect(s.days.map((d: Json) => d.date)).toEqual(['2026-01-01', '2026-01-02', '2026-01-03']);
    expect(s.views).toBe(0);
    expectError(await c.get('/flipbooks/not-an-id/stats'), 400, /^Invalid flipbook ID$/);
  });

  // POST /b is answered straight from the server's request event (src/http/server.ts `direct`):
  // what every answer has must still be there. Last in this daemon's tests: it spends this
  // address's beacons for the minute.
  it('answers what is not a beacon in words, on the short way and the usual one', async () => {
    const send = (body: string | Uint8Array, type = 'text/plain;charset=UTF-8', path = '/b') =>
      fetch(`${fx.daemon.url}${path}`, { method: 'POST', headers: { 'content-type': type }, body });
    const refused = async (reply: globalThis.Response, status: number, error: RegExp) => {
      expect(reply.status).toBe(status);
      expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
      expect(reply.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(reply.headers.get('set-cookie')).toBeNull();
      expect(((await reply.json()) as { error: string }).error).toMatch(error);
    };
    const foreign = JSON.stringify({ v: 1, t: 'not-a-token', e: [{ k: 'open' }] });
    for (const path of ['/b', '/b?from=elsewhere']) {
      // a token not ours: answered like any beacon, counted for nothing
      const dropped = await send(foreign, undefined, path);
      expect(dropped.status).toBe(202);
      expect(dropped.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(dropped.headers.get('set-cookie')).toBeNull();
      await refused(await send('{"v":1', undefined, path), 400, /^Invalid beacon: not JSON$/);
      await refused(await send('[]', undefined, path), 400, /^Invalid beacon: not an object$/);
      await refused(
        await send(foreign, 'image/png', path),
        415,
        /^A beacon is sent as text\/plain or application\/json$/,
      );
      await refused(
        await send(new Uint8Array(9000).fill(32), undefined, path),
        413,
        /^A beacon may have at most 8192 bytes$/,
      );
    }
    // A client's own request id comes back on the short way too.
    const traced = await fetch(`${fx.daemon.url}/b`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'x-request-id': 'trace-123' },
      body: foreign,
    });
    expect(traced.headers.get('x-request-id')).toBe('trace-123');
    const wrongMethod = await fetch(`${fx.daemon.url}/b`);
    await refused(wrongMethod, 405, /^Method not allowed: use POST$/);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
    // A refusal before the body came: the connection closes after the answer, the body that
    // was declared is not waited for.
    // (the client's side stays open, as a client still about to send its body)
    const exchange = (text: string) => rawExchange(fx.daemon.url, text, { halfClose: false });
    const early = await exchange(
      'POST /b HTTP/1.1\r\nHost: x\r\nContent-Type: image/png\r\nContent-Length: 5000\r\n\r\n',
    );
    expect(early).toMatch(/^HTTP\/1\.1 415 /);
    expect(early).toMatch(/\r\nconnection: close\r\n/i);
    const unmet = await exchange(
      'POST /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\nExpect: foo\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n{}',
    );
    expect(unmet).toMatch(/^HTTP\/1\.1 417 /);
    // Counted in the metrics under the route's pattern like any other request.
    const metrics = await (await fetch(`${fx.daemon.url}/metrics`)).text();
    expect(metrics).toContain(
      'flipbook_http_requests_total{route="/b",method="GET",status="405"} 1',
    );
    // (a 417 is answered before any routing)
    expect(metrics).toContain(
      'flipbook_http_requests_total{route="unmatched",method="POST",status="417"} 1',
    );
    // (each refusal twice, the short way and the usual; 400 of two kinds)
    for (const [status, times] of [
      ['400', 4],
      ['413', 2],
      ['415', 3],
    ] as const) {
      expect(metrics).toContain(
        `flipbook_http_requests_total{route="/b",method="POST",status="${status}"} ${times}`,
      );
    }
    expect(metrics).toMatch(
      /flipbook_http_request_duration_seconds_count\{route="\/b",method="POST"\} \d+/,
    );
    // One address's beacons are bounded (3,000 a minute); past that a 429 that says so.
    let last: globalThis.Response | undefined;
    // (a minute may turn while they go, and the count start again: two minutes' worth at most)
    for (let i = 0; i < 6001 && last?.status !== 429; i++) {
      last = await send(foreign);
      await last.arrayBuffer();
    }
    expect(last?.status).toBe(429);
    expect(last?.headers.get('retry-after')).toBe('60');
    expect(last?.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('readers’ countries, with a GeoIP database', () => {
  let fx: ApiFixture;
  const dir = mkdtempSync(join(tmpdir(), 'flipbook-geoip-'));
  const file = join(dir, 'countries.mmdb');
  writeFileSync(file, countryDatabase({ '192.0.2.0/24': 'NL', '198.51.100.0/24': 'JP' }));
  afterAll(async () => {
    await fx?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const serveWith = (geoipFile: string) =>
    flipbook(['serve', '--port', '0', '--data-dir', join(dir, 'data'), '--geoip-file', geoipFile]);

  it('refuses to start with a file that is not one', async () => {
    const bad = join(dir, 'not.mmdb');
    writeFileSync(bad, 'hello');
    // (a device or a pipe would be read forever: refused for not being a regular file)
    for (const path of [bad, join(dir, 'missing.mmdb'), dir, '/dev/zero']) {
      const started = await serveWith(path);
      expect(started.code).not.toBe(0);
      expect(started.stderr).toContain(`--geoip-file ${path}: not a readable MaxMind DB file`);
    }
    const unnamed = await serveWith('');
    expect(unnamed.code).not.toBe(0);
    expect(unnamed.stderr).toContain('--geoip-file: name a MaxMind DB file');
  });

  it('counts the country of each open, nothing else of the address; a stop loses no beacon', async () => {
    fx = await startApi('embedded', ['--workers', '1', '--trust-proxy', '--geoip-file', file]);
    const c = client(fx.api, fx.key);
    const book = await createFlipbook(c, {}, pdf(SMALL_PDF));
    await waitFor('the book processed', async () => {
      const reply = await c.status(book.flipbookId, book.versionId);
      return reply.body.status === 'done' ? true : undefined;
    });
    const page = await (await fetch(`${fx.daemon.url}/f/${book.flipbookId}`)).text();
    const token = JSON.parse(
      /<script type="application\/json" id="flipbook-data">(.*?)<\/script>/s.exec(page)?.[1] ??
        '{}',
    ).beacon.token as string;
    for (const address of [
      '192.0.2.1',
      '192.0.2.2',
      '198.51.100.1',
      '203.0.113.1',
      '2001:db8::1',
    ]) {
      const sent = await fetch(`${fx.daemon.url}/b`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', 'user-agent': CHROME, 'x-forwarded-for': address },
        body: JSON.stringify({ v: 1, t: token, e: [{ k: 'open' }] }),
      });
      expect(sent.status).toBe(202);
    }
    const stats = await waitFor('the opens counted', async () => {
      const reply = await c.get(`/flipbooks/${book.flipbookId}/stats`);
      return reply.body.opens === 5 ? reply.body : undefined;
    });
    expect(stats.countries).toEqual([
      { name: '(unknown)', opens: 2 },
      { name: 'NL', opens: 2 },
      { name: 'JP', opens: 1 },
    ]);

    // A stop (SIGTERM) right after beacons were answered writes them first: none is lost.
    for (let i = 0; i < 20; i++) {
      const sent = await fetch(`${fx.daemon.url}/b`, {
        method: 'POST',
        headers: {
          'content-type': 'text/plain',
          'user-agent': CHROME,
          'x-forwarded-for': '192.0.2.1',
        },
        body: JSON.stringify({ v: 1, t: token, e: [{ k: 'open' }, { k: 'page', p: 2, s: 3 }] }),
      });
      expect(sent.status).toBe(202);
    }
    await fx.daemon.stop();
    const again = await startDaemon([...fx.storeArgs, ...fx.blobArgs, '--workers', '0']);
    try {
      const reply = await client(`${again.url}/api/v1`, fx.key).get(
        `/flipbooks/${book.flipbookId}/stats`,
      );
      expect(reply.body).toMatchObject({ opens: 25, views: 20 });
    } finally {
      await again.stop();
    }
  });
});
