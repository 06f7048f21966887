// A flood of beacons that each name something new (issue 40): a referring site, a link, a
// country per beacon, sent through two daemons' ingests writing at once, as a probe did at the
// rate limit (1.59 M rows in 240 s, and the book's report past its 5 s budget). A book's rows of
// a day stay at the caps plus one `(other)` row whatever the beacons say, every count is kept
// (the totals are exact), and the report answers in milliseconds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FiguresLost } from '../../src/app/analytics/ingest.ts';
import { readingTokensSignedWith } from '../../src/app/analytics/readingTokens.ts';
import { statsOf } from '../../src/app/analytics/stats.ts';
import { flipbookStatsPage } from '../../src/dashboard/pages/stats.ts';
import {
  LINKS_PER_DAY,
  OTHER,
  SOURCE_NAMES_PER_DAY,
} from '../../src/domain/analytics/dailyCaps.ts';
import { ALL_LINKS } from '../../src/state/analytics.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { ingestOf } from '../support/ingest.ts';
import { bookInStore } from '../support/inStore.ts';
import { openTestStore, storeOptions } from '../support/stores.ts';
import { waitFor } from '../support/waitFor.ts';

const BEACONS = 20_000;
const PAGES = 3;
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36';
/** Every code a GeoIP lookup may give (two capitals): 676, more than the countries' cap. */
const CODES = Array.from({ length: 26 * 26 }, (_, i) =>
  String.fromCharCode(65 + Math.floor(i / 26), 65 + (i % 26)),
);
/** A sender's address, and so its country: 676 readers, each seen again and again. */
const addressOf = (i: number) => {
  const n = i % CODES.length;
  return `198.51.${n >> 8}.${n & 255}`;
};
const LINK = '0a7b8c9d-0e1f-4f6a-9c3e-2a7b8c9d0e1f';

describe('a flood of new names', () => {
  let store: Store;
  const now = new Date('2026-11-28T10:00:00Z');
  const clock = { now: () => now };
  const day = '2026-11-28';
  let workspaceId = '';
  let flipbookId = '';
  let versionId = '';
  beforeAll(async () => {
    store = await openTestStore('postgres');
    ({ workspaceId, flipbookId, versionId } = await bookInStore(store, now));
  });
  afterAll(async () => {
    await store?.close();
  });

  it('keeps a book’s rows of a day bounded, its totals exact, and its report quick', async () => {
    const tokens = readingTokensSignedWith('s');
    // One daemon's readers come by the book's URL, the other's by a share link: once the
    // readers are known, the two write no row in common but the caps' (an earlier version's
    // caps were broken through by that).
    const tokenOf = (i: number) =>
      tokens.sign({
        flipbookId,
        versionId,
        linkId: i % 2 ? LINK : null,
        pages: PAGES,
        expires: 2e9,
      });
    const country = new Map(CODES.map((code, i) => [addressOf(i), code]));
    // Two daemons: each its own salt cache and pending figures, over one database.
    const daemons = [0, 1].map(() =>
      ingestOf(store, clock, tokens, {
        countryOf: (address) => country.get(address ?? '') ?? null,
      }),
    );
    const sender = (i: number) => ({
      address: addressOf(i),
      userAgent: CHROME,
      doNotTrack: undefined,
      globalPrivacyControl: undefined,
      mobileHint: undefined,
    });
    // Every reader known to both first (a search names nothing new).
    for (let i = 0; i < 2 * CODES.length; i++) {
      const beacon = JSON.stringify({ v: 1, t: tokenOf(i), e: [{ k: 'search' }] });
      await daemons[i % 2]?.accept(beacon, sender(i));
    }
    await Promise.all(daemons.map((d) => d.flush()));
    for (let i = 0; i < BEACONS; i++) {
      const beacon = JSON.stringify({
        v: 1,
        t: tokenOf(i),
        r: `https://site-${i}.example.net/`,
        e: [{ k: 'open' }, { k: 'link', p: 1 + (i % PAGES), l: Math.floor(i / PAGES) % 10_000 }],
      });
      expect(await daemons[i % 2]?.accept(beacon, sender(i))).toBe(true);
      // Both write at once, each with new names: the caps must hold across them.
      if (i % 1000 === 999) await Promise.all(daemons.map((d) => d.flush()));
    }
    await Promise.all(daemons.map((d) => d.flush()));

    const kinds = (
      await store.db.query<{ kind: string; rows: number; named: number; opens: number }>(
        `SELECT kind, count(*)::int AS rows, count(*) FILTER (WHERE name <> $3)::int AS named,
           sum(opens)::int AS opens
         FROM analytics_sources WHERE flipbook_id = $1 AND day = $2 GROUP BY kind ORDER BY kind`,
        [flipbookId, day, OTHER],
      )
    ).rows;
    // Named rows up to the cap exactly (first come), the rest in one `(other)` row; nothing lost.
    expect(kinds).toEqual([
      {
        kind: 'country',
        rows: SOURCE_NAMES_PER_DAY.country + 1,
        named: SOURCE_NAMES_PER_DAY.country,
        opens: BEACONS,
      },
      { kind: 'device', rows: 1, named: 1, opens: BEACONS },
      {
        kind: 'referrer',
        rows: SOURCE_NAMES_PER_DAY.referrer + 1,
        named: SOURCE_NAMES_PER_DAY.referrer,
        opens: BEACONS,
      },
    ]);
    const links = (
      await store.db.query<{ rows: number; clicks: number }>(
        `SELECT count(*)::int AS rows, sum(clicks)::int AS clicks
         FROM analytics_links WHERE flipbook_id = $1 AND day = $2`,
        [flipbookId, day],
      )
    ).rows[0];
    expect(links).toEqual({ rows: LINKS_PER_DAY + 1, clicks: BEACONS });

    const started = performance.now();
    const stats = await statsOf({ store, clock }, workspaceId, flipbookId, { from: day, to: day });
    const took = performance.now() - started;
    expect(stats.opens).toBe(BEACONS);
    expect(stats.readers).toBe(CODES.length);
    const total = (list: { opens: number }[]) => list.reduce((sum, s) => sum + s.opens, 0);
    expect(stats.referrers[0]).toEqual({
      name: OTHER,
      opens: BEACONS - SOURCE_NAMES_PER_DAY.referrer,
    });
    expect(stats.referrers).toHaveLength(50);
    expect(stats.countries[0]?.name).toBe(OTHER);
    expect(total(stats.devices)).toBe(BEACONS);
    // Links folded together are not a link of a page: not listed, their clicks kept.
    expect(stats.links).toHaveLength(50);
    expect(stats.links.every((l) => l.page >= 1 && l.clicks === 1)).toBe(true);
    // The API's budget is 5 s; a bounded day reads in milliseconds.
    expect(took).toBeLessThan(1000);
    // The dashboard says it in words.
    const signedIn = {
      sessionId: 's',
      token: 't',
      csrfToken: 'c',
      person: { id: 'p', email: 'p@example.com', workspaceId, role: 'owner' as const },
      workspace: { id: workspaceId, name: 'f', plan: 'team' as const },
      caller: () => {
        throw new Error('not used');
      },
    };
    const page = String(
      flipbookStatsPage(signedIn, { id: flipbookId, title: 't' }, stats, {
        today: day,
        days: 1,
        settings: { enabled: true, retentionDays: 730 },
      }),
    );
    expect(page).toContain('<th scope="row">Other sites</th>');
    expect(page).toContain('<th scope="row">Other countries</th>');
  });
});

// A tester's flood against a daemon (issue 40): 20,000 beacons, 16 at a time, each from its own
// address and browser (a new reader), with its own referring site and three links of 10,000
// places. The flush's statements grew past the 5 s limit, were cancelled, and each failed
// write came back bigger: from 5,076 opens on, nothing more was written, and the stop lost
// 15,024 acknowledged opens. Here with a 1 s limit on every statement, two daemons' ingests
// flushing as their timers do (a flush under way takes the next beacons' in its next batch).
describe('a tester’s flood of new readers, sites and links', () => {
  let store: Store;
  let flipbookId = '';
  let versionId = '';
  const tokens = readingTokensSignedWith('s');
  beforeAll(async () => {
    store = await openStore({
      ...(await storeOptions('postgres')),
      limits: { connectMs: 5000, statementMs: 1000 },
    });
    const now = new Date('2026-11-29T10:00:00Z');
    ({ flipbookId, versionId } = await bookInStore(store, now));
  });
  afterAll(async () => {
    await store?.close();
  });

  /** A daemon's ingest on `day` (10:00 UTC). */
  const ingestOn = (day: string) => {
    const now = new Date(`${day}T10:00:00Z`);
    const clock = { now: () => now };
    return ingestOf(store, clock, tokens);
  };
  /** The tester's k-th beacon (/tmp/qa/flood.mjs): a new reader, site and three links. */
  const accept = (ingest: ReturnType<typeof ingestOf>, k: number) => {
    const token = tokens.sign({ flipbookId, versionId, linkId: null, pages: PAGES, expires: 2e9 });
    const beacon = JSON.stringify({
      v: 1,
      t: token,
      r: `https://ref-${k}.example${k % 7}.com/path?q=${k}`,
      tc: k % 2,
      e: [
        { k: 'open' },
        { k: 'page', p: 1, s: 2 },
        { k: 'link', p: 1 + (k % PAGES), l: k % 10_000 },
        { k: 'link', p: 1 + (k % PAGES), l: (k * 7) % 10_000 },
        { k: 'link', p: 1 + (k % PAGES), l: (k * 13) % 10_000 },
      ],
    });
    return ingest.accept(beacon, {
      address: `10.${(k >> 16) & 255}.${(k >> 8) & 255}.${k & 255}`,
      userAgent: `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${100 + (k % 30)}.0.${k}.0 Safari/537.36`,
      doNotTrack: undefined,
      globalPrivacyControl: undefined,
      mobileHint: undefined,
    });
  };
  /** What a day's rows say: opens, readers, clicks, referrer opens, and the rows of the names. */
  const figuresOf = async (day: string) =>
    (
      await store.db.query<{
        opens: number;
        readers: number;
        clicks: number;
        sites: number;
        linkRows: number;
        siteRows: number;
      }>(
        `SELECT
           (SELECT coalesce(sum(opens), 0)::int FROM analytics_daily
              WHERE flipbook_id = $1 AND day = $2) AS opens,
           (SELECT coalesce(sum(readers), 0)::int FROM analytics_daily
              WHERE flipbook_id = $1 AND day = $2 AND link_key = $3) AS readers,
           (SELECT coalesce(sum(clicks), 0)::int FROM analytics_links
              WHERE flipbook_id = $1 AND day = $2) AS clicks,
           (SELECT count(*)::int FROM analytics_links
              WHERE flipbook_id = $1 AND day = $2) AS "linkRows",
           (SELECT coalesce(sum(opens), 0)::int FROM analytics_sources
              WHERE flipbook_id = $1 AND day = $2 AND kind = 'referrer') AS sites,
           (SELECT count(*)::int FROM analytics_sources
              WHERE flipbook_id = $1 AND day = $2 AND kind = 'referrer') AS "siteRows"`,
        [flipbookId, day, ALL_LINKS],
      )
    ).rows[0];

  it('writes every beacon it accepted, each write within the statement limit', async () => {
    const FLOOD = 20_000;
    /** beacons accepted between two timer ticks (the tester's ~335 a second: ~170 a tick) */
    const TICK = 400;
    const day = '2026-11-29';
    const [one, two] = [ingestOn(day), ingestOn(day)];
    const daemons = [one, two];
    const failures: unknown[] = [];
    let accepted = 0;
    for (let k = 0; k < FLOOD; k++) {
      if (await accept(k % 2 ? two : one, k)) accepted++;
      if (k % TICK === TICK - 1) {
        // A timer's tick: a flush if none is under way, not awaited; the writes go on while
        // the next beacons come (the event loop turns).
        for (const d of daemons) d.flush().catch((error: unknown) => failures.push(error));
        await new Promise((r) => setImmediate(r));
      }
    }
    await Promise.all(daemons.map((d) => d.drain()));
    expect(accepted).toBe(FLOOD);
    expect(failures).toEqual([]);
    expect(await figuresOf(day)).toEqual({
      opens: FLOOD,
      readers: FLOOD,
      clicks: 3 * FLOOD,
      sites: FLOOD,
      linkRows: LINKS_PER_DAY + 1,
      siteRows: SOURCE_NAMES_PER_DAY.referrer + 1,
    });

    // The day is full, and each daemon learned its names: a link and a site it keeps are still
    // counted on their own rows (folded in memory as the others are, they would not be).
    const link = (
      await store.db.query<{ position: number; link: number; clicks: number }>(
        `SELECT position, link, clicks FROM analytics_links
         WHERE flipbook_id = $1 AND day = $2 AND position > 0 ORDER BY position, link LIMIT 1`,
        [flipbookId, day],
      )
    ).rows[0];
    const site = (
      await store.db.query<{ name: string; opens: number }>(
        `SELECT name, opens FROM analytics_sources WHERE flipbook_id = $1 AND day = $2
           AND kind = 'referrer' AND name <> $3 ORDER BY name LIMIT 1`,
        [flipbookId, day, OTHER],
      )
    ).rows[0];
    if (!link || !site) throw new Error('no row kept');
    const token = tokens.sign({ flipbookId, versionId, linkId: null, pages: PAGES, expires: 2e9 });
    for (const [i, d] of daemons.entries()) {
      const beacon = JSON.stringify({
        v: 1,
        t: token,
        r: `https://${site.name}/`,
        e: [{ k: 'open' }, { k: 'link', p: link.position, l: link.link }],
      });
      const sender = { address: `192.0.2.${i}`, userAgent: 'Mozilla/5.0 (X11; Linux x86_64)' };
      expect(
        await d.accept(beacon, {
          ...sender,
          doNotTrack: undefined,
          globalPrivacyControl: undefined,
          mobileHint: undefined,
        }),
      ).toBe(true);
      await d.drain();
    }
    const after = await store.db.query<{ clicks: number; opens: number }>(
      `SELECT
         (SELECT clicks FROM analytics_links WHERE flipbook_id = $1 AND day = $2 AND position = $3
            AND link = $4) AS clicks,
         (SELECT opens FROM analytics_sources WHERE flipbook_id = $1 AND day = $2
            AND kind = 'referrer' AND name = $5) AS opens`,
      [flipbookId, day, link.position, link.link, site.name],
    );
    expect(after.rows[0]).toEqual({ clicks: link.clicks + 2, opens: site.opens + 2 });
  });

  it('a stop tries again while writes fail, and says in numbers what it could not write', async () => {
    const BEACONS = 1000;
    /** Every write fails while another session holds the daily figures' table. */
    const holdFigures = async () => {
      const holder = await store.pool.connect();
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE analytics_daily IN ACCESS EXCLUSIVE MODE');
      return async () => {
        await holder.query('COMMIT');
        holder.release();
      };
    };
    /** When the writes waiting for the table began (one a try). */
    const waitingSince = async () =>
      (
        await store.db.query<{ at: string }>(
          `SELECT a.query_start::text AS at FROM pg_locks l JOIN pg_stat_activity a USING (pid)
           WHERE NOT l.granted AND l.relation = 'analytics_daily'::regclass`,
        )
      ).rows.map((r) => r.at);

    // Held for two tries (each cancelled at the 1 s limit), then let go: all written.
    const day = '2026-11-30';
    const ingest = ingestOn(day);
    for (let k = 0; k < BEACONS; k++) expect(await accept(ingest, k)).toBe(true);
    const release = await holdFigures();
    const stopped = ingest.drain(20_000);
    const tries = new Set<string>();
    await waitFor('a second try', async () => {
      for (const at of await waitingSince()) tries.add(at);
      return tries.size >= 2 ? true : undefined;
    });
    await release();
    await stopped;
    expect(await figuresOf(day)).toMatchObject({
      opens: BEACONS,
      readers: BEACONS,
      clicks: 3 * BEACONS,
      sites: BEACONS,
    });

    // Held past the stop's time: nothing written, and the loss said exactly.
    const later = '2026-12-01';
    const late = ingestOn(later);
    for (let k = 0; k < BEACONS; k++) expect(await accept(late, k)).toBe(true);
    const releaseLater = await holdFigures();
    const lost = await late.drain(1500).then(
      () => null,
      (error: unknown) => error,
    );
    await releaseLater();
    expect(lost).toBeInstanceOf(FiguresLost);
    expect((lost as FiguresLost).lost).toEqual({
      opens: BEACONS,
      views: BEACONS,
      searches: 0,
      clicks: 3 * BEACONS,
      readerCodes: 2 * BEACONS,
    });
    expect((lost as FiguresLost).message).toBe(
      'Reading figures not written: 1000 opens, 1000 page views, 3000 link clicks, 2000 reader codes',
    );
    expect(await figuresOf(later)).toMatchObject({ opens: 0, clicks: 0 });
  });
});
