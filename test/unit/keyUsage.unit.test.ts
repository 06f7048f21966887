// "Last used" is written off the request's path, at most once per interval per key, and a
// failing write never reaches the request: it is reported, and the next use tries again.
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/app/clock.ts';
import { keyUsageRecorder } from '../../src/app/keyUsage.ts';
import type { Db } from '../../src/readTables/readTable.ts';

const A = '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
const B = 'b7e1a2c3-d4e5-4f60-a1b2-c3d4e5f60718';
const at = (seconds: number) => new Date(Date.UTC(2025, 0, 15, 10, 0, seconds));

/** A database that records each write's key and time, failing while `failing` is set. */
const fakeDb = () => {
  const writes: [string, string][] = [];
  const state = { failing: false };
  const db: Db = {
    query: async (_text, values) => {
      if (state.failing) throw new Error('connection lost');
      writes.push([values?.[0] as string, values?.[1] as string]);
      return { rows: [], rowCount: 1 };
    },
  };
  return { db, writes, state };
};

describe('keyUsageRecorder', () => {
  it('writes the first use, then at most once per interval per key', async () => {
    const { db, writes } = fakeDb();
    const usage = keyUsageRecorder(db, {
      intervalMs: 60_000,
      clock: systemClock,
      onError: () => {},
    });
    usage.used(A, at(0));
    usage.used(A, at(10));
    usage.used(B, at(20));
    usage.used(A, at(59));
    usage.used(A, at(60));
    await usage.settle();
    expect(writes).toEqual([
      [A, at(0).toISOString()],
      [B, at(20).toISOString()],
      [A, at(60).toISOString()],
    ]);
  });

  it('with an interval of 0, writes every use', async () => {
    const { db, writes } = fakeDb();
    const usage = keyUsageRecorder(db, { intervalMs: 0, clock: systemClock, onError: () => {} });
    usage.used(A, at(0));
    usage.used(A, at(0));
    await usage.settle();
    expect(writes).toHaveLength(2);
  });

  it('reports a failed write without throwing, and tries again at the next use', async () => {
    const { db, writes, state } = fakeDb();
    const errors: string[] = [];
    const usage = keyUsageRecorder(db, {
      intervalMs: 60_000,
      clock: systemClock,
      onError: (error, keyId) => errors.push(`${keyId}: ${(error as Error).message}`),
    });
    state.failing = true;
    expect(() => usage.used(A, at(0))).not.toThrow();
    await usage.settle();
    expect(errors).toEqual([`${A}: connection lost`]);
    state.failing = false;
    usage.used(A, at(1));
    await usage.settle();
    expect(writes).toEqual([[A, at(1).toISOString()]]);
  });

  it('survives a failing error handler', async () => {
    const { db, state } = fakeDb();
    state.failing = true;
    const usage = keyUsageRecorder(db, {
      intervalMs: 0,
      clock: systemClock,
      onError: () => {
        throw new Error('logger broken');
      },
    });
    usage.used(A, at(0));
    await expect(usage.settle()).resolves.toBeUndefined();
  });
});
