// Waiting at start (src/waitAtStart.ts) on an injected clock: one line a try, pauses that grow to
// 3 s, the end said in a sentence, and what waiting cannot mend ended at once.
import { describe, expect, it } from 'vitest';
import { hostOf, NotAvailable, type Waiting, waitAtStart } from '../../src/waitAtStart.ts';

const notFound = () =>
  Object.assign(new Error('getaddrinfo ENOTFOUND postgres'), { code: 'ENOTFOUND' });

/** A clock that moves only when slept on (and by `costMs` per attempt). */
const fakeTime = (costMs = 0) => {
  let t = 0;
  const pauses: number[] = [];
  return {
    now: () => t,
    sleep: async (ms: number) => {
      pauses.push(ms);
      t += ms;
    },
    spend: () => {
      t += costMs;
    },
    pauses,
  };
};

const reason = (error: unknown) =>
  (error as { code?: string }).code === 'ENOTFOUND' ? 'the name does not resolve' : null;

describe('waitAtStart', () => {
  it('says each try in one line, pauses 0.5, 1, 2 then 3 s, and ends with a sentence', async () => {
    const time = fakeTime(100);
    const lines: Waiting[] = [];
    const waiting = waitAtStart({
      what: 'the database at postgres:5432',
      attempt: async () => {
        time.spend();
        throw notFound();
      },
      worthWaiting: reason,
      describe: String,
      patienceMs: 30_000,
      onWaiting: (w) => lines.push(w),
      now: time.now,
      sleep: time.sleep,
    });
    const error = await waiting.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotAvailable);
    expect((error as Error).message).toBe(
      'the database at postgres:5432 is unavailable: the name does not resolve (13 tries in 30 s)',
    );
    expect((error as Error).cause).toMatchObject({ code: 'ENOTFOUND' });
    expect(lines.map((w) => w.line).slice(0, 3)).toEqual([
      'waiting for the database at postgres:5432: the name does not resolve (try 1, 30 s left)',
      'waiting for the database at postgres:5432: the name does not resolve (try 2, 30 s left)',
      'waiting for the database at postgres:5432: the name does not resolve (try 3, 29 s left)',
    ]);
    expect(lines.at(-1)?.line).toBe(
      'waiting for the database at postgres:5432: the name does not resolve (try 12, 2 s left)',
    );
    expect(lines).toHaveLength(12);
    // the last pause is what is left, so the last try comes at the deadline, not past it
    expect(time.pauses.slice(0, 5)).toEqual([500, 1000, 2000, 3000, 3000]);
    expect(time.pauses.at(-1)).toBe(30_000 - 12 * 100 - (500 + 1000 + 2000 + 8 * 3000));
  });

  it('returns what the attempt gives once it succeeds', async () => {
    const time = fakeTime();
    let tries = 0;
    const lines: string[] = [];
    const value = await waitAtStart({
      what: 'the bucket s3://b/',
      attempt: async () => {
        if (++tries < 3) throw notFound();
        return 'open';
      },
      worthWaiting: reason,
      describe: String,
      patienceMs: 30_000,
      onWaiting: (w) => lines.push(w.line),
      now: time.now,
      sleep: time.sleep,
    });
    expect(value).toBe('open');
    expect(lines).toHaveLength(2);
  });

  it('tries once with no patience, and says so without counting tries', async () => {
    const time = fakeTime();
    const lines: string[] = [];
    const error = await waitAtStart({
      what: 'the database at db.internal:5432',
      attempt: async () => {
        throw notFound();
      },
      worthWaiting: reason,
      describe: String,
      patienceMs: 0,
      onWaiting: (w) => lines.push(w.line),
      now: time.now,
      sleep: time.sleep,
    }).catch((e: Error) => e);
    expect(error.message).toBe(
      'the database at db.internal:5432 is unavailable: the name does not resolve',
    );
    expect(lines).toEqual([]);
  });

  it('ends at once on what waiting cannot mend, in its own words', async () => {
    const time = fakeTime();
    let tries = 0;
    const error = await waitAtStart({
      what: 'the database at postgres:5432',
      attempt: async () => {
        tries++;
        throw Object.assign(new Error('password authentication failed for user "flipbook"'), {
          code: '28P01',
        });
      },
      worthWaiting: reason,
      describe: (e) => (e as Error).message,
      patienceMs: 30_000,
      now: time.now,
      sleep: time.sleep,
    }).catch((e: Error) => e);
    expect(tries).toBe(1);
    expect(error.message).toBe(
      'the database at postgres:5432 cannot be used: password authentication failed for user "flipbook"',
    );
  });

  it('names a host and port, never the password', () => {
    expect(hostOf('postgres://flipbook:secret@postgres/flipbook', '5432')).toBe('postgres:5432');
    expect(hostOf('postgres://u:p@db.internal:6543/x', '5432')).toBe('db.internal:6543');
    expect(hostOf('http://minio:9000', '80')).toBe('minio:9000');
    expect(hostOf('postgresql:///flipbook?host=/run/postgresql', '5432')).toBeNull();
  });
});
