// One time for the decisions daemons share: the database's.
//
// Several daemons and workers decide by the time: the day of the analytics salt (a reader counted
// once a day), a reading grant's expiry, a share link's expiry, the idempotency window, the rate
// limit's minute. Each used its own machine's clock, so a daemon whose clock ran a day ahead
// counted every reader twice, one 13 h ahead refused the others' grants, and one 25 h ahead made
// a second flipbook from an Idempotency-Key retry. They all reach one database, so its clock is
// the one they follow: each process measures how far its own clock is from the database's (a
// round trip, taking the middle) at start and every minute, and adds that to its own time. The
// time stays as cheap to read as Date.now() and moves smoothly between measurements.
import type { Db } from '../readTables/readTable.ts';

/** How often the offset is measured again (a clock drifts by milliseconds a day; NTP steps it). */
export const MEASURE_EVERY_MS = 60_000;
/** A round trip slower than this says little about the offset: kept only if there is no other. */
const TRUSTED_ROUND_TRIP_MS = 1_000;
/** Past this, the log says the machine's clock is off (the service still follows the database). */
export const REPORTED_SKEW_MS = 2_000;

export type DatabaseTime = {
  /** the database's time now, in ms since the epoch */
  nowMs: () => number;
  /** database minus this machine, as last measured */
  offsetMs: () => number;
  /** measures once more */
  measure: () => Promise<number>;
  /** measures every minute from now on, until stop (a daemon, a worker) */
  follow: () => void;
  stop: () => void;
};

type Log = { warn: (fields: object, message: string) => void };

/** One measurement: the database's clock minus ours, and how long the question took. */
const measureOnce = async (db: Db) => {
  const sent = Date.now();
  const { rows } = await db.query<{ ms: number }>(
    'SELECT extract(epoch FROM clock_timestamp()) * 1000 AS ms',
  );
  const back = Date.now();
  const theirs = Number(rows[0]?.ms);
  if (!Number.isFinite(theirs)) throw new Error('the database did not tell its time');
  return { offsetMs: Math.round(theirs - (sent + back) / 2), roundTripMs: back - sent };
};

export const followDatabaseTime = (db: Db, log?: Log): DatabaseTime => {
  let offset = 0;
  let measured = false;
  let timer: NodeJS.Timeout | undefined;
  let reported = false;
  const measure = async () => {
    const found = await measureOnce(db);
    if (found.roundTripMs <= TRUSTED_ROUND_TRIP_MS || !measured) {
      offset = found.offsetMs;
      measured = true;
    }
    const off = Math.abs(offset) > REPORTED_SKEW_MS;
    if (off && !reported) {
      log?.warn(
        { clockOffsetMs: offset },
        `this machine's clock is ${Math.round(Math.abs(offset) / 100) / 10} s ` +
          `${offset < 0 ? 'ahead of' : 'behind'} the database's: ` +
          'decisions follow the database (set up NTP on this machine)',
      );
    }
    reported = off;
    return offset;
  };
  return {
    nowMs: () => Date.now() + offset,
    offsetMs: () => offset,
    measure,
    follow: () => {
      if (timer) return;
      // A failed measurement keeps the last offset: the time never jumps back to this
      // machine's because the database blinked.
      timer = setInterval(() => void measure().catch(() => {}), MEASURE_EVERY_MS);
      timer.unref();
    },
    stop: () => clearInterval(timer),
  };
};
