// Reader analytics, put together for the daemon (issue 30, docs/privacy.md): the token a reader
// page carries, beacons counted into figures written every half second, and the stop that writes the
// last of them. Nothing here runs unless the daemon starts it.

import type { Logger } from '../../log.ts';
import type { Store } from '../../store/store.ts';
import type { Clock } from '../clock.ts';
import type { Countries } from './countries.ts';
import { createIngest, FiguresLost, FLUSH_MS } from './ingest.ts';
import { READING_TOKEN_MS, readingTokensSignedWith } from './readingTokens.ts';
import { dailySalts } from './salts.ts';

const DAY_MS = 86_400_000;

export type Analytics = ReturnType<typeof openAnalytics>;

export const openAnalytics = (deps: {
  store: Store;
  clock: Clock;
  /** the installation's signing secret (readerAccess.ts) */
  secret: string;
  /** the service's own host names (its public URL's), read on each beacon */
  ownHosts: () => readonly string[];
  log: Logger;
  /** a GeoIP database's countries (serve --geoip-file); absent: not counted */
  countries?: Countries;
}) => {
  const tokens = readingTokensSignedWith(deps.secret);
  const salts = dailySalts(deps.store, deps.clock);
  const ingest = createIngest({
    store: deps.store,
    clock: deps.clock,
    salt: salts.today,
    token: tokens.read,
    ownHosts: deps.ownHosts,
    ...(deps.countries ? { countryOf: deps.countries.of } : {}),
  });
  let timer: NodeJS.Timeout | null = null;
  let failing = false;
  const flush = () =>
    ingest.flush().then(
      () => {
        if (failing) deps.log.info('reading figures are written again');
        failing = false;
      },
      (error: unknown) => {
        // Kept for the next try; said once per outage, not at every try.
        if (!failing)
          deps.log.warn({ err: error }, 'could not write reading figures: kept, will retry');
        failing = true;
      },
    );
  return {
    /**
     * The token a reader page carries for its beacons. Its expiry is a whole day's end (UTC), so
     * the page's text, and with it its ETag, stays the same all day.
     */
    tokenFor: (
      book: { flipbookId: string; versionId: string; pages: number },
      linkId: string | null,
      readerId: string | null = null,
    ) =>
      tokens.sign({
        ...book,
        linkId,
        readerId,
        expires:
          (Math.ceil(deps.clock.now().getTime() / DAY_MS) * DAY_MS + READING_TOKEN_MS) / 1000,
      }),
    acceptBeacon: ingest.acceptBeacon,
    /** Writes pending figures every half second until stopped. */
    start: () => {
      timer ??= setInterval(() => void flush(), FLUSH_MS);
      timer.unref();
    },
    /** Stops the timer and writes what is pending (a clean stop loses nothing). */
    stop: async () => {
      if (timer) clearInterval(timer);
      timer = null;
      // Tried again for a while (ingest.ts DRAIN_MS); then what is lost is said in numbers.
      await ingest
        .drain()
        .catch((error: unknown) =>
          deps.log.warn(
            { err: error, ...(error instanceof FiguresLost ? { lost: error.lost } : {}) },
            'could not write the last reading figures',
          ),
        );
    },
    /** Writes what is pending now (tests, the stop). */
    flush,
  };
};
