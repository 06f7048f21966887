// What the gate in front of every API request costs: the rate limit (a counter shared by the
// daemons, in PostgreSQL) and authentication (the key's row, read on every request). Called in
// this process, 10 at a time like the HTTP runs, and beside them one indexed read of a flipbook
// for scale. Prints wall time per call and CPU time per call, here and in PostgreSQL.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { authenticate } from '../src/http/auth.ts';
import { createRateLimiter } from '../src/http/rateLimit.ts';
import { findFlipbook } from '../src/readTables/flipbooks.ts';
import type { Store } from '../src/store/store.ts';
import { cpuMs } from './cpuTime.ts';

const CALLS = 3000;
const LANES = 10;

export const timed = async (
  postgresCpuMs: () => Promise<number>,
  call: () => Promise<unknown>,
): Promise<{ wallUs: number; cpuUs: number; pgUs: number }> => {
  for (let i = 0; i < 200; i++) await call(); // warm-up
  const [cpu0, pg0, t0] = [await cpuMs('self'), await postgresCpuMs(), performance.now()];
  let left = CALLS;
  const lane = async () => {
    while (left-- > 0) await call();
  };
  await Promise.all(Array.from({ length: LANES }, lane));
  const [t1, cpu1, pg1] = [performance.now(), await cpuMs('self'), await postgresCpuMs()];
  return {
    wallUs: ((t1 - t0) * 1000) / CALLS,
    cpuUs: ((cpu1 - cpu0) * 1000) / CALLS,
    pgUs: ((pg1 - pg0) * 1000) / CALLS,
  };
};

export const measureGate = async (
  store: Store,
  key: string,
  workspaceId: string,
  flipbookId: string,
  postgresCpuMs: () => Promise<number>,
) => {
  const req = {
    headers: { authorization: `Bearer ${key}` },
    socket: { remoteAddress: '127.0.0.9' },
  } as unknown as IncomingMessage;
  const res = { setHeader: () => res } as unknown as ServerResponse;
  const limiter = createRateLimiter(store.db, { limit: 1_000_000, trustProxy: false });
  const parts: [string, () => Promise<unknown>][] = [
    ['rate limit', () => limiter.check(req, res)],
    ['authenticate', () => authenticate(store.db, req, new Date())],
    ['one indexed read', () => findFlipbook(store.db, workspaceId, flipbookId)],
  ];
  for (const [name, call] of parts) {
    const m = await timed(postgresCpuMs, call);
    console.log(
      `${name.padEnd(17)} ${m.wallUs.toFixed(0).padStart(5)} µs per call (10 at a time), CPU ` +
        `${m.cpuUs.toFixed(0)} µs here + ${m.pgUs.toFixed(0)} µs in PostgreSQL`,
    );
  }
};
