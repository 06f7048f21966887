// What the reader's beacon says (issue 30): a few things a reader did, as small numbers, read and
// bounded here before anything is counted. Ids never come from the beacon: its token (signed by
// the server into the reader page) names the flipbook, the version and the share link, so a
// beacon cannot count into another flipbook's figures; the token is checked by the app.
//
//   { "v": 1, "t": "<token>", "e": [{ "k": "page", "p": 3, "s": 12.5 }, ...], "r": "<referrer>", "tc": 1 }
//
// A page event with "m": 1 is more time on a page already counted as seen; with "b": 1, a page
// shown beside the one before it (a spread): its seconds are that page's too, not more reading.
import { InvalidInput } from '../errors.ts';

/** Bytes a beacon body may have (browsers queue 64 KB of beacons per page at most). */
export const MAX_BEACON_BYTES = 8 * 1024;
export const MAX_EVENTS = 64;
/** A page shown longer than this in one go counts this long (a tab left open). */
export const MAX_PAGE_SECONDS = 1800;
const MAX_POSITION = 100_000;
const MAX_LINK = 9_999;

export type ReadingEvent =
  /** the reader opened (once per page load) */
  | { kind: 'open' }
  /**
   * page `position` was visible for `seconds` (rounded down to tenths); `more`: more time on a
   * page already counted as seen (the reader left the tab and came back to it), not a new view;
   * `beside`: on screen beside the page before it (a spread), in the same seconds
   */
  | { kind: 'page'; position: number; seconds: number; more: boolean; beside: boolean }
  /** the `link`-th link of page `position` was followed */
  | { kind: 'link'; position: number; link: number }
  | { kind: 'search' }
  | { kind: 'download' }
  | { kind: 'zoom' };

export type Beacon = {
  token: string;
  events: ReadingEvent[];
  referrer: string | null;
  /** the screen takes several touches (tells an iPad from a Mac) */
  touch: boolean;
};

const refuse = (why: string) => new InvalidInput(`Invalid beacon: ${why}`);

const integer = (value: unknown, min: number, max: number, what: string) => {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw refuse(`${what} must be an integer from ${min} to ${max}`);
  }
  return value;
};

const eventOf = (raw: unknown): ReadingEvent => {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw refuse('an event is not an object');
  const e = raw as Record<string, unknown>;
  switch (e.k) {
    case 'open':
    case 'search':
    case 'download':
    case 'zoom':
      return { kind: e.k };
    case 'page': {
      const seconds = e.s;
      if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) {
        throw refuse('seconds must be a number of 0 or more');
      }
      return {
        kind: 'page',
        position: integer(e.p, 1, MAX_POSITION, 'a page'),
        seconds: Math.floor(Math.min(seconds, MAX_PAGE_SECONDS) * 10) / 10,
        more: e.m === 1,
        beside: e.b === 1,
      };
    }
    case 'link':
      return {
        kind: 'link',
        position: integer(e.p, 1, MAX_POSITION, 'a page'),
        link: integer(e.l, 0, MAX_LINK, 'a link'),
      };
    default:
      throw refuse('unknown kind of event');
  }
};

/** The beacon a body holds, or InvalidInput saying what is wrong with it. */
export const readBeacon = (body: string): Beacon => {
  if (Buffer.byteLength(body) > MAX_BEACON_BYTES) throw refuse(`over ${MAX_BEACON_BYTES} bytes`);
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch {
    throw refuse('not JSON');
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw refuse('not an object');
  const b = raw as Record<string, unknown>;
  if (b.v !== 1) throw refuse('unknown version');
  if (typeof b.t !== 'string' || b.t.length === 0 || b.t.length > 512) throw refuse('no token');
  if (!Array.isArray(b.e) || b.e.length === 0 || b.e.length > MAX_EVENTS) {
    throw refuse(`1 to ${MAX_EVENTS} events`);
  }
  if (b.r !== undefined && typeof b.r !== 'string') throw refuse('the referrer is not text');
  return {
    token: b.t,
    events: b.e.map(eventOf),
    referrer: typeof b.r === 'string' && b.r !== '' ? b.r : null,
    touch: b.tc === 1,
  };
};
