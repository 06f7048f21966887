// Beacons in, figures out (issue 30): a beacon is read, checked and added to figures in memory
// at once (the reader is answered without waiting), and the figures are written every half second
// in one transaction, summed per key, so a thousand beacons for one page are one row's update. A
// crash loses at most the last second's beacons (the half second being summed and the write under
// way, which takes up to a few hundred ms under load); a failed write keeps its figures for the next.

import type { PoolClient } from 'pg';
import {
  ALL_LINKS,
  addFigures,
  countedFlipbooks,
  type Flush,
  forgetReadersBefore,
  NO_LINK,
  OTHER_VERSION,
  pruneFigures,
} from '../../../projections/analytics.ts';
import { forgetSaltsBefore } from '../../../projections/analyticsSalts.ts';
import { type Beacon, MAX_PAGE_SECONDS, readBeacon } from '../../domain/analytics/beacon.ts';
import { LINKS_PER_DAY, OTHER, SOURCE_NAMES_PER_DAY } from '../../domain/analytics/dailyCaps.ts';
import { type Device, deviceClass } from '../../domain/analytics/device.ts';
import { referrerHost } from '../../domain/analytics/referrer.ts';
import type { Store } from '../../store/store.ts';
import type { Clock } from '../clock.ts';
import { counted, readerOf, type Sender } from './readers.ts';
import type { ReadingToken } from './readingTokens.ts';

/**
 * Beacons are written this often: half a second, so that with a write under way (up to ~200 ms
 * at 4,000 beacons a second) a crash still loses less than the last second (a tester's kill -9
 * with writes every second lost 1.2 s).
 */
export const FLUSH_MS = 500;
const MAX_PENDING_READERS = 1_000_000;
/** int's largest: a sum waiting in memory through a long outage is written as at most this. */
const INT_MAX = 2_147_483_647;

export type BeaconSender = Sender & {
  address: string | null;
  /** `Sec-CH-UA-Mobile` */
  mobileHint: string | undefined;
};

/** The country of an address (./countries.ts), when the operator gave a GeoIP database. */
export type CountryOf = (address: string | null) => string | null;

type Daily = {
  opens: number;
  views: number;
  seconds: number;
  searches: number;
  downloads: number;
  zooms: number;
};
const noDaily = (): Daily => ({
  opens: 0,
  views: 0,
  seconds: 0,
  searches: 0,
  downloads: 0,
  zooms: 0,
});

/** Figures waiting to be written, by their row's key (fields joined by a space). */
type Pending = {
  seen: Set<string>;
  daily: Map<string, Daily>;
  pages: Map<string, { views: number; seconds: number }>;
  links: Map<string, number>;
  sources: Map<string, number>;
  /** different names pending under each key's prefix (flipbook, day, kind), for addCapped */
  names: Map<string, number>;
};
const nothing = (): Pending => ({
  seen: new Set(),
  daily: new Map(),
  pages: new Map(),
  links: new Map(),
  sources: new Map(),
  names: new Map(),
});

const add = <V>(map: Map<string, V>, key: string, fresh: () => V, change: (v: V) => V) => {
  map.set(key, change(map.get(key) ?? fresh()));
};

/**
 * Adds `n` to the count of `prefix rest` in `map`, or to `prefix other`'s once `cap` different
 * names are pending under the prefix: pending figures are as bounded as the rows they become
 * (projections/analytics.ts caps them again against the day's rows), also while the database is
 * away and a flood goes on.
 */
const addCapped = (
  p: Pending,
  map: Map<string, number>,
  prefix: string,
  rest: string,
  other: string,
  cap: number,
  n: number,
) => {
  let key = `${prefix} ${rest}`;
  if (!map.has(key) && rest !== other) {
    const held = p.names.get(prefix) ?? 0;
    if (held >= cap) key = `${prefix} ${other}`;
    else p.names.set(prefix, held + 1);
  }
  map.set(key, (map.get(key) ?? 0) + n);
};
/** A source's count: `kind` of SOURCE_NAMES_PER_DAY, `name` a host, class or code. */
const addSource = (
  p: Pending,
  bookDay: string,
  kind: keyof typeof SOURCE_NAMES_PER_DAY,
  name: string,
  n = 1,
) =>
  addCapped(
    p,
    p.sources,
    `${bookDay} ${kind}`,
    name,
    OTHER,
    SOURCE_NAMES_PER_DAY[kind] * PENDING_PER_CAP,
    n,
  );
const OTHER_LINK = `${OTHER_VERSION} 0 0`;
/**
 * Pending names kept apart per cap's worth: more than the cap, so a name the day already has a
 * row for is seldom folded here for coming after a burst of new ones in the same half second.
 */
const PENDING_PER_CAP = 10;
/** A link's clicks: `link` its version, page and place, joined by spaces. */
const addLink = (p: Pending, bookDay: string, link: string, n = 1) =>
  addCapped(p, p.links, bookDay, link, OTHER_LINK, LINKS_PER_DAY * PENDING_PER_CAP, n);

/** The pending figures as the columns one flush writes, each sorted by key. */
const columnsOf = (p: Pending): Flush => {
  const sorted = <V>(map: Map<string, V>) =>
    [...map].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k.split(' '), v] as const);
  const seen = [...p.seen].sort().map((k) => [k.split(' '), null] as const);
  const daily = sorted(p.daily);
  const pages = sorted(p.pages);
  const links = sorted(p.links);
  const sources = sorted(p.sources);
  const col = <T>(rows: readonly T[], f: (row: T) => number) =>
    rows.map((row) => Math.min(f(row), INT_MAX));
  /** the i-th field of each row's key */
  const key = (rows: readonly (readonly [string[], unknown])[], i: number) =>
    rows.map(([k]) => k[i] ?? '');
  return {
    seen: {
      flipbook: key(seen, 0),
      day: key(seen, 1),
      link: key(seen, 2),
      reader: key(seen, 3),
    },
    daily: {
      flipbook: key(daily, 0),
      day: key(daily, 1),
      link: key(daily, 2),
      opens: col(daily, ([, v]) => v.opens),
      views: col(daily, ([, v]) => v.views),
      seconds: col(daily, ([, v]) => v.seconds),
      searches: col(daily, ([, v]) => v.searches),
      downloads: col(daily, ([, v]) => v.downloads),
      zooms: col(daily, ([, v]) => v.zooms),
    },
    pages: {
      flipbook: key(pages, 0),
      day: key(pages, 1),
      version: key(pages, 2),
      position: key(pages, 3).map(Number),
      views: col(pages, ([, v]) => v.views),
      seconds: col(pages, ([, v]) => v.seconds),
    },
    links: {
      flipbook: key(links, 0),
      day: key(links, 1),
      version: key(links, 2),
      position: key(links, 3).map(Number),
      link: key(links, 4).map(Number),
      clicks: col(links, ([, v]) => v),
    },
    sources: {
      flipbook: key(sources, 0),
      day: key(sources, 1),
      kind: key(sources, 2),
      name: sources.map(([k]) => k.slice(3).join(' ')),
      opens: col(sources, ([, v]) => v),
    },
  };
};

/** The flipbook a pending row's key is for. */
const bookOf = (key: string) => key.slice(0, key.indexOf(' '));

/** The flipbooks a batch has figures for. */
const booksIn = (p: Pending) => [...new Set([...p.daily.keys()].map(bookOf))];

/** The batch without the figures of flipbooks not in `keep`. */
const onlyFor = (p: Pending, keep: Set<string>): Pending => {
  const kept = <V>(map: Map<string, V>) => new Map([...map].filter(([k]) => keep.has(bookOf(k))));
  return {
    seen: new Set([...p.seen].filter((k) => keep.has(bookOf(k)))),
    daily: kept(p.daily),
    pages: kept(p.pages),
    links: kept(p.links),
    sources: kept(p.sources),
    names: p.names,
  };
};

const sumDaily = (a: Daily, b: Daily): Daily => ({
  opens: a.opens + b.opens,
  views: a.views + b.views,
  seconds: a.seconds + b.seconds,
  searches: a.searches + b.searches,
  downloads: a.downloads + b.downloads,
  zooms: a.zooms + b.zooms,
});

const merge = (into: Pending, from: Pending) => {
  for (const key of from.seen) into.seen.add(key);
  for (const [k, v] of from.daily) add(into.daily, k, noDaily, (d) => sumDaily(d, v));
  for (const [k, v] of from.pages) {
    add(
      into.pages,
      k,
      () => ({ views: 0, seconds: 0 }),
      (p) => ({
        views: p.views + v.views,
        seconds: p.seconds + v.seconds,
      }),
    );
  }
  // (keys: flipbook, day, then the link's three fields; the source's kind, then its name)
  for (const [k, v] of from.links) {
    const [book, day, ...link] = k.split(' ');
    addLink(into, `${book} ${day}`, link.join(' '), v);
  }
  for (const [k, v] of from.sources) {
    const [book, day, kind, ...name] = k.split(' ');
    addSource(into, `${book} ${day}`, kind as keyof typeof SOURCE_NAMES_PER_DAY, name.join(' '), v);
  }
};

export type IngestDeps = {
  store: Store;
  clock: Clock;
  /** today's salt (./salts.ts) */
  salt: () => Promise<Buffer>;
  /** the reading token a beacon holds, if it is one of ours and live */
  token: (text: string, now: Date) => ReadingToken | null;
  /** this service's own host names: a reader moving inside it came from nowhere */
  ownHosts: () => readonly string[];
  /** absent: countries are not counted */
  countryOf?: CountryOf;
};

export const createIngest = (deps: IngestDeps) => {
  let pending = nothing();
  let flushing: Promise<void> | null = null;
  let lastDay: string | null = null;

  /**
   * Adds a beacon's figures; InvalidInput for a body that is not a beacon. A beacon that is not
   * to be counted (a robot, Do Not Track, a token not ours or expired) is dropped in silence.
   */
  const accept = async (body: string, sender: BeaconSender): Promise<boolean> =>
    acceptBeacon(readBeacon(body), sender);

  /** The same for a beacon already read (readBeacon). */
  const acceptBeacon = async (beacon: Beacon, sender: BeaconSender): Promise<boolean> => {
    const now = deps.clock.now();
    const token = deps.token(beacon.token, now);
    if (!token || !counted(sender)) return false;
    const day = now.toISOString().slice(0, 10);
    const book = token.flipbookId;
    const link = token.linkId ?? NO_LINK;
    const reader = readerOf(await deps.salt(), sender.address ?? '', sender.userAgent ?? '', book);
    // Summed here first: a beacon none of whose events counts (pages the version does not
    // have) counts no reader either.
    const daily = noDaily();
    let applied = 0;
    let opened = false;
    /** reading time this beacon may still add: one page load shows one page at a time */
    let readingLeft = MAX_PAGE_SECONDS;
    /** each page's seconds in this beacon: one view at most, and MAX_PAGE_SECONDS */
    const pageSeconds = new Map<number, number>();
    for (const event of beacon.events) {
      if ((event.kind === 'page' || event.kind === 'link') && event.position > token.pages)
        continue;
      // One open per page load, as the reader sends it: more are not more readings.
      if (event.kind === 'open' && opened) continue;
      if (event.kind === 'open') opened = true;
      // A page neither seen (under a second) nor adding time counts nothing, not even a reader.
      if (event.kind === 'page' && event.seconds <= 0) continue;
      applied++;
      switch (event.kind) {
        case 'open': {
          daily.opens++;
          const device: Device = deviceClass(
            sender.userAgent ?? '',
            sender.mobileHint,
            beacon.touch,
          );
          addSource(pending, `${book} ${day}`, 'device', device);
          if (deps.countryOf) {
            const country = deps.countryOf(sender.address) ?? '(unknown)';
            addSource(pending, `${book} ${day}`, 'country', country);
          }
          const host = referrerHost(beacon.referrer, deps.ownHosts());
          addSource(pending, `${book} ${day}`, 'referrer', host ?? '(direct)');
          break;
        }
        case 'page': {
          const before = pageSeconds.get(event.position);
          // A view is a page on screen at least a second (the reader's rule, kept here too),
          // once a beacon.
          const view = !event.more && event.seconds >= 1 && before === undefined ? 1 : 0;
          const seconds = Math.min(event.seconds, MAX_PAGE_SECONDS - (before ?? 0));
          pageSeconds.set(event.position, (before ?? 0) + seconds);
          // The reading time: a spread's second page was on screen in the same seconds.
          const reading = event.beside ? 0 : Math.min(seconds, readingLeft);
          readingLeft -= reading;
          daily.views += view;
          daily.seconds += reading;
          add(
            pending.pages,
            `${book} ${day} ${token.versionId} ${event.position}`,
            () => ({ views: 0, seconds: 0 }),
            (p) => ({ views: p.views + view, seconds: p.seconds + seconds }),
          );
          break;
        }
        case 'link':
          addLink(pending, `${book} ${day}`, `${token.versionId} ${event.position} ${event.link}`);
          break;
        case 'search':
          daily.searches++;
          break;
        case 'download':
          daily.downloads++;
          break;
        case 'zoom':
          daily.zooms++;
          break;
      }
    }
    if (applied === 0) return false;
    // While writes fail (the database away), readers wait in memory: at most this many, then the
    // figures go on being summed without new readers.
    if (pending.seen.size >= MAX_PENDING_READERS) {
      add(pending.daily, `${book} ${day} ${link}`, noDaily, (d) => sumDaily(d, daily));
      return true;
    }
    // Once by the link (or the book's own URL) it came by, and once for the whole book: a reader
    // who came by two links is one of the book's readers.
    pending.seen.add(`${book} ${day} ${link} ${reader}`);
    pending.seen.add(`${book} ${day} ${ALL_LINKS} ${reader}`);
    add(pending.daily, `${book} ${day} ${link}`, noDaily, (d) => sumDaily(d, daily));
    return true;
  };

  /** The figures of a batch, in one transaction; on a failure they go back to pending. */
  const write = async (batch: Pending) => {
    let client: PoolClient;
    try {
      client = await deps.store.pool.connect();
    } catch (error) {
      merge(pending, batch); // the database away: kept for the next try
      throw error;
    }
    try {
      await client.query('BEGIN');
      // Figures a crash of the database may lose are the last moment's: no wait for the disk.
      await client.query('SET LOCAL synchronous_commit = off');
      // Only for books still there, in workspaces that count (analytics may have been switched
      // off since the page was opened): the others' figures are dropped.
      const keep = await countedFlipbooks(client, booksIn(batch));
      await addFigures(client, columnsOf(onlyFor(batch, keep)));
      await client.query('COMMIT');
      client.release();
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      client.release(error as Error);
      merge(pending, batch);
      throw error;
    }
  };

  /** When a failed day's clearing may be tried again. */
  let clearAfter = 0;
  /**
   * The first write of a day (the timer's, within a second of midnight UTC) clears what is no
   * longer kept: the days before's salts and reader codes, and
   * figures past their workspace's retention or of deleted flipbooks. Apart from the figures'
   * transaction, so a slow or failed clearing never holds them back; tried again after a minute.
   */
  const clearDay = async (day: string) => {
    if (lastDay === day || Date.now() < clearAfter) return;
    try {
      // The days before's salts first: from then on no reader code of theirs can be traced.
      await forgetSaltsBefore(deps.store.db, day);
      await forgetReadersBefore(deps.store.db, day);
      await pruneFigures(deps.store.db, day);
      lastDay = day;
    } catch (error) {
      clearAfter = Date.now() + 60_000;
      throw error;
    }
  };

  /** Writes what is pending (one write at a time); on a failure it stays pending for the next. */
  const flush = async (): Promise<void> => {
    if (flushing) return flushing;
    const batch = pending;
    const day = deps.clock.now().toISOString().slice(0, 10);
    // Nothing to write, and the day's clearing done: nothing to do (the timer calls twice a second).
    if (batch.seen.size === 0 && lastDay === day) return;
    pending = nothing();
    flushing = (async () => {
      try {
        if (batch.seen.size > 0) await write(batch);
        await clearDay(day);
      } finally {
        flushing = null;
      }
    })();
    return flushing;
  };

  /** Writes everything pending, also what came while a write was under way (a stop). */
  const drain = async (): Promise<void> => {
    while (flushing) await flushing.catch(() => {});
    await flush();
  };

  return { accept, acceptBeacon, flush, drain };
};
