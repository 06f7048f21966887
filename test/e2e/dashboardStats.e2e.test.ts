// The Statistics pages in Chromium (issue 30): a flipbook's figures drawn as SVG with their
// tables, the range links and form (no script needed), the workspace's overview. Axe finds
// nothing on desktop or phone, light or dark; the pages fit a phone; screenshots for
// docs/dashboard.md. The answers (a range refused, the CSV, the workspace's analytics settings
// and who may change them, isolation) are test/spec/dashboardStats.spec.test.ts's. The figures are written into the analytics tables as a month of readings
// would leave them (the reading itself is test/e2e/analytics.e2e.test.ts's).
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_LINKS } from '../../src/state/analytics.ts';
import type { Store } from '../../src/store/store.ts';
import {
  client,
  createFlipbook,
  expectJson,
  type Json,
  markDone,
  openStoreOf,
} from '../support/apiHelpers.ts';
import { AXE, DESKTOP, PHONE, useDashboard } from '../support/dashboard.ts';

const IMAGES = join(import.meta.dirname, '..', '..', 'docs', 'images');
const PAGES = 24;
const DAY_MS = 86_400_000;

/** Every axe violation, whatever its impact. */
const axeAll = async (page: Page) => {
  await page.addScriptTag({ path: AXE });
  return (await page.evaluate(`axe
    .run(document, { resultTypes: ['violations'] })
    .then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) })))`)) as unknown[];
};

describe('the Statistics pages', () => {
  const d = useDashboard('embedded', ['--workers', '0']);
  let store: Store;
  let book: { flipbookId: string; versionId: string };
  let linkId: string;
  const today = new Date().toISOString().slice(0, 10);
  let seededReaders = 0;
  const dayBefore = (n: number) => new Date(Date.now() - n * DAY_MS).toISOString().slice(0, 10);

  beforeAll(async () => {
    const api = client(d.fx.api, d.fx.key);
    book = await createFlipbook(api, { title: 'Spring catalogue 2027' });
    store = await openStoreOf(d.fx.storeArgs);
    await markDone(store, book.flipbookId, book.versionId, PAGES);
    const link = await api.post(`/flipbooks/${book.flipbookId}/links`, {
      body: JSON.stringify({ label: 'Trade fair visitors' }),
      headers: { 'content-type': 'application/json' },
    });
    expectJson(link, 201);
    linkId = link.body.id;
    // Four weeks of readings: weekdays busier, readers dropping off page by page.
    const q = (sql: string, values: unknown[]) => store.db.query(sql, values);
    for (let ago = 27; ago >= 0; ago--) {
      const day = dayBefore(ago);
      const weekday = new Date(`${day}T00:00:00Z`).getUTCDay();
      const opens = (weekday === 0 || weekday === 6 ? 20 : 55) + ((ago * 7) % 13);
      const readers = Math.round(opens * 0.8);
      const views = opens * 9;
      await q(
        `INSERT INTO analytics_daily (flipbook_id, day, link_key, opens, views, readers, read_seconds, searches, downloads, zooms)
         VALUES ($1, $2, '00000000-0000-0000-0000-000000000000', $3, $4, $5, $6, $7, $8, $9)`,
        [
          book.flipbookId,
          day,
          opens,
          views,
          readers,
          views * 14.5,
          opens % 5,
          opens % 3,
          opens % 7,
        ],
      );
      await q(
        `INSERT INTO analytics_daily (flipbook_id, day, link_key, opens, views, readers, read_seconds)
         VALUES ($1, $2, $3, 4, 30, 3, 420)`,
        [book.flipbookId, day, linkId],
      );
      // the day's readers of the whole book, whichever way they came (a few came both ways)
      await q(
        `INSERT INTO analytics_daily (flipbook_id, day, link_key, readers)
         VALUES ($1, $2, '${ALL_LINKS}', $3)`,
        [book.flipbookId, day, readers + 2],
      );
      seededReaders += readers + 2;
      for (let p = 1; p <= PAGES; p++) {
        const seen = Math.round(opens * 0.97 ** (p - 1) * (p === 12 ? 0.6 : 1));
        await q(
          `INSERT INTO analytics_pages (flipbook_id, day, version_id, position, views, seconds)
           VALUES ($1, $2, $3, $4, $5, $6)`,
          [book.flipbookId, day, book.versionId, p, seen, seen * (6 + ((p * 5) % 17))],
        );
      }
      await q(
        `INSERT INTO analytics_links (flipbook_id, day, version_id, position, link, clicks)
         VALUES ($1, $2, $3, 3, 0, $4), ($1, $2, $3, 9, 1, $5)`,
        [book.flipbookId, day, book.versionId, 6, 2],
      );
      await q(
        `INSERT INTO analytics_sources (flipbook_id, day, kind, name, opens) VALUES
         ($1, $2, 'device', 'desktop', $3), ($1, $2, 'device', 'phone', $4), ($1, $2, 'device', 'tablet', 2),
         ($1, $2, 'referrer', '(direct)', $5), ($1, $2, 'referrer', 'newsletter.example.com', $6),
         ($1, $2, 'referrer', 'linkedin.com', 4)`,
        [book.flipbookId, day, opens - 20, 18, opens - 30, 26],
      );
    }
  });
  afterAll(async () => {
    await store?.close();
  });

  it('draws a flipbook’s figures, with their tables and ranges; axe-clean; screenshots', async () => {
    for (const [name, options] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const page = await d.signedIn(`stats-${name}-${colorScheme}@example.com`, {
          context: { ...options, colorScheme, bypassCSP: true },
        });
        await page.goto(`${d.url}/dashboard/flipbooks/${book.flipbookId}`);
        await page.getByRole('link', { name: 'Statistics' }).last().click();
        await page.waitForURL(/\/stats$/);
        await expect.poll(() => page.locator('h1').textContent()).toBe('Statistics');
        // The headline figures are the report's.
        const figure = (label: string) =>
          page.locator('.figures div', { hasText: label }).locator('dd').textContent();
        const api: Json = await (
          await fetch(`${d.fx.api}/flipbooks/${book.flipbookId}/stats`, {
            headers: { authorization: `Bearer ${d.fx.key}` },
          })
        ).json();
        expect(api.readers).toBe(seededReaders);
        expect(await figure('Readers')).toBe(api.readers.toLocaleString('en-US'));
        expect(await figure('Opens')).toBe(api.opens.toLocaleString('en-US'));
        // Every chart names itself; its figures are a table away.
        const charts = page.locator('svg[role="img"]');
        expect(await charts.count()).toBe(3);
        const labels = (await page.evaluate(
          `[...document.querySelectorAll('svg[role="img"]')].map((c) => c.getAttribute('aria-label'))`,
        )) as string[];
        for (const label of labels) expect(label).toMatch(/^[A-Z].{20,}/);
        expect(await page.locator('.chart-col').count()).toBeGreaterThan(PAGES);
        await page.getByText('Pages as a table').click();
        await expect
          .poll(() => page.locator('details.chart-table[open] tbody tr').count())
          .toBe(PAGES);
        expect(await page.getByRole('row', { name: /Trade fair visitors/ }).count()).toBe(1);
        expect(await page.getByRole('row', { name: /newsletter\.example\.com/ }).count()).toBe(1);
        expect(await axeAll(page), `${name} ${colorScheme}`).toEqual([]);
        if (colorScheme === 'light') {
          await page.locator('details.chart-table[open] summary').click();
          await page.screenshot({
            path: join(IMAGES, `dashboard-stats-${name}.png`),
            fullPage: true,
          });
        }
        expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
          options.viewport?.width ?? 0,
        );
        // A shorter range by its link, then by the form.
        await page.getByRole('link', { name: '7 days' }).click();
        await page.waitForURL(/days=7/);
        expect(
          await page.locator('.chart.columns').first().locator('.chart-ends').textContent(),
        ).toBe(`${dayBefore(6)}${today}`);
        await page.locator('#range-from').fill(dayBefore(2));
        await page.locator('#range-to').fill(dayBefore(1));
        await page.getByRole('button', { name: 'Show' }).click();
        await page.waitForURL(/from=/);
        expect(await page.locator('.head-meta').first().textContent()).toContain(
          `${dayBefore(2)} to ${dayBefore(1)}`,
        );
      }
    }
  }, 180_000);

  it('shows the workspace overview; axe-clean; screenshot', async () => {
    const page = await d.signedIn('owner-stats@example.com', {
      context: { ...DESKTOP, bypassCSP: true },
    });
    await page.getByRole('link', { name: 'Statistics' }).click();
    await page.waitForURL(/\/dashboard\/stats$/);
    expect(await page.getByRole('row', { name: /Spring catalogue 2027/ }).count()).toBe(1);
    expect(await axeAll(page)).toEqual([]);
    await page.screenshot({ path: join(IMAGES, 'dashboard-stats-workspace.png'), fullPage: true });
  });
});
