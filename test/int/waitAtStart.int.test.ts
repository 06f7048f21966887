// A database or bucket not there yet at start (issue 41): a name that does not resolve, a closed
// port and a server that never answers are waited for alike, one line a try, then a sentence
// and no stack; one that comes during the wait is used. Real PostgreSQL, real s3rver, real
// sockets; a patience of a second or two instead of the daemon's 30 s.
import { randomBytes } from 'node:crypto';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { openCheckedBlobStore } from '../../src/blobs/openBlobStore.ts';
import { databaseLimits } from '../../src/store/limits.ts';
import { openStore } from '../../src/store/store.ts';
import { StoreError } from '../../src/store/storeError.ts';
import type { Waiting } from '../../src/waitAtStart.ts';
import { freshDatabase } from '../support/databases.ts';
import { freshBucket, S3_ENV } from '../support/s3Server.ts';

Object.assign(process.env, S3_ENV);

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.close();
  }
});

/** A loopback port nothing listens on (taken and given back). */
const closedPort = async () => {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
};

/** Listens on `port` (0: any) and calls `onConnection` for each client. */
const listen = async (port: number, onConnection: (socket: Socket) => void) => {
  const server = createServer(onConnection);
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  servers.push(server);
  return (server.address() as { port: number }).port;
};

/** The first try's line: `line (try 1, N s left)`, N being what the clock left. */
const firstTry = (line: string) =>
  new RegExp(`^${line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(try 1, \\d+ s left\\)$`);

/** Every line must be one line, with no stack in it. */
const noStack = (text: string) => {
  expect(text).not.toMatch(/\n|\bat .*\.(ts|js):\d+/);
};

const openWaiting = async (databaseUrl: string, patienceMs: number, timeoutS = 5) => {
  const lines: Waiting[] = [];
  const started = performance.now();
  const outcome = await openStore({
    databaseUrl,
    limits: databaseLimits(timeoutS),
    startupPatienceMs: patienceMs,
    onWaiting: (w) => lines.push(w),
  }).then(
    (store) => ({ store, error: null }),
    (error: Error) => ({ store: null, error }),
  );
  return { ...outcome, lines, ms: performance.now() - started };
};

describe('the database, not there yet at start', () => {
  it('a name that does not resolve is waited for, a line a try, then said in a sentence', async () => {
    const { error, lines, ms } = await openWaiting('postgres://x@nonexistent.invalid/db', 2000);
    expect(error).toBeInstanceOf(StoreError);
    expect(error?.message).toMatch(
      /^the database at nonexistent\.invalid:5432 is unavailable: the name does not resolve \(\d+ tries in \d+ s\)$/,
    );
    noStack(error?.message ?? '');
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines[0]?.line).toMatch(
      firstTry('waiting for the database at nonexistent.invalid:5432: the name does not resolve'),
    );
    for (const w of lines) noStack(w.line);
    expect(ms).toBeGreaterThanOrEqual(2000);
    expect(ms).toBeLessThan(10_000);
  });

  it('a closed port likewise', async () => {
    const port = await closedPort();
    const { error, lines } = await openWaiting(`postgres://x@127.0.0.1:${port}/db`, 1500);
    expect(error?.message).toMatch(
      new RegExp(
        `^the database at 127\\.0\\.0\\.1:${port} is unavailable: the connection was refused \\(nothing listens on that port\\) \\(\\d+ tries in \\d+ s\\)$`,
      ),
    );
    expect(lines[0]?.line).toMatch(
      firstTry(
        `waiting for the database at 127.0.0.1:${port}: the connection was refused (nothing listens on that port)`,
      ),
    );
  });

  it('a server that accepts and never answers likewise, each try bounded by the connect timeout', async () => {
    const held: Socket[] = [];
    const port = await listen(0, (socket) => held.push(socket));
    const { error, lines, ms } = await openWaiting(`postgres://x@127.0.0.1:${port}/db`, 1500, 1);
    for (const socket of held) socket.destroy();
    expect(error?.message).toMatch(
      new RegExp(
        `^the database at 127\\.0\\.0\\.1:${port} is unavailable: no answer within 1 s \\(\\d+ tries in \\d s\\)$`,
      ),
    );
    expect(lines[0]?.line).toMatch(
      firstTry(`waiting for the database at 127.0.0.1:${port}: no answer within 1 s`),
    );
    expect(lines.length).toBeLessThanOrEqual(2);
    expect(ms).toBeLessThan(10_000);
  });

  it('one that comes during the wait is used', async () => {
    const real = new URL(await freshDatabase());
    const port = await closedPort();
    const url = new URL(real);
    url.port = String(port);
    // After the first refused try, a forwarder to the real server starts listening on the port.
    let forwarding: Promise<number> | null = null;
    const lines: Waiting[] = [];
    const store = await openStore({
      databaseUrl: url.toString(),
      limits: databaseLimits(5),
      startupPatienceMs: 20_000,
      onWaiting: (w) => {
        lines.push(w);
        forwarding ??= listen(port, (client) => {
          const upstream = createConnection(Number(real.port), real.hostname);
          client.pipe(upstream).pipe(client);
          client.on('error', () => upstream.destroy());
          upstream.on('error', () => client.destroy());
        });
      },
    });
    try {
      expect(lines).toHaveLength(1);
      expect(lines[0]?.reason).toBe('the connection was refused (nothing listens on that port)');
      expect(await forwarding).toBe(port);
      const { rows } = await store.pool.query<{ one: number }>('SELECT 1 AS one');
      expect(rows[0]?.one).toBe(1);
    } finally {
      await store.close();
    }
  });

  it('what waiting cannot mend ends the start at once, in the server’s words', async () => {
    const real = new URL(await freshDatabase());
    real.pathname = `/no_such_${randomBytes(4).toString('hex')}`;
    const { error, lines, ms } = await openWaiting(real.toString(), 20_000);
    expect(lines).toEqual([]);
    expect(error?.message).toBe(
      `the database at ${real.hostname}:${real.port} cannot be used: database "${real.pathname.slice(1)}" does not exist`,
    );
    expect(ms).toBeLessThan(5000);
  });
});

const openBucketWaiting = async (blobUrl: string, endpoint: string, patienceMs: number) => {
  const lines: Waiting[] = [];
  const outcome = await openCheckedBlobStore(
    { blobUrl, s3Endpoint: endpoint, s3PathStyle: true, s3Timeout: 1 },
    { patienceMs, onWaiting: (w) => lines.push(w) },
  ).then(
    (store) => ({ store, error: null }),
    (error: Error) => ({ store: null, error }),
  );
  return { ...outcome, lines };
};

describe('the bucket, not there yet at start', () => {
  it('an endpoint that does not resolve is waited for, a line a try, then said in a sentence', async () => {
    const { error, lines } = await openBucketWaiting(
      's3://flipbooks',
      'http://nonexistent.invalid:9000',
      1500,
    );
    expect(error?.message).toMatch(
      /^the bucket s3:\/\/flipbooks\/ at nonexistent\.invalid:9000 is unavailable: the name does not resolve \(\d+ tries in \d+ s\)$/,
    );
    noStack(error?.message ?? '');
    expect(lines[0]?.line).toMatch(
      firstTry(
        'waiting for the bucket s3://flipbooks/ at nonexistent.invalid:9000: the name does not resolve',
      ),
    );
  });

  it('a closed port likewise, and a server that never answers', async () => {
    const port = await closedPort();
    // each try retries a refused connection within its 1.6 s (1.6 × --s3-timeout): room for two
    const refused = await openBucketWaiting('s3://flipbooks', `http://127.0.0.1:${port}`, 2500);
    expect(refused.error?.message).toMatch(
      new RegExp(
        `^the bucket s3://flipbooks/ at 127\\.0\\.0\\.1:${port} is unavailable: the connection was refused \\(nothing listens on that port\\) \\(\\d+ tr(y|ies) in \\d s\\)$`,
      ),
    );
    expect(refused.lines.length).toBeGreaterThanOrEqual(1);

    const held: Socket[] = [];
    const silent = await listen(0, (socket) => held.push(socket));
    const mute = await openBucketWaiting('s3://flipbooks', `http://127.0.0.1:${silent}`, 2500);
    for (const socket of held) socket.destroy();
    expect(mute.error?.message).toMatch(
      new RegExp(
        `^the bucket s3://flipbooks/ at 127\\.0\\.0\\.1:${silent} is unavailable: no answer in time \\(.+\\) \\(\\d+ tr(y|ies) in \\d s\\)$`,
      ),
    );
    expect(mute.lines[0]?.line).toMatch(
      firstTry(
        `waiting for the bucket s3://flipbooks/ at 127.0.0.1:${silent}: no answer in time (the bucket gave no answer within the 1.6 s)`,
      ),
    );
  });

  it('a bucket made during the wait (compose makes it once the store runs) is used', async () => {
    const endpoint = inject('s3Endpoint');
    const name = `later-${randomBytes(4).toString('hex')}`;
    let making: Promise<unknown> | null = null;
    const lines: Waiting[] = [];
    const store = await openCheckedBlobStore(
      { blobUrl: `s3://${name}`, s3Endpoint: endpoint, s3PathStyle: true },
      {
        patienceMs: 20_000,
        onWaiting: (w) => {
          lines.push(w);
          making ??= freshBucket(endpoint, name);
        },
      },
    );
    try {
      expect(lines[0]?.reason).toBe('the bucket does not exist (NoSuchBucket)');
      expect(await making).toMatchObject({ bucket: name });
      expect(store.describe).toBe(`s3://${name}/`);
    } finally {
      await store.close();
    }
  });
});
