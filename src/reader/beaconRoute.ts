// POST /b: the reader's beacon (issue 30, docs/privacy.md). navigator.sendBeacon posts a small
// JSON text (as text/plain, which needs no preflight); it is read and bounded at once, answered
// 202 before anything is written (figures are written every half second, src/app/analytics), and
// never sets or reads a cookie. Bad beacons get a JSON 400 like any request; too many from one
// address in a minute a 429. Whether it was counted is not said: a robot learns nothing.
import type { ServerResponse } from 'node:http';
import type { Analytics } from '../app/analytics/analytics.ts';
import { MAX_BEACON_BYTES, readBeacon } from '../domain/analytics/beacon.ts';
import { senderKey } from '../domain/analytics/senderKey.ts';
import { AppError } from '../domain/errors.ts';
import { readBody } from '../http/bodyLimit.ts';
import { clientAddress } from '../http/rateLimit.ts';
import type { Request, Routes } from '../http/server.ts';
import type { Logger } from '../log.ts';
import { beacons } from '../metrics.ts';

/**
 * Beacons one address (an IPv6 /64) may send a minute, in each daemon. A reader turning pages
 * sends one every 5 seconds, so this is 250 readers at once behind one address (an office, a
 * school), and still bounds what one sender can add.
 */
export const BEACONS_PER_MINUTE = 3000;
/** Addresses remembered in a minute; past this (a flood from everywhere) the minute starts anew. */
const MAX_ADDRESSES = 100_000;

const TYPES = new Set(['text/plain', 'application/json']);

export const mountBeacon = (
  routes: Routes,
  deps: { analytics: Analytics; trustProxy: boolean; log: Logger },
) => {
  const perAddress = fixedWindow(BEACONS_PER_MINUTE, MAX_ADDRESSES);
  routes.direct('POST', '/b', async (req: Request, res: ServerResponse) => {
    const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (!TYPES.has(type)) {
      throw refusal(req, 415, 'A beacon is sent as text/plain or application/json');
    }
    const address = clientAddress(req, deps.trustProxy);
    if (!perAddress.take(senderKey(address))) {
      throw refusal(req, 429, `Too many beacons: ${BEACONS_PER_MINUTE} a minute from one address`, {
        'Retry-After': '60',
      });
    }
    const body = await readBody(req, {
      limit: MAX_BEACON_BYTES,
      tooLarge: () => refusal(req, 413, `A beacon may have at most ${MAX_BEACON_BYTES} bytes`),
    });
    const beacon = readBeacon(body.toString('utf8'));
    res.writeHead(202, { 'Cache-Control': 'no-store', 'Content-Length': 0 });
    res.end();
    const header = (name: string) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    deps.analytics
      .acceptBeacon(beacon, {
        address,
        userAgent: header('user-agent'),
        doNotTrack: header('dnt'),
        globalPrivacyControl: header('sec-gpc'),
        mobileHint: header('sec-ch-ua-mobile'),
      })
      .then(
        (counted) => beacons.inc({ outcome: counted ? 'counted' : 'dropped' }),
        // The reader was answered; a beacon that cannot be counted now (the database away for
        // today's salt) is lost, like one the network dropped.
        (error: unknown) => {
          beacons.inc({ outcome: 'lost' });
          deps.log.debug({ err: error }, 'a beacon was not counted');
        },
      );
  });
};

/**
 * A beacon refused before its body is read. A body still to come (one that trickles, or a large
 * one declared) is not waited for or read into the void: the connection closes after the answer.
 * (A beacon's body usually arrives with its headers; then the connection stays open.)
 */
const refusal = (
  req: Request,
  status: number,
  message: string,
  headers: Record<string, string> = {},
) => {
  if (req.complete) return new AppError(status, message, headers);
  return new AppError(status, message, { ...headers, Connection: 'close' });
};

/**
 * At most `limit` takes per key in each minute, remembering at most `maxKeys` keys a minute: past
 * that, keys not yet seen go uncounted until the next minute (and those counted stay counted, so
 * a flood of new addresses cannot reset a busy sender's count).
 */
const fixedWindow = (limit: number, maxKeys: number) => {
  let minute = 0;
  let counts = new Map<string, number>();
  return {
    take: (key: string) => {
      const now = Math.floor(Date.now() / 60_000);
      if (now !== minute) {
        minute = now;
        counts = new Map();
      }
      const seen = counts.get(key);
      if (seen === undefined && counts.size >= maxKeys) return true;
      const count = (seen ?? 0) + 1;
      counts.set(key, count);
      return count <= limit;
    },
  };
};
