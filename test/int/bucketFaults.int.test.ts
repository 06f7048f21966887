// The bucket store behind a fault-injecting proxy (test/support/faultyProxy.ts) in front of the
// suite's s3rver: real HTTP all the way. A bucket that freezes, fails a share of its requests,
// or answers slowly costs a quick, bounded failure (BlobStoreUnavailable: a 503 for a request,
// a deferral for a worker) or nothing at all, never a hang (docs/deploy.md, "A bucket that
// stalls"). Measured on the code before these bounds: a frozen read failed after 30.1 s; with
// 30 % of requests answering 500, 43 of 200 reads failed; with the bucket answering in 2 s, 15
// of 200 reads failed at 5.2 s waiting for a socket; an upload frozen mid-body failed after 30.1 s.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { BlobStore } from '../../src/blobs/blobStore.ts';
import { withBucketBudget } from '../../src/blobs/boundedSend.ts';
import { type BucketLimits, bucketLimits } from '../../src/blobs/bucketLimits.ts';
import { openS3Store } from '../../src/blobs/openBlobStore.ts';
import { BlobStoreUnavailable } from '../../src/domain/errors.ts';
import { type FaultyProxy, startFaultyProxy } from '../support/faultyProxy.ts';
import { freshBucket, S3_ENV } from '../support/s3Server.ts';
import { waitFor } from '../support/waitFor.ts';

Object.assign(process.env, S3_ENV);

const MiB = 1024 * 1024;
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
});

let proxy: FaultyProxy;
beforeAll(async () => {
  proxy = await startFaultyProxy(inject('s3Endpoint'));
  cleanups.push(() => proxy.close());
});

/** A store on a fresh bucket, through the proxy (set back to `pass` first). */
const storeBehindProxy = async (limits: BucketLimits = bucketLimits()) => {
  proxy.set({ kind: 'pass' });
  const { bucket } = await freshBucket(inject('s3Endpoint'));
  const scratchDir = await mkdtemp(join(tmpdir(), 'flipbook-faults-'));
  const store = await openS3Store({
    url: `s3://${bucket}`,
    endpoint: proxy.endpoint,
    pathStyle: true,
    scratchDir,
    limits,
  });
  cleanups.push(async () => {
    proxy.set({ kind: 'pass' });
    await store.close();
    await rm(scratchDir, { recursive: true, force: true });
  });
  return store;
};

/** Twenty pages' text files of a fresh version, to read back. */
const withPages = async (store: BlobStore) => {
  const versionId = randomUUID();
  for (let position = 1; position <= 20; position++) {
    await store.writePageFile(versionId, position, 'text.txt', `page ${position} `.repeat(100));
  }
  return versionId;
};

/** Reads a page file the way /files does: open (HEAD), then its bytes (GET). */
const readPage = async (store: BlobStore, versionId: string, position: number) => {
  const blob = await store.openPageFile(versionId, position, 'text.txt');
  if (!blob) throw new Error(`page ${position} is missing`);
  const chunks: Buffer[] = [];
  for await (const chunk of await blob.read(0, blob.size - 1)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
};

/** How an operation ended, and after how many seconds. */
const outcome = async (run: () => Promise<unknown>) => {
  const started = performance.now();
  const result = await run().then(
    () => 'ok',
    (error: unknown) => (error instanceof BlobStoreUnavailable ? 'unavailable' : error),
  );
  return { result, seconds: (performance.now() - started) / 1000 };
};

describe('a bucket that freezes', () => {
  it('fails reads and writes as unavailable within the 8 s budget, not 30 s', async () => {
    const store = await storeBehindProxy();
    const versionId = await withPages(store);
    proxy.set({ kind: 'freeze' });
    const outcomes = await Promise.all([
      outcome(() => store.openPageFile(versionId, 1, 'text.txt')),
      outcome(() => store.readPageFile(versionId, 2, 'text.txt')),
      outcome(() => store.writePageFile(versionId, 3, 'words.json', '[]')),
    ]);
    for (const { result, seconds } of outcomes) {
      expect(result).toBe('unavailable');
      expect(seconds).toBeGreaterThan(7);
      expect(seconds).toBeLessThan(9.5);
    }
  });

  it("bounds a request's operations together: a read's HEAD and GET share one budget", async () => {
    const limits = bucketLimits(1); // 1.6 s budget
    const store = await storeBehindProxy(limits);
    const versionId = await withPages(store);
    const blob = await store.openPageFile(versionId, 1, 'text.txt');
    proxy.set({ kind: 'freeze' });
    const { result, seconds } = await outcome(() =>
      withBucketBudget(async () => {
        // the HEAD spends the budget; the GET after it fails at once
        await store.openPageFile(versionId, 2, 'text.txt').catch(() => null);
        await blob?.read(0, 10);
      }),
    );
    expect(result).toBe('unavailable');
    expect(seconds).toBeLessThan(2.2);
  });

  it('fails a body that stops mid-way after the silence bound, and waits for a slow reader', async () => {
    const store = await storeBehindProxy(bucketLimits(1));
    const versionId = randomUUID();
    const bytes = randomBytes(4 * MiB);
    await store.writePageFile(versionId, 1, 'max.jpg', bytes);
    const blob = await store.openPageFile(versionId, 1, 'max.jpg');
    if (!blob) throw new Error('not stored');
    // A reader slower than the bucket (2.5 s without reading): not the bucket's silence.
    const slow = await blob.read(0, bytes.length - 1);
    await new Promise((r) => setTimeout(r, 2500));
    const read: Buffer[] = [];
    for await (const chunk of slow) read.push(chunk as Buffer);
    expect(Buffer.concat(read).equals(bytes)).toBe(true);
    // The bucket going silent after the first bytes: the read fails, as the store's failure.
    const body = await blob.read(0, bytes.length - 1);
    const started = performance.now();
    const failure = await new Promise<unknown>((resolve) => {
      body.once('data', () => proxy.set({ kind: 'freeze' }));
      body.on('error', resolve);
      body.on('end', () => resolve(null));
      body.resume();
    });
    expect(failure).toBeInstanceOf(BlobStoreUnavailable);
    expect((performance.now() - started) / 1000).toBeLessThan(2.5);
  });

  it('fails an upload mid-body within the budget while the body still comes, not after 30 s', async () => {
    const store = await storeBehindProxy(bucketLimits(2)); // 3.2 s budget
    const incoming = await store.temporary();
    const piece = randomBytes(256 * KiB);
    let sent = 0;
    let frozeAt = 0;
    const source = new Readable({
      read() {
        if (sent >= 64 * MiB) return void this.push(null);
        if (sent >= 12 * MiB && !frozeAt) {
          proxy.set({ kind: 'freeze' });
          frozeAt = performance.now();
        }
        sent += piece.length;
        this.push(piece);
      },
    });
    const failure = await pipeline(source, incoming.stream).then(
      () => null,
      (error: unknown) => error,
    );
    const seconds = (performance.now() - frozeAt) / 1000;
    expect(failure).toBeInstanceOf(BlobStoreUnavailable);
    expect(seconds).toBeLessThan(4.5);
    expect(sent).toBeLessThan(64 * MiB);
    proxy.set({ kind: 'pass' });
    await store.discard(incoming.ref);
  });
});

const KiB = 1024;

describe('a bucket that fails 30 % of its requests with 500', () => {
  it('serves every read and write: retried with jitter within the budget', async () => {
    const store = await storeBehindProxy();
    const versionId = await withPages(store);
    proxy.reset();
    proxy.set({ kind: 'fail', percent: 30, seed: 7 });
    const reads = Array.from({ length: 120 }, (_, i) =>
      outcome(() => readPage(store, versionId, (i % 20) + 1)),
    );
    const writes = Array.from({ length: 40 }, (_, i) =>
      outcome(() => store.writePageFile(versionId, (i % 20) + 1, 'words.json', `[${i}]`)),
    );
    const upload = outcome(async () => {
      const incoming = await store.temporary();
      await pipeline(Readable.from([randomBytes(12 * MiB)]), incoming.stream);
      await store.discard(incoming.ref);
    });
    const results = await Promise.all([...reads, ...writes, upload]);
    expect(results.filter((r) => r.result !== 'ok')).toEqual([]);
    // the proxy did fail about 30 % of what it saw
    const { requests, failed } = proxy.counts();
    expect(failed / requests).toBeGreaterThan(0.2);
  });
});

describe('a slow bucket', () => {
  it('never counts the wait for a free connection as connecting: all reads served', async () => {
    // 10 connections, 300 ms a request, 40 reads of two requests each: the last wait ~2 s for a
    // connection, far past the 300 ms allowed to connect.
    const store = await storeBehindProxy({ ...bucketLimits(), connectMs: 300, maxSockets: 10 });
    const versionId = await withPages(store);
    proxy.set({ kind: 'delay', ms: 300 });
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => outcome(() => readPage(store, versionId, (i % 20) + 1))),
    );
    expect(results.filter((r) => r.result !== 'ok')).toEqual([]);
    expect(Math.max(...results.map((r) => r.seconds))).toBeGreaterThan(1.5);
  });

  it('fails a wait for a connection past its own bound as unavailable at the bound, never a hang', async () => {
    const store = await storeBehindProxy({
      ...bucketLimits(),
      maxSockets: 2,
      socketWaitMs: 500,
    });
    const versionId = await withPages(store);
    proxy.set({ kind: 'delay', ms: 2000 });
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        outcome(() => store.openPageFile(versionId, i + 1, 'text.txt')),
      ),
    );
    const served = results.filter((r) => r.result === 'ok');
    const refused = results.filter((r) => r.result === 'unavailable');
    expect(served.length).toBe(2);
    expect(refused.length).toBe(4);
    for (const r of refused) expect(r.seconds).toBeLessThan(1.2);
  });
});

describe('an upload given up while the bucket fails', () => {
  it('stores nothing afterwards: its retried PUT stops with it, the bucket back or not', async () => {
    const limits = bucketLimits(1); // 1.6 s budget
    const store = await storeBehindProxy(limits);
    const incoming = await store.temporary();
    proxy.reset();
    // Every PUT fails: the small temporary's one PUT is retried within its budget.
    proxy.set({ kind: 'fail', percent: 100, only: (method) => method === 'PUT' });
    const ended = new Promise<unknown>((resolve) => incoming.stream.once('error', resolve));
    incoming.stream.end(randomBytes(64 * KiB));
    await waitFor('the PUT refused once', async () =>
      proxy.counts().failed >= 1 ? true : undefined,
    );
    // Given up (the heartbeat's failure, a 503 already answered), and the bucket is back.
    incoming.stream.destroy(new BlobStoreUnavailable('upload', new Error('given up')));
    await ended;
    const putsWhenGivenUp = proxy.counts().byMethod.PUT ?? 0;
    proxy.set({ kind: 'pass' });
    // Absence is what is asserted: waited for as long as a retry could still come (the budget).
    await sleep(limits.budgetMs + 500);
    expect(proxy.counts().byMethod.PUT ?? 0).toBe(putsWhenGivenUp);
    expect([...proxy.stored().keys()].filter((key) => key.includes(incoming.ref))).toEqual([]);
  });
});
