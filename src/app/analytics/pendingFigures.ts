// The reading figures a daemon holds between two writes (./ingest.ts), summed per row's key, and
// bounded whatever beacons name (issue 40): a flipbook day's links and sources are folded here to
// the day's caps before anything is written, and a batch is written in parts of a bounded size,
// so no write grows with a flood, an outage, or the writes that failed before it. (A flood of
// new links once made one statement's work grow with the square of the batch: it passed the
// statement limit, failed, came back bigger with the next beacons, and nothing was written again.)
// One file (over 300 lines): the folding to the caps and the parts a batch is written in are one
// bound, kept in one place.

import { LINKS_PER_DAY, OTHER, SOURCE_NAMES_PER_DAY } from '../../domain/analytics/dailyCaps.ts';
import { type Flush, OTHER_VERSION } from '../../state/analytics.ts';

/** int's largest: a sum waiting in memory through a long outage is written as at most this. */
const INT_MAX = 2_147_483_647;

/** A link's day's counters, in the order of their columns (one list: the type, zero and sums). */
const DAILY_FIGURES = ['opens', 'views', 'seconds', 'searches', 'downloads', 'zooms'] as const;
export type Daily = Record<(typeof DAILY_FIGURES)[number], number>;
const dailyOf = (f: (name: keyof Daily) => number) =>
  Object.fromEntries(DAILY_FIGURES.map((name) => [name, f(name)])) as Daily;
export const noDaily = (): Daily => dailyOf(() => 0);
const sumDaily = (a: Daily, b: Daily): Daily => dailyOf((name) => a[name] + b[name]);

/** Figures waiting to be written, by their row's key (fields joined by a space). */
export type Pending = {
  seen: Set<string>;
  daily: Map<string, Daily>;
  pages: Map<string, { views: number; seconds: number }>;
  links: Map<string, number>;
  sources: Map<string, number>;
  /** different names pending under each key's prefix (flipbook, day, kind), for addCapped */
  names: Map<string, number>;
};
export const nothing = (): Pending => ({
  seen: new Set(),
  daily: new Map(),
  pages: new Map(),
  links: new Map(),
  sources: new Map(),
  names: new Map(),
});

/**
 * The names a flipbook's day keeps rows for, by the prefix of their keys (flipbook and day for
 * links, and the kind for sources), for the days that keep as many as their cap: learned from the
 * database after a write (src/state/analytics.ts namesOfFullDays), so that from then on any
 * other name is counted as OTHER here at once, and each write of such a day has at most its cap
 * plus one keys. A full day's names never change (rows are added up to the cap, never removed
 * within the day).
 */
export type FullDays = Map<string, ReadonlySet<string>>;

/**
 * Different names kept apart in memory, per cap's worth, for a day not known full: twice the cap
 * leaves room for every name the day has a row for (fewer than the cap) and more new ones than
 * it can take, so the write folds them exactly; past that, the write fills the day anyway.
 */
const PENDING_PER_CAP = 2;

/**
 * Adds `n` to the count of `prefix rest` in `p`'s `map`, or to `prefix other`'s: at once when the
 * day is full and keeps no row for `rest`; else once PENDING_PER_CAP × `cap` different names are
 * pending under the prefix. src/state/analytics.ts caps them again against the day's rows.
 */
const addCapped = (
  p: Pending,
  full: FullDays,
  map: Map<string, number>,
  prefix: string,
  rest: string,
  other: string,
  cap: number,
  n: number,
) => {
  let key = `${prefix} ${rest}`;
  if (!map.has(key) && rest !== other) {
    const kept = full.get(prefix);
    if (kept) {
      if (!kept.has(rest)) key = `${prefix} ${other}`;
    } else {
      const held = p.names.get(prefix) ?? 0;
      if (held >= cap * PENDING_PER_CAP) key = `${prefix} ${other}`;
      else p.names.set(prefix, held + 1);
    }
  }
  map.set(key, (map.get(key) ?? 0) + n);
};

export type SourceKind = keyof typeof SOURCE_NAMES_PER_DAY;
/** A source's count: `kind` of SOURCE_NAMES_PER_DAY, `name` a host, class or code. */
export const addSource = (
  p: Pending,
  full: FullDays,
  bookDay: string,
  kind: SourceKind,
  name: string,
  n = 1,
) =>
  addCapped(p, full, p.sources, `${bookDay} ${kind}`, name, OTHER, SOURCE_NAMES_PER_DAY[kind], n);

const OTHER_LINK = `${OTHER_VERSION} 0 0`;
/** A link's clicks: `link` its version, page and place, joined by spaces. */
export const addLink = (p: Pending, full: FullDays, bookDay: string, link: string, n = 1) =>
  addCapped(p, full, p.links, bookDay, link, OTHER_LINK, LINKS_PER_DAY, n);

const add = <V>(map: Map<string, V>, key: string, fresh: () => V, change: (v: V) => V) => {
  map.set(key, change(map.get(key) ?? fresh()));
};
export const addDaily = (p: Pending, key: string, daily: Daily) =>
  add(p.daily, key, noDaily, (d) => sumDaily(d, daily));
export const addPage = (p: Pending, key: string, views: number, seconds: number) =>
  add(
    p.pages,
    key,
    () => ({ views: 0, seconds: 0 }),
    (v) => ({ views: v.views + views, seconds: v.seconds + seconds }),
  );

/** Adds `from` (a write that failed) back into `into`, folded to the caps as new figures are. */
export const merge = (into: Pending, from: Pending, full: FullDays) => {
  for (const key of from.seen) into.seen.add(key);
  for (const [k, v] of from.daily) addDaily(into, k, v);
  for (const [k, v] of from.pages) addPage(into, k, v.views, v.seconds);
  // (keys: flipbook, day, then the link's three fields; the source's kind, then its name)
  for (const [k, v] of from.links) {
    const [book, day, ...link] = k.split(' ');
    addLink(into, full, `${book} ${day}`, link.join(' '), v);
  }
  for (const [k, v] of from.sources) {
    const [book, day, kind, ...name] = k.split(' ');
    addSource(into, full, `${book} ${day}`, kind as SourceKind, name.join(' '), v);
  }
};

/** Whether nothing is pending. */
export const isEmpty = (p: Pending) =>
  p.seen.size === 0 &&
  p.daily.size === 0 &&
  p.pages.size === 0 &&
  p.links.size === 0 &&
  p.sources.size === 0;

/** The flipbook a pending row's key is for. */
const bookOf = (key: string) => key.slice(0, key.indexOf(' '));

/** The flipbooks a batch has figures for. */
export const booksIn = (p: Pending) => [
  ...new Set(
    [...p.seen, ...p.daily.keys(), ...p.pages.keys(), ...p.links.keys(), ...p.sources.keys()].map(
      bookOf,
    ),
  ),
];

/** The batch without the figures of flipbooks not in `keep`. */
export const onlyFor = (p: Pending, keep: Set<string>): Pending => {
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

/**
 * The batch in parts of at most `rows` keys each, in key order, each written in a transaction of
 * its own (./ingest.ts): a write's work is bounded whatever the batch holds (a long outage's
 * million readers, a thousand books), and the parts written stay written when a later one fails.
 * Reader codes come in parts of their own: each counts its new readers, so any split is exact.
 */
export const partsOf = (p: Pending, rows: number): Pending[] => {
  const parts: Pending[] = [];
  let part = nothing();
  let size = 0;
  const room = () => {
    if (size < rows) return;
    parts.push(part);
    part = nothing();
    size = 0;
  };
  const sorted = <V>(map: Map<string, V>) => [...map].sort(([a], [b]) => (a < b ? -1 : 1));
  for (const key of [...p.seen].sort()) {
    room();
    part.seen.add(key);
    size++;
  }
  if (size > 0) {
    parts.push(part);
    part = nothing();
    size = 0;
  }
  const fill = <V>(map: Map<string, V>, into: (part: Pending) => Map<string, V>) => {
    for (const [k, v] of sorted(map)) {
      room();
      into(part).set(k, v);
      size++;
    }
  };
  fill(p.daily, (q) => q.daily);
  fill(p.pages, (q) => q.pages);
  fill(p.links, (q) => q.links);
  fill(p.sources, (q) => q.sources);
  if (size > 0) parts.push(part);
  return parts;
};

/** What a batch holds, in the words of the figures (a stop that could not write them says so). */
export const totalsOf = (p: Pending) => {
  let opens = 0;
  let views = 0;
  let searches = 0;
  for (const d of p.daily.values()) {
    opens += d.opens;
    views += d.views;
    searches += d.searches;
  }
  let clicks = 0;
  for (const n of p.links.values()) clicks += n;
  return { opens, views, searches, clicks, readerCodes: p.seen.size };
};

/** The pending figures as the columns one write takes, each sorted by key. */
export const columnsOf = (p: Pending): Flush => {
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
  /** the key of a page's figures (its views, its links' clicks): which page, of which version */
  const page = (rows: readonly (readonly [string[], unknown])[]) => ({
    flipbook: key(rows, 0),
    day: key(rows, 1),
    version: key(rows, 2),
    position: key(rows, 3).map(Number),
  });
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
      ...(Object.fromEntries(
        DAILY_FIGURES.map((name) => [name, col(daily, ([, v]) => v[name])]),
      ) as Record<keyof Daily, number[]>),
    },
    pages: {
      ...page(pages),
      views: col(pages, ([, v]) => v.views),
      seconds: col(pages, ([, v]) => v.seconds),
    },
    links: {
      ...page(links),
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

/** The prefixes (flipbook day, and kind for sources) a part writes names under. */
export const prefixesOf = (p: Pending) => ({
  links: [...new Set([...p.links.keys()].map((k) => k.split(' ', 2).join(' ')))],
  sources: [...new Set([...p.sources.keys()].map((k) => k.split(' ', 3).join(' ')))],
});
