// The figures a daemon holds between writes stay within the caps whatever beacons name, also
// when failed writes come back into them, and a batch is written in parts of bounded size
// (issue 40: a flood's batch grew with each failed write, and no write passed again).
import { describe, expect, it } from 'vitest';
import {
  addDaily,
  addLink,
  addSource,
  type FullDays,
  merge,
  noDaily,
  nothing,
  type Pending,
  partsOf,
  totalsOf,
} from '../../src/app/analytics/pendingFigures.ts';
import {
  LINKS_PER_DAY,
  OTHER,
  SOURCE_NAMES_PER_DAY,
} from '../../src/domain/analytics/dailyCaps.ts';

const BOOK = '6f1d2c3b-4a59-4e68-9d7c-0b1a2c3d4e5f';
const VERSION = '0a7b8c9d-0e1f-4f6a-9c3e-2a7b8c9d0e1f';
const DAY = '2026-11-29';
const BOOK_DAY = `${BOOK} ${DAY}`;
const sum = (map: Map<string, number>) => [...map.values()].reduce((a, b) => a + b, 0);

/** `n` beacons, each with a new site and three new links, as a tester's flood. */
const flood = (p: Pending, full: FullDays, n: number, from = 0) => {
  for (let k = from; k < from + n; k++) {
    addDaily(p, `${BOOK_DAY} ${VERSION}`, { ...noDaily(), opens: 1 });
    addSource(p, full, BOOK_DAY, 'referrer', `ref-${k}.example.com`);
    for (const l of [k, k * 7, k * 13]) addLink(p, full, BOOK_DAY, `${VERSION} 1 ${l % 10_000}`);
  }
};

describe('pending figures', () => {
  it('keep at most twice a cap of names a day not known full, the rest as one (other)', () => {
    const p = nothing();
    flood(p, new Map(), 20_000);
    expect(p.links.size).toBe(2 * LINKS_PER_DAY + 1);
    expect(p.sources.size).toBe(2 * SOURCE_NAMES_PER_DAY.referrer + 1);
    expect(sum(p.links)).toBe(60_000);
    expect(sum(p.sources)).toBe(20_000);
  });

  it('keep a full day’s own names and fold any other at once: its cap plus one', () => {
    const kept = new Set(Array.from({ length: LINKS_PER_DAY }, (_, i) => `${VERSION} 1 ${i}`));
    const sites = new Set(
      Array.from({ length: SOURCE_NAMES_PER_DAY.referrer }, (_, i) => `ref-${i}.example.com`),
    );
    const full: FullDays = new Map([
      [BOOK_DAY, kept],
      [`${BOOK_DAY} referrer`, sites],
    ]);
    const p = nothing();
    flood(p, full, 20_000);
    expect(p.links.size).toBeLessThanOrEqual(LINKS_PER_DAY + 1);
    expect(p.sources.size).toBe(SOURCE_NAMES_PER_DAY.referrer + 1);
    // A name the day keeps is counted on its own row, whenever it comes.
    expect(p.links.get(`${BOOK_DAY} ${VERSION} 1 7`)).toBeGreaterThan(0);
    expect(p.sources.get(`${BOOK_DAY} referrer ref-99.example.com`)).toBe(1);
    expect(p.sources.get(`${BOOK_DAY} referrer ${OTHER}`)).toBe(20_000 - 100);
    expect(sum(p.links)).toBe(60_000);
  });

  it('do not grow when a failed write comes back into them', () => {
    const full: FullDays = new Map();
    const pending = nothing();
    for (let round = 0; round < 20; round++) {
      const failed = pending.links.size > 0 ? takeAll(pending) : nothing();
      flood(pending, full, 500, round * 500);
      merge(pending, failed, full);
      expect(pending.links.size).toBeLessThanOrEqual(2 * LINKS_PER_DAY + 1);
    }
    expect(sum(pending.links)).toBe(3 * 20 * 500);
    expect(totalsOf(pending)).toMatchObject({ opens: 20 * 500, clicks: 3 * 20 * 500 });
  });

  it('are written in parts of at most the rows asked, reader codes apart, nothing left out', () => {
    const p = nothing();
    flood(p, new Map(), 5000);
    for (let k = 0; k < 4500; k++) p.seen.add(`${BOOK_DAY} ${VERSION} reader-${k}`);
    // reader codes 4,500; figures 1 daily row, 2 × 500 + 1 links, 2 × 100 + 1 sites: 1,203
    const parts = partsOf(p, 1000);
    const size = (q: Pending) => q.seen.size + q.daily.size + q.links.size + q.sources.size;
    expect(parts.map(size)).toEqual([1000, 1000, 1000, 1000, 500, 1000, 203]);
    expect(parts.every((q) => q.seen.size === 0 || size(q) === q.seen.size)).toBe(true);
    const back = nothing();
    for (const part of parts) merge(back, part, new Map());
    expect(totalsOf(back)).toEqual(totalsOf(p));
    expect(back.links).toEqual(p.links);
  });
});

/** Everything pending, taken out as a write does (pending starts again empty). */
const takeAll = (p: Pending): Pending => {
  const taken: Pending = { ...p, names: new Map(p.names) };
  p.seen = new Set();
  p.daily = new Map();
  p.pages = new Map();
  p.links = new Map();
  p.sources = new Map();
  p.names = new Map();
  return taken;
};
