// What an upload over HTTP hears when what it is stored on fails while a SLOW client is still
// sending its body, in process: the API on a real PostgreSQL, a bucket behind the fault-injecting
// proxy (test/support/faultyProxy.ts) in front of the run's s3rver, real tmpfs disks. The answer
// goes out at once (a 503 with Retry-After and `Connection: close`), never after the body.
// Measured before (an independent tester, curl --limit-rate, the daemon's defaults): a bucket
// frozen 3 s into an upload at 150 KB/s answered 503 after 39.6 s, 6,488,064 of 6,648,423 bytes
// sent (the multipart upload's first request is made only once 5 MiB have come, so nothing was
// waiting on the bucket until then); frozen before the request, the whole body was read first;
// and with the bucket's upload spool on a full TMPDIR, a `507` with no Retry-After, which
// `flipbook publish` does not ask again after.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { issueApiKey } from '../../src/app/apiKeys.ts';
import type { Clock } from '../../src/app/clock.ts';
import { keyUsageRecorder } from '../../src/app/keyUsage.ts';
import { urlsFor } from '../../src/app/urls.ts';
import type { BlobStore } from '../../src/blobs/blobStore.ts';
import { bucketLimits } from '../../src/blobs/bucketLimits.ts';
import { openBlobStore, openDirStore, openS3Store } from '../../src/blobs/openBlobStore.ts';
import { mountApi } from '../../src/http/api.ts';
import { createHttpServer } from '../../src/http/server.ts';
import type { Logger } from '../../src/log.ts';
import type { Store } from '../../src/store/store.ts';
import { corpus } from '../support/corpus.ts';
import { type FaultyProxy, startFaultyProxy } from '../support/faultyProxy.ts';
import { fillDisk } from '../support/fullDisk.ts';
import { workspaceInStore } from '../support/inStore.ts';
import { TEST_METADATA } from '../support/metadata.ts';
import { pacedUpload } from '../support/pacedUpload.ts';
import { freshBucket, S3_ENV } from '../support/s3Server.ts';
import { openTestStore } from '../support/stores.ts';

Object.assign(process.env, S3_ENV);

/** The 6.6 MB PDF the tester uploaded. */
const BIG = 'img_GS9_Color_Management.pdf';
const clock: Clock = { now: () => new Date() };
type LogLine = { msg: string; level: number; [field: string]: unknown };
const lines: LogLine[] = [];
const log: Logger = pino(
  { level: 'info' },
  { write: (line: string) => lines.push(JSON.parse(line)) },
);

const cleanups: (() => Promise<unknown> | unknown)[] = [];
let store: Store;
let proxy: FaultyProxy;
let apiKey: string;
let bigPdf: Buffer;

/** A tmpfs of `size` mounted on a fresh directory, unmounted after the file. */
const tmpfs = (size: string) => {
  const dir = mkdtempSync(join(tmpdir(), 'flipbook-upload-disk-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir]);
  cleanups.push(() => {
    execFileSync('umount', ['--lazy', dir]);
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
};

/** The API over `blobs`, on a loopback port: its base URL. */
const serve = async (blobs: BlobStore) => {
  const keyUsage = keyUsageRecorder(store.db, { intervalMs: 60_000, onError: () => {}, clock });
  const deps = { store, blobs, clock, urls: urlsFor(() => 'https://books.example') };
  const server: Server = createHttpServer(log, (routes) =>
    mountApi(routes, { ...deps, log, keyUsage, clock, webhookAllowPrivate: false }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await keyUsage.settle();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
};

type Answer = {
  status: number;
  headers: IncomingMessage['headers'];
  body: { error?: string };
  /** seconds from the request's start, and from `at` (when it ran) */
  seconds: number;
  sinceEvent: number;
  /** bytes of the file sent when the answer came */
  sent: number;
};

/**
 * POSTs `file` as a new flipbook at `bytesPerSecond` (32 KiB pieces, paced), as `curl
 * --limit-rate` does; `at` runs once `atBytes` of it are sent. Stops sending at the answer.
 */
const slowUpload = async (
  api: string,
  file: Buffer,
  bytesPerSecond: number,
  at?: { atBytes: number; run: () => void },
): Promise<Answer> => {
  const piece = (sent: number) => file.subarray(sent, sent + 32 * 1024);
  const answer = await pacedUpload(
    api,
    apiKey,
    { name: BIG, size: file.length, piece },
    { bytesPerSecond, at },
  );
  const { status, headers, text, startedAt, answeredAt, eventAt, sent } = answer;
  return {
    status,
    headers,
    body: text ? (JSON.parse(text) as { error?: string }) : {},
    seconds: (answeredAt - startedAt) / 1000,
    sinceEvent: (answeredAt - (at ? eventAt : startedAt)) / 1000,
    sent,
  };
};

const KiB = 1024;

beforeAll(async () => {
  bigPdf = await readFile(corpus(BIG));
  proxy = await startFaultyProxy(inject('s3Endpoint'));
  cleanups.push(() => proxy.close());
  store = await openTestStore('postgres');
  cleanups.push(() => store.close());
  const workspace = await workspaceInStore(store);
  apiKey = (
    await issueApiKey(store, { workspace: { id: workspace.id } }, TEST_METADATA, new Date())
  ).key;
});
afterAll(async () => {
  proxy?.set({ kind: 'pass' });
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('a bucket that stops answering while a slow client sends its upload', () => {
  /** A bucket store through the proxy, with `--s3-timeout 1` (an operation's bound: 1.6 s). */
  let api: string;
  beforeAll(async () => {
    const { bucket } = await freshBucket(inject('s3Endpoint'));
    const scratchDir = mkdtempSync(join(tmpdir(), 'flipbook-upload-scratch-'));
    const blobs = await openS3Store({
      url: `s3://${bucket}`,
      endpoint: proxy.endpoint,
      pathStyle: true,
      scratchDir,
      limits: bucketLimits(1),
    });
    cleanups.push(async () => {
      await blobs.close();
      rmSync(scratchDir, { recursive: true, force: true });
    });
    api = await serve(blobs);
  });

  const expectUnavailable = (answer: Answer) => {
    expect(answer.status, JSON.stringify(answer.body)).toBe(503);
    expect(answer.body).toEqual({ error: 'The file store is unavailable; try again later' });
    expect(answer.headers['retry-after']).toBe('5');
    expect(answer.headers.connection).toBe('close');
  };

  it('frozen 1 s into an upload at 256 KiB/s: a 503 within the bound, while the body still comes', async () => {
    proxy.set({ kind: 'pass' });
    const answer = await slowUpload(api, bigPdf, 256 * KiB, {
      atBytes: 256 * KiB,
      run: () => proxy.set({ kind: 'freeze' }),
    });
    proxy.set({ kind: 'pass' });
    expectUnavailable(answer);
    // 1.6 s (the operation's bound) after the bucket's last answer, and a beat between asks
    expect(answer.sinceEvent).toBeLessThan(3);
    expect(answer.sent).toBeLessThan(2 * 1024 * KiB); // of 6.3 MiB
  }, 60_000);

  it('frozen before the request: a 503 within the bound, not after the body', async () => {
    proxy.set({ kind: 'freeze' });
    const answer = await slowUpload(api, bigPdf, 256 * KiB);
    proxy.set({ kind: 'pass' });
    expectUnavailable(answer);
    expect(answer.seconds).toBeLessThan(3);
    expect(answer.sent).toBeLessThan(2 * 1024 * KiB);
  }, 60_000);

  it('takes the same upload once the bucket answers again', async () => {
    proxy.set({ kind: 'pass' });
    const answer = await slowUpload(api, bigPdf, 64 * 1024 * KiB);
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  }, 60_000);
});

describe('a full disk under an upload', () => {
  it('on a bucket, the spool in a full TMPDIR (3 MB): 503 with Retry-After: 30, logged with the cause; nothing left', async () => {
    const disk = tmpfs('3m');
    const { bucket } = await freshBucket(inject('s3Endpoint'));
    // As `serve --blob-url` without --data-dir: the spool is under TMPDIR.
    const before = process.env.TMPDIR;
    process.env.TMPDIR = disk;
    let blobs: BlobStore;
    try {
      blobs = await openBlobStore({
        blobUrl: `s3://${bucket}`,
        s3Endpoint: inject('s3Endpoint'),
        s3PathStyle: true,
      });
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
    cleanups.push(() => blobs.close());
    const api = await serve(blobs);
    const logged = lines.length;
    const answer = await slowUpload(api, bigPdf, 2 * 1024 * KiB);
    expect(answer.status, JSON.stringify(answer.body)).toBe(503);
    expect(answer.body).toEqual({ error: "The server's temporary disk is full; try again later" });
    expect(answer.headers['retry-after']).toBe('30');
    expect(answer.headers.connection).toBe('close');
    expect(answer.seconds).toBeLessThan(5);
    const said = lines.slice(logged).filter((l) => l.level === 50);
    expect(said.map((l) => l.msg)).toEqual(['the temporary disk failed']);
    expect(String(said[0]?.cause)).toMatch(/no space left in /);
    expect(String(said[0]?.directory).startsWith(`${disk}/`)).toBe(true);
    // the spool is gone: the disk has its room back for the next upload
    const scratch = readdirSync(join(disk, 'flipbook'));
    expect(scratch).toHaveLength(1);
    expect(readdirSync(join(disk, 'flipbook', scratch[0] ?? '', 'uploads'))).toEqual([]);
  }, 60_000);

  it('on a directory store, the blob disk full: 507 with Retry-After and Connection: close', async () => {
    const disk = tmpfs('3m');
    const blobs = await openDirStore(join(disk, 'blobs'));
    cleanups.push(() => blobs.close());
    const api = await serve(blobs);
    fillDisk(disk);
    const answer = await slowUpload(api, bigPdf, 2 * 1024 * KiB);
    expect(answer.status, JSON.stringify(answer.body)).toBe(507);
    expect(answer.body).toEqual({ error: 'The server is out of storage space; try again later' });
    expect(answer.headers['retry-after']).toBe('30');
    expect(answer.headers.connection).toBe('close');
  }, 60_000);
});
