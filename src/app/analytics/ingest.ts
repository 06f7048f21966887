// Beacons in, figures out (issue 30): a beacon is read, checked and added to figures in memory
// at once (the reader is answered without waiting), and the figures are written every half second,
// summed per key, so a thousand beacons for one page are one row's update; in parts of bounded size
// (./pendingFigures.ts), each its own transaction, so no write grows with a flood or an outage. A
// crash loses at most the last second's beacons (the half second being summed and the write under
// way, which takes up to a few hundred ms under load); a failed write keeps its figures for the
// next; a stop tries for DRAIN_MS, then says in numbers what it could not write.
// One file (over 300 lines): a beacon's checks, its counting and the timed writes share one in-
// memory state.

import type { PoolClient } from 'pg';
import { type Beacon, MAX_PAGE_SECONDS, readBeacon } from '../../domain/analytics/beacon.ts';
import { type Device, deviceClass } from '../../domain/analytics/device.ts';
import { referrerHost } from '../../domain/analytics/referrer.ts';
import {
  ALL_LINKS,
  addFigures,
  addReaders,
  countedFlipbooks,
  forgetReadersBefore,
  NO_LINK,
  namesOfFullDays,
  pruneFigures,
} from '../../state/analytics.ts';
import { forgetSaltsBefore } from '../../state/analyticsSalts.ts';
import type { Store } from '../../store/store.ts';
import type { Clock } from '../clock.ts';
import {
  addDaily,
  addLink,
  addPage,
  addSource,
  booksIn,
  columnsOf,
  type FullDays,
  isEmpty,
  merge,
  noDaily,
  nothing,
  onlyFor,
  type Pending,
  partsOf,
  prefixesOf,
  totalsOf,
} from './pendingFigures.ts';
import { countReaderReading } from './readerReading.ts';
import { counted, readerOf, type Sender } from './readers.ts';
import type { ReadingToken } from './readingTokens.ts';

/**
 * Beacons are written this often: half a second, so that with a write under way (up to ~200 ms
 * at 4,000 beacons a second) a crash still loses less than the last second (a tester's kill -9
 * with writes every second lost 1.2 s).
 */
export const FLUSH_MS = 500;
const MAX_PENDING_READERS = 1_000_000;
/**
 * Rows a write takes at most, in one transaction (pendingFigures.ts partsOf): a few tens of ms
 * each, whatever is pending (a flood, the backlog of an outage).
 */
export const ROWS_PER_WRITE = 2000;
/** How long a stop goes on trying to write the last figures (systemd waits 90 s in all). */
export const DRAIN_MS = 10_000;
const DRAIN_RETRY_MS = 250;

/** A stop could not write these figures: they are lost, and said so in numbers. */
export class FiguresLost extends Error {
  override name = 'FiguresLost';
  readonly lost: ReturnType<typeof totalsOf>;
  constructor(lost: ReturnType<typeof totalsOf>, cause: unknown) {
    super(
      `Reading figures not written: ${lost.opens} opens, ${lost.views} page views, ` +
        `${lost.clicks} link clicks, ${lost.readerCodes} reader codes`,
      { cause },
    );
    this.lost = lost;
  }
}
export type BeaconSender = Sender & {
  address: string | null;
  /** `Sec-CH-UA-Mobile` */
  mobileHint: string | undefined;
};

/** The country of an address (./countries.ts), when the operator gave a GeoIP database. */
export type CountryOf = (address: string | null) => string | null;

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
  /** the days this daemon learned are full, with their names (pendingFigures.ts): today's */
  const fullDays: FullDays = new Map();

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
    // An identified reader's own figures first (./readerReading.ts): they were told.
    if (token?.readerId) await countReaderReading(deps.store.db, token, beacon, now);
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
          addSource(pending, fullDays, `${book} ${day}`, 'device', device);
          if (deps.countryOf) {
            const country = deps.countryOf(sender.address) ?? '(unknown)';
            addSource(pending, fullDays, `${book} ${day}`, 'country', country);
          }
          const host = referrerHost(beacon.referrer, deps.ownHosts());
          addSource(pending, fullDays, `${book} ${day}`, 'referrer', host ?? '(direct)');
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
          addPage(pending, `${book} ${day} ${token.versionId} ${event.position}`, view, seconds);
          break;
        }
        case 'link':
          addLink(
            pending,
            fullDays,
            `${book} ${day}`,
            `${token.versionId} ${event.position} ${event.link}`,
          );
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
      addDaily(pending, `${book} ${day} ${link}`, daily);
      return true;
    }
    // Once by the link (or the book's own URL) it came by, and once for the whole book: a reader
    // who came by two links is one of the book's readers.
    pending.seen.add(`${book} ${day} ${link} ${reader}`);
    pending.seen.add(`${book} ${day} ${ALL_LINKS} ${reader}`);
    addDaily(pending, `${book} ${day} ${link}`, daily);
    return true;
  };

  /**
   * Writes one part of a batch (pendingFigures.ts partsOf) in a transaction, and learns which of
   * its days are full (their names are folded in memory from then on).
   */
  const writePart = async (part: Pending) => {
    const client: PoolClient = await deps.store.pool.connect();
    try {
      await client.query('BEGIN');
      // Figures a crash of the database may lose are the last moment's: no wait for the disk.
      await client.query('SET LOCAL synchronous_commit = off');
      // A part is small and its plan simple: compiling it (JIT, on a large estimate) took longer
      // than running it (1.2 s of 1.6 s for 50,000 links).
      await client.query('SET LOCAL jit = off');
      // Only for books still there, in workspaces that count (analytics may have been switched
      // off since the page was opened): the others' figures are dropped.
      const keep = await countedFlipbooks(client, booksIn(part));
      const kept = onlyFor(part, keep);
      const columns = columnsOf(kept);
      await addReaders(client, columns.seen);
      await addFigures(client, columns);
      const prefixes = prefixesOf(kept);
      const ask = (list: string[]) =>
        list.filter((prefix) => !fullDays.has(prefix)).map((prefix) => prefix.split(' '));
      const links = ask(prefixes.links);
      const sources = ask(prefixes.sources);
      const full = await namesOfFullDays(
        client,
        { flipbook: links.map((k) => k[0] ?? ''), day: links.map((k) => k[1] ?? '') },
        {
          flipbook: sources.map((k) => k[0] ?? ''),
          day: sources.map((k) => k[1] ?? ''),
          kind: sources.map((k) => k[2] ?? ''),
        },
      );
      await client.query('COMMIT');
      client.release();
      const learn = (prefix: string, name: string) => {
        const names = fullDays.get(prefix) ?? new Set();
        fullDays.set(prefix, (names as Set<string>).add(name));
      };
      for (const l of full.links)
        learn(`${l.flipbook} ${l.day}`, `${l.version} ${l.position} ${l.link}`);
      for (const s of full.sources) learn(`${s.flipbook} ${s.day} ${s.kind}`, s.name);
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      client.release(error as Error);
      throw error;
    }
  };

  /**
   * The figures of a batch, in parts of bounded size, each in its own transaction: what a part
   * wrote stays written; on a failure the parts not written go back to pending, folded to the
   * caps again (so a failing write never makes the next one grow but by what new beacons add).
   */
  const write = async (batch: Pending) => {
    const parts = partsOf(batch, ROWS_PER_WRITE);
    for (const [i, part] of parts.entries()) {
      try {
        await writePart(part);
      } catch (error) {
        for (const rest of parts.slice(i)) merge(pending, rest, fullDays);
        throw error;
      }
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
    if (isEmpty(batch) && lastDay === day) return;
    pending = nothing();
    if (lastDay !== day) {
      // A new day: the days before keep no more names (their beacons' tokens end).
      for (const prefix of fullDays.keys())
        if (prefix.split(' ')[1] !== day) fullDays.delete(prefix);
    }
    flushing = (async () => {
      try {
        if (!isEmpty(batch)) await write(batch);
        await clearDay(day);
      } finally {
        flushing = null;
      }
    })();
    return flushing;
  };

  /**
   * Writes everything pending, also what came while a write was under way (a stop): a write that
   * fails is tried again, every DRAIN_RETRY_MS, for `ms`; then FiguresLost says what was not written.
   */
  const drain = async (ms = DRAIN_MS): Promise<void> => {
    const deadline = Date.now() + ms;
    for (;;) {
      while (flushing) await flushing.catch(() => {});
      try {
        await flush();
        if (isEmpty(pending)) return;
      } catch (error) {
        if (Date.now() + DRAIN_RETRY_MS > deadline) {
          throw new FiguresLost(totalsOf(pending), error);
        }
        await new Promise((resolve) => setTimeout(resolve, DRAIN_RETRY_MS));
      }
    }
  };

  return { accept, acceptBeacon, flush, drain };
};
