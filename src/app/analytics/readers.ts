// Who is counted, and as whom, without knowing who (issue 30, docs/privacy.md when it lands).
// A reader is a keyed hash of their address, their browser's user agent and the flipbook,
// under a salt of the day that is deleted after the day: the same reader is one reader within
// a day and a flipbook, and no one (we neither) can tell afterwards who it was, or follow them
// from one flipbook to another. Nothing of it is stored but the hash.
import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { isbot } from 'isbot';

/** What a beacon's request says of its sender that decides whether it is counted. */
export type Sender = {
  userAgent: string | undefined;
  /** `DNT` */
  doNotTrack: string | undefined;
  /** `Sec-GPC` */
  globalPrivacyControl: string | undefined;
};

/**
 * Whether a beacon is counted: not when its reader asked not to be followed (Do Not Track, Global
 * Privacy Control), nor for a robot (isbot's list; a browser without a user agent is one too).
 */
export const counted = ({ userAgent, doNotTrack, globalPrivacyControl }: Sender) =>
  doNotTrack !== '1' && globalPrivacyControl !== '1' && !!userAgent && !robot(userAgent);

/**
 * isbot's verdicts on the user agents seen lately: a few hundred browsers send most beacons, and
 * the expression costs microseconds a beacon (bench/analytics). Forgotten when it grows.
 */
const verdicts = new Map<string, boolean>();
const robot = (userAgent: string) => {
  let verdict = verdicts.get(userAgent);
  if (verdict === undefined) {
    verdict = isbot(userAgent);
    if (verdicts.size >= 5000) verdicts.clear();
    verdicts.set(userAgent, verdict);
  }
  return verdict;
};

/**
 * The salt as a key object, made once per salt: HMAC with a raw Buffer key prepares the key on
 * every call, seven times the cost (bench/analytics).
 */
const keys = new WeakMap<Buffer, KeyObject>();
const keyOf = (salt: Buffer) => {
  let key = keys.get(salt);
  if (!key) {
    key = createSecretKey(salt);
    keys.set(salt, key);
  }
  return key;
};

/** An IPv4 address written as IPv6 (`::ffff:192.0.2.1`) is the same reader as without. */
const plainAddress = (address: string) => address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');

/**
 * The reader of one day and one flipbook: HMAC-SHA256 under the day's salt over the address,
 * the user agent and the flipbook (NUL between them: no two inputs run into each other), cut to
 * 128 bits, hex.
 */
export const readerOf = (salt: Buffer, address: string, userAgent: string, flipbookId: string) =>
  createHmac('sha256', keyOf(salt))
    .update(`${plainAddress(address)}\u0000${userAgent}\u0000${flipbookId}`)
    .digest('hex')
    .slice(0, 32);
