// Beacons into figures (src/app/analytics/ingest.ts) on a real PostgreSQL: summed per day, page,
// link and source; readers counted once a day; nothing counted for robots, Do Not Track, tokens
// not ours, or pages the version does not have; a failed write keeps its figures.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIngest } from '../../src/app/analytics/ingest.ts';
import { readingTokensSignedWith } from '../../src/app/analytics/readingTokens.ts';
import { dailySalts } from '../../src/app/analytics/salts.ts';
import { runFlipbookCommand } from '../../src/app/commands.ts';
import { createWorkspace, setAnalytics } from '../../src/app/workspaces.ts';
import { InvalidInput } from '../../src/domain/errors.ts';
import { flipbookStats } from '../../src/queries/analyticsReports.ts';
import { ALL_LINKS } from '../../src/state/analytics.ts';
import type { Store } from '../../src/store/store.ts';
import { ingestOf } from '../support/ingest.ts';
import { createInStore } from '../support/inStore.ts';
import { TEST_METADATA } from '../support/metadata.ts';
import { openTestStore } from '../support/stores.ts';

const BOOK = '3df4228e-437a-4f1c-b162-a57a57a87f40';
const OTHER = '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d';
/** in a workspace that switched analytics off */
const QUIET = '5c2d7e1f-3a4b-4c5d-8e9f-0a1b2c3d4e5f';
const VERSION = '6f0a1c2e-0b1d-4f6a-9c3e-2a7b8c9d0e1f';
const LINK = '0a7b8c9d-0e1f-4f6a-9c3e-2a7b8c9d0e1f';
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1';

describe('beacons into figures', () => {
  let store: Store;
  const now = new Date('2026-11-28T10:00:00Z');
  const clock = { now: () => now };
  const tokens = readingTokensSignedWith('the secret');
  const tokenFor = (flipbookId: string, linkId: string | null = null) =>
    tokens.sign({ flipbookId, versionId: VERSION, linkId, pages: 3, expires: 2_000_000_000 });
  beforeAll(async () => {
    store = await openTestStore('postgres');
    const open = await createWorkspace(
      store,
      { name: 'counted', plan: 'team' },
      TEST_METADATA,
      now,
    );
    const quiet = await createWorkspace(store, { name: 'quiet', plan: 'team' }, TEST_METADATA, now);
    await setAnalytics(store, quiet.id, { enabled: false, retentionDays: 30 }, TEST_METADATA, now);
    for (const [flipbookId, workspaceId] of [
      [BOOK, open.id],
      [OTHER, open.id],
      [QUIET, quiet.id],
    ] as const) {
      await createInStore(store, { workspaceId, title: 't', slug: flipbookId, flipbookId, now });
    }
  });
  afterAll(async () => {
    await store?.close();
  });
  const sender = (address: string, userAgent = CHROME, extra = {}) => ({
    address,
    userAgent,
    doNotTrack: undefined,
    globalPrivacyControl: undefined,
    mobileHint: undefined,
    ...extra,
  });
  const rows = async (sql: string) => (await store.db.query(sql)).rows;

  it('sums what readers did, counts each reader once a day, and drops what is not to count', async () => {
    const salts = dailySalts(store, clock);
    const ingest = createIngest({
      store,
      clock,
      salt: salts.today,
      token: tokens.read,
      ownHosts: () => ['flipbooks.example.com'],
    });
    const beacon = (t: string, e: unknown[], r?: string) =>
      JSON.stringify({ v: 1, t, e, ...(r ? { r } : {}) });
    const opened = beacon(
      tokenFor(BOOK),
      [{ k: 'open' }, { k: 'page', p: 1, s: 4.5 }, { k: 'link', p: 1, l: 2 }],
      'https://www.news.example.org/story?id=1',
    );
    expect(await ingest.accept(opened, sender('192.0.2.1'))).toBe(true);
    expect(await ingest.accept(opened, sender('192.0.2.1'))).toBe(true); // the same reader again
    expect(
      await ingest.accept(
        beacon(tokenFor(BOOK), [
          { k: 'open' },
          { k: 'page', p: 2, s: 10 },
          { k: 'page', p: 9, s: 1 },
          { k: 'page', p: 2, s: 1, m: 1 },
        ]),
        sender('192.0.2.2', IPHONE),
      ),
    ).toBe(true);
    expect(
      await ingest.accept(
        beacon(tokenFor(BOOK, LINK), [{ k: 'open' }, { k: 'search' }]),
        sender('192.0.2.3'),
      ),
    ).toBe(true);
    // Not counted: a robot, Do Not Track, Global Privacy Control, a token signed elsewhere.
    expect(await ingest.accept(opened, sender('192.0.2.9', 'Googlebot/2.1'))).toBe(false);
    expect(await ingest.accept(opened, sender('192.0.2.9', CHROME, { doNotTrack: '1' }))).toBe(
      false,
    );
    expect(
      await ingest.accept(opened, sender('192.0.2.9', CHROME, { globalPrivacyControl: '1' })),
    ).toBe(false);
    const forged = readingTokensSignedWith('not ours').sign({
      flipbookId: OTHER,
      versionId: VERSION,
      linkId: null,
      pages: 3,
      expires: 2_000_000_000,
    });
    expect(await ingest.accept(beacon(forged, [{ k: 'open' }]), sender('192.0.2.9'))).toBe(false);
    await expect(ingest.accept('{"v":1}', sender('192.0.2.9'))).rejects.toThrow(InvalidInput);
    // Counted when it came, but its workspace has analytics off: nothing written for it.
    expect(await ingest.accept(beacon(tokenFor(QUIET), [{ k: 'open' }]), sender('192.0.2.9'))).toBe(
      true,
    );
    await ingest.flush();
    expect(await rows(`SELECT 1 FROM analytics_daily WHERE flipbook_id = '${QUIET}'`)).toEqual([]);

    expect(
      await rows(`SELECT link_key, opens, views, readers, read_seconds, searches FROM analytics_daily
        WHERE flipbook_id = '${BOOK}' ORDER BY link_key`),
    ).toEqual([
      {
        link_key: '00000000-0000-0000-0000-000000000000',
        opens: 3,
        views: 3,
        readers: 2,
        read_seconds: 20,
        searches: 0,
      },
      { link_key: LINK, opens: 1, views: 0, readers: 1, read_seconds: 0, searches: 1 },
      // the book's readers, whatever link they came by
      { link_key: ALL_LINKS, opens: 0, views: 0, readers: 3, read_seconds: 0, searches: 0 },
    ]);
    expect(
      await rows(
        `SELECT position, views, seconds FROM analytics_pages WHERE flipbook_id = '${BOOK}' ORDER BY position`,
      ),
    ).toEqual([
      { position: 1, views: 2, seconds: 9 },
      { position: 2, views: 1, seconds: 11 },
    ]);
    expect(
      await rows(
        `SELECT position, link, clicks FROM analytics_links WHERE flipbook_id = '${BOOK}'`,
      ),
    ).toEqual([{ position: 1, link: 2, clicks: 2 }]);
    expect(
      await rows(
        `SELECT kind, name, opens FROM analytics_sources WHERE flipbook_id = '${BOOK}' ORDER BY kind, name`,
      ),
    ).toEqual([
      { kind: 'device', name: 'desktop', opens: 3 },
      { kind: 'device', name: 'phone', opens: 1 },
      { kind: 'referrer', name: '(direct)', opens: 2 },
      { kind: 'referrer', name: 'news.example.org', opens: 2 },
    ]);
    expect(await rows(`SELECT 1 FROM analytics_daily WHERE flipbook_id = '${OTHER}'`)).toEqual([]);
    // Pages are counted per version: another version's report has none of these.
    const day = '2026-11-28';
    expect((await flipbookStats(store.db, BOOK, day, day, VERSION)).pages).toHaveLength(2);
    expect((await flipbookStats(store.db, BOOK, day, day, OTHER)).pages).toEqual([]);
    expect((await flipbookStats(store.db, BOOK, day, day, null)).links).toEqual([
      { position: 1, link: 2, clicks: 2 },
    ]);

    // The same reader in a later flush of the day is still one reader.
    expect(await ingest.accept(opened, sender('192.0.2.1'))).toBe(true);
    await ingest.flush();
    expect(
      await rows(
        `SELECT opens, readers FROM analytics_daily WHERE flipbook_id = '${BOOK}' AND link_key = '00000000-0000-0000-0000-000000000000'`,
      ),
    ).toEqual([{ opens: 4, readers: 2 }]);
    expect(
      await rows(
        `SELECT readers FROM analytics_daily WHERE flipbook_id = '${BOOK}' AND link_key = '${ALL_LINKS}'`,
      ),
    ).toEqual([{ readers: 3 }]);

    // A write that fails (the table away) keeps its figures for the next one.
    await store.db.query('ALTER TABLE analytics_pages RENAME TO analytics_pages_away');
    expect(await ingest.accept(opened, sender('192.0.2.4'))).toBe(true);
    await expect(ingest.flush()).rejects.toThrow();
    await store.db.query('ALTER TABLE analytics_pages_away RENAME TO analytics_pages');
    await ingest.flush();
    expect(
      await rows(
        `SELECT opens, readers FROM analytics_daily WHERE flipbook_id = '${BOOK}' AND link_key = '00000000-0000-0000-0000-000000000000'`,
      ),
    ).toEqual([{ opens: 5, readers: 3 }]);
  });
});

describe('what a beacon may count', () => {
  it('counts a spread’s time once, one open a beacon, no view for a page passed by; a reader of two links is one of the book’s', async () => {
    const store = await openTestStore('postgres');
    try {
      const now = new Date('2026-11-28T10:00:00Z');
      const clock = { now: () => now };
      const ws = await createWorkspace(
        store,
        { name: 'spreads', plan: 'team' },
        TEST_METADATA,
        now,
      );
      const { flipbookId } = await createInStore(store, {
        workspaceId: ws.id,
        title: 't',
        slug: 's',
        now,
      });
      const tokens = readingTokensSignedWith('s');
      const token = (linkId: string | null) =>
        tokens.sign({ flipbookId, versionId: VERSION, linkId, pages: 8, expires: 2e9 });
      const ingest = ingestOf(store, clock, tokens);
      const send = (t: string, e: unknown[], address = '192.0.2.1') =>
        ingest.accept(JSON.stringify({ v: 1, t, e }), {
          address,
          userAgent: CHROME,
          doNotTrack: undefined,
          globalPrivacyControl: undefined,
          mobileHint: undefined,
        });
      // A spread (pages 2 and 3 for 10 s), three opens, a page passed by, 64 long pages.
      await send(token(null), [
        { k: 'open' },
        { k: 'open' },
        { k: 'open' },
        { k: 'page', p: 2, s: 10 },
        { k: 'page', p: 3, s: 10, b: 1 },
        { k: 'page', p: 4, s: 0 },
      ]);
      await send(
        token(null),
        Array.from({ length: 64 }, () => ({ k: 'page', p: 5, s: 1800 })),
      );
      // Nothing on screen for a second: no view, no reader.
      expect(await send(token(null), [{ k: 'page', p: 1, s: 0 }], '192.0.2.99')).toBe(false);
      // The same reader by two share links.
      await send(token(LINK), [{ k: 'open' }]);
      await send(token(OTHER), [{ k: 'open' }]);
      await ingest.flush();
      const day = '2026-11-28';
      const stats = await flipbookStats(store.db, flipbookId, day, day, VERSION);
      // 64 times 30 minutes of page 5 in one beacon are one view and 30 minutes.
      expect(stats.totals).toMatchObject({ opens: 3, readers: 1, views: 3, read_seconds: 1810 });
      expect(stats.pages.map((p) => [p.position, p.views, p.seconds])).toEqual([
        [2, 1, 10],
        [3, 1, 10],
        [5, 1, 1800],
      ]);
      expect(stats.shareLinks.map((l) => l.readers)).toEqual([1, 1]);

      // A counter at its largest stays there, and the write goes through.
      await store.db.query(
        `UPDATE analytics_daily SET opens = 2147483600 WHERE flipbook_id = $1 AND link_key = $2`,
        [flipbookId, LINK],
      );
      for (let i = 0; i < 60; i++) await send(token(LINK), [{ k: 'open' }]);
      await ingest.flush();
      expect(
        (
          await store.db.query(
            'SELECT opens FROM analytics_daily WHERE flipbook_id = $1 AND link_key = $2',
            [flipbookId, LINK],
          )
        ).rows,
      ).toEqual([{ opens: 2147483647 }]);

      // No connection to be had (the database restarting): the figures wait for the next write.
      const connect = store.pool.connect;
      store.pool.connect = (() =>
        Promise.reject(new Error('connection refused'))) as unknown as typeof connect;
      await send(token(null), [{ k: 'search' }]);
      await expect(ingest.flush()).rejects.toThrow('connection refused');
      store.pool.connect = connect;
      await ingest.flush();
      expect((await flipbookStats(store.db, flipbookId, day, day, VERSION)).totals.searches).toBe(
        1,
      );
    } finally {
      await store.close();
    }
  });
});

describe('figures past their days', () => {
  it('are deleted: past the workspace retention, and all of a deleted flipbook', async () => {
    const store = await openTestStore('postgres');
    try {
      const day0 = new Date('2026-01-10T12:00:00Z');
      const ws = await createWorkspace(store, { name: 'kept', plan: 'team' }, TEST_METADATA, day0);
      await setAnalytics(store, ws.id, { enabled: true, retentionDays: 7 }, TEST_METADATA, day0);
      const { flipbookId } = await createInStore(store, {
        workspaceId: ws.id,
        title: 't',
        slug: 's',
        now: day0,
      });
      let now = day0;
      const clock = { now: () => now };
      const tokens = readingTokensSignedWith('s');
      const ingest = ingestOf(store, clock, tokens);
      const body = JSON.stringify({
        v: 1,
        t: tokens.sign({ flipbookId, versionId: VERSION, linkId: null, pages: 3, expires: 2e9 }),
        e: [{ k: 'open' }, { k: 'page', p: 1, s: 2 }],
      });
      const days = async () =>
        (
          await store.db.query<{ day: string }>(
            `SELECT to_char(day, 'YYYY-MM-DD') AS day FROM analytics_pages
             WHERE flipbook_id = $1 ORDER BY day`,
            [flipbookId],
          )
        ).rows.map((r) => r.day);
      for (const day of ['2026-01-10', '2026-01-14', '2026-01-18']) {
        now = new Date(`${day}T12:00:00Z`);
        await ingest.accept(body, {
          address: '192.0.2.1',
          userAgent: CHROME,
          doNotTrack: undefined,
          globalPrivacyControl: undefined,
          mobileHint: undefined,
        });
        await ingest.flush();
      }
      // On the 18th, seven days are kept: the 11th on; the 10th is gone.
      expect(await days()).toEqual(['2026-01-14', '2026-01-18']);
      // Nothing pending: a new day's first flush still clears.
      now = new Date('2026-01-22T00:00:01Z');
      await ingest.flush();
      expect(await days()).toEqual(['2026-01-18']);
      // The flipbook deleted: its figures go at the next day's clearing.
      await runFlipbookCommand(
        store,
        flipbookId,
        { type: 'DeleteFlipbook', data: { now } },
        TEST_METADATA,
      );
      now = new Date('2026-01-23T00:00:01Z');
      await ingest.flush();
      expect(await days()).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
