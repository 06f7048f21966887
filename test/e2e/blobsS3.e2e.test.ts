// The bucket blob store end to end: real daemons, real `flipbook worker` and `flipbook blobs`
// processes, real s3rver, real PostgreSQL. Daemons and workers that share only a database and a
// bucket; --blob-public-url; files going with their versions; `blobs gc` and `blobs copy`; the
// store going away and coming back; the memory a 512 MB upload costs.
// Every process and server started here is stopped in afterAll, failures included.
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm, utimes } from 'node:fs/promises';
import { type IncomingMessage, request } from 'node:http';
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { thisOwner } from '../../src/blobs/listing.ts';
import { type ApiFixture, startApi } from '../support/apiFixture.ts';
import {
  type Client,
  client,
  corpus,
  createFlipbook,
  expectError,
  expectJson,
  form,
  type Json,
  multipartEnvelope,
  pdf,
  type Reply,
  SMALL_PDF,
  send,
  waitForOutcome,
} from '../support/apiHelpers.ts';
import { type BlobPlace, s3TestClient, storedKeys, waitForFill } from '../support/blobPlace.ts';
import { type Daemon, flipbook, startDaemon } from '../support/cli.ts';
import { freshDatabase, tempDataDir } from '../support/databases.ts';
import { freshBucket, type S3Server, startS3Server } from '../support/s3Server.ts';
import { waitFor } from '../support/waitFor.ts';
import { started, startWorker, stopWorkers } from '../support/workers.ts';

const TRACEMONKEY = 'vec_tracemonkey.pdf'; // 14 pages, ~4 s to render on 2 cores
const NO_RATE_LIMIT = ['--rate-limit', '0'];
const CDN = 'http://cdn.example/x';
const MB = 1024 * 1024;

// ---- processes ------------------------------------------------------------------------------

// ---- observing ------------------------------------------------------------------------------

type Fetched = { status: number; headers: Headers; bytes: Buffer };
const get = async (url: string, init: RequestInit = {}): Promise<Fetched> => {
  const res = await fetch(url, init);
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
};

const pageUrl = (base: string, versionId: string, position: number, file: string) =>
  `${base}/files/pages/${versionId}/${position}/${file}`;

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const originalKeyOf = (bytes: Uint8Array) => {
  const sha = sha256(bytes);
  return `${sha.slice(0, 2)}/${sha}.pdf`;
};

/** Every file under a directory (relative paths): what a process kept on its own disk. */
const filesUnder = async (dir: string): Promise<string[]> =>
  (await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []))
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1));

const putObject = async (place: BlobPlace, key: string, body: Uint8Array | string) => {
  if (place.kind !== 's3') throw new Error('a bucket was expected');
  const s3 = s3TestClient(place.endpoint);
  try {
    await s3.send(
      new PutObjectCommand({ Bucket: place.bucket, Key: `${place.prefix}${key}`, Body: body }),
    );
  } finally {
    s3.destroy();
  }
};

const deleteObject = async (place: BlobPlace, key: string) => {
  if (place.kind !== 's3') throw new Error('a bucket was expected');
  const s3 = s3TestClient(place.endpoint);
  try {
    await s3.send(new DeleteObjectCommand({ Bucket: place.bucket, Key: `${place.prefix}${key}` }));
  } finally {
    s3.destroy();
  }
};

/** The file s3rver keeps an object in: its mtime is the object's LastModified. */
const s3rverFile = (server: S3Server, place: BlobPlace, key: string) => {
  if (place.kind !== 's3') throw new Error('a bucket was expected');
  return join(server.directory, place.bucket, `${place.prefix}${key}._S3rver_object`);
};

/** Everything a gc run reports, from its --json output. */
type GcReport = {
  dryRun: boolean;
  temporaries: { count: number; bytes: number };
  originals: { count: number; bytes: number };
  pageFolders: { count: number; bytes: number };
  total: { count: number; bytes: number };
};

const rssOf = async (daemon: Daemon) => {
  const text = await (await fetch(`${daemon.url}/metrics`)).text();
  const line = text.split('\n').find((l) => /^(flipbook_)?process_resident_memory_bytes /.test(l));
  if (!line) throw new Error('no process_resident_memory_bytes in /metrics');
  return Number(line.split(' ')[1]);
};

// ---- 1-4: two daemons and a worker on one database and one bucket ---------------------------

describe('two daemons and a worker sharing only a PostgreSQL database and a bucket', () => {
  let s3: S3Server;
  let fx: ApiFixture; // daemon A: takes the uploads
  let daemonB: Daemon; // daemon B: serves, its image URLs on the CDN
  let blobArgs: string[];
  let place: BlobPlace;
  let dirA = '';
  let dirB = '';
  let dirW = '';
  let a: Client;
  let b: Client;
  // set by the first test, used by the ones after it
  let flipbookId = '';
  let v1 = '';

  beforeAll(async () => {
    // The bucket on a server of our own: the gc test ages an object through s3rver's directory.
    s3 = await startS3Server();
    blobArgs = (await freshBucket(s3.endpoint)).args;
    [dirA, dirB, dirW] = await Promise.all([tempDataDir(), tempDataDir(), tempDataDir()]);
    // A takes uploads and renders nothing (the worker does: the first test checks its log).
    fx = await startApi('postgres', [
      ...blobArgs,
      ...NO_RATE_LIMIT,
      '--workers',
      '0',
      '--data-dir',
      dirA,
    ]);
    place = fx.blobPlace;
    expect(place.kind).toBe('s3');
    const shared = [...fx.storeArgs, ...blobArgs];
    [daemonB] = await Promise.all([
      startDaemon([
        ...shared,
        ...NO_RATE_LIMIT,
        '--workers',
        '0',
        '--data-dir',
        dirB,
        '--blob-public-url',
        CDN,
      ]),
      startWorker([...shared, '--data-dir', dirW, '--workers', '1']),
    ]);
    a = client(fx.api, fx.key);
    b = client(`${daemonB.url}/api/v1`, fx.key);
  });
  afterAll(async () => {
    await stopWorkers();
    await daemonB?.stop();
    await fx?.stop();
    await s3?.stop();
  });

  it('an upload to daemon A, rendered by the worker, shows on daemon B page by page while it renders', async () => {
    const created = await a.create(pdf(TRACEMONKEY));
    expectJson(created, 201);
    flipbookId = created.body.flipbook_id;
    v1 = created.body.version_id;

    // Page 1 is served by B (from the bucket) before the version is done.
    const early = await waitFor(
      'page 1 on daemon B',
      async () => {
        const res = await get(pageUrl(daemonB.url, v1, 1, 'mid.jpg'));
        return res.status === 200 ? res : undefined;
      },
      60_000,
      50,
    );
    const statusThen = (await b.status(flipbookId, v1)).body.status;
    expect(statusThen, 'page 1 was out before the version was done').toBe('processing');
    expect(early.headers.get('content-type')).toBe('image/jpeg');
    // It may yet be replaced by another attempt: revalidated, not immutable.
    expect(early.headers.get('cache-control')).toBe('public, no-cache');
    expect(early.bytes.subarray(0, 2).toString('hex')).toBe('ffd8');

    const final = await waitForOutcome(b, flipbookId, v1);
    expect(final).toMatchObject({ status: 'done', pages: 14, is_active: true });
    // The worker logs the version after marking it done: wait for the line, not the status.
    await waitFor('the worker to log the version', () =>
      started[0]?.logs().includes(v1) ? true : undefined,
    );

    // Everything is in the bucket once the largest images are filled in; nothing of it on
    // daemon B's disk, no page on A's.
    const pages = await waitForFill(place, v1, 14);
    for (let n = 1; n <= 14; n++) {
      for (const file of ['max.jpg', 'mid.jpg', 'min.jpg', 'text.txt']) {
        expect(pages).toContain(`${n}/${file}`);
      }
    }
    expect(pages).toContain('document.json');
    expect(await storedKeys(place, 'originals')).toEqual([originalKeyOf(corpus(TRACEMONKEY))]);
    expect(await storedKeys(place, 'tmp')).toEqual([]);
    expect(await filesUnder(dirB)).toEqual([]);
    expect((await filesUnder(dirA)).filter((f) => f.endsWith('.jpg'))).toEqual([]);
  }, 120_000);

  it('daemon B serves page images and the original: ETag, immutable, Range, 304, HEAD', async () => {
    const cases = [
      { url: pageUrl(daemonB.url, v1, 14, 'max.jpg'), type: 'image/jpeg', bytes: null },
      { url: pageUrl(daemonB.url, v1, 3, 'min.jpg'), type: 'image/jpeg', bytes: null },
      {
        url: `${daemonB.url}/files/originals/${v1}`,
        type: 'application/pdf',
        bytes: Buffer.from(corpus(TRACEMONKEY)),
      },
    ];
    for (const { url, type, bytes } of cases) {
      const full = await get(url);
      expect(full.status, url).toBe(200);
      expect(full.headers.get('content-type')).toBe(type);
      expect(full.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(full.headers.get('accept-ranges')).toBe('bytes');
      const etag = full.headers.get('etag') ?? '';
      expect(etag).toMatch(/^"[^"]+"$/);
      expect(Number(full.headers.get('content-length'))).toBe(full.bytes.length);
      if (bytes) expect(full.bytes.equals(bytes), 'the original, byte for byte').toBe(true);
      else expect(full.bytes.subarray(0, 2).toString('hex')).toBe('ffd8');

      const part = await get(url, { headers: { range: 'bytes=0-99' } });
      expect(part.status, `${url} ranged`).toBe(206);
      expect(part.headers.get('content-range')).toBe(`bytes 0-99/${full.bytes.length}`);
      expect(part.bytes.length).toBe(100);
      expect(part.bytes.equals(full.bytes.subarray(0, 100))).toBe(true);

      const tail = await get(url, { headers: { range: 'bytes=-10' } });
      expect(tail.status).toBe(206);
      expect(tail.bytes.equals(full.bytes.subarray(-10))).toBe(true);

      const again = await get(url, { headers: { 'if-none-match': etag } });
      expect(again.status, `${url} revalidated`).toBe(304);
      expect(again.bytes.length).toBe(0);
      expect(again.headers.get('etag')).toBe(etag);

      const head = await get(url, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('etag')).toBe(etag);
      expect(Number(head.headers.get('content-length'))).toBe(full.bytes.length);
      expect(head.bytes.length).toBe(0);

      // Daemon A answers with the same validators: the object's, not a process's.
      const fromA = await get(url.replace(daemonB.url, fx.daemon.url), { method: 'HEAD' });
      expect(fromA.headers.get('etag')).toBe(etag);
    }
    expect((await get(pageUrl(daemonB.url, v1, 15, 'max.jpg'))).status).toBe(404);
    // Ready: the bucket answers a listing (one key of the many there).
    expect((await get(`${daemonB.url}/readyz`)).status).toBe(200);
    expect((await get(`${daemonB.url}/files/originals/${randomUUID()}`)).status).toBe(404);
  });

  it('--blob-public-url: the API and the reader address page images on the CDN, by their keys in the bucket', async () => {
    const onB = await b.flipbook(flipbookId);
    expectJson(onB, 200);
    const pages = onB.body.pages as Json[];
    expect(pages).toHaveLength(14);
    const stored = new Set((await storedKeys(place, 'pages')).map((k) => `pages/${k}`));
    for (const page of pages) {
      for (const size of ['mid', 'min']) {
        const url = page[`img_${size}`] as string;
        expect(url).toBe(`${CDN}/pages/${v1}/${page.position}/${size}.jpg`);
        // The CDN would serve the bucket's object under the same key.
        expect(stored.has(url.slice(CDN.length + 1)), url).toBe(true);
      }
      // The largest from the daemon, which renders it if it is not there yet.
      expect(page.img_max).toBe(pageUrl(daemonB.url, v1, page.position as number, 'max.jpg'));
    }
    // Daemon A has no --blob-public-url: its own /files routes.
    const onA = (await a.flipbook(flipbookId)).body.pages as Json[];
    expect(onA[0].img_max).toBe(pageUrl(fx.daemon.url, v1, 1, 'max.jpg'));

    const reader = await fetch(`${daemonB.url}/f/${flipbookId}`);
    const html = await reader.text();
    expect(reader.status).toBe(200);
    const csp = reader.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("img-src 'self' http://cdn.example;");
    expect(csp).not.toContain('/x'); // an origin, not a path
    expect(html).toContain(`${CDN}/pages/${v1}/1/mid.jpg`);
    // The original stays on the daemon, which checks that downloads are allowed.
    expect(html).toContain(`href="${daemonB.url}/files/originals/${v1}"`);
    expect(html).not.toContain(`${CDN}/originals`);

    const readerA = await fetch(`${fx.daemon.url}/f/${flipbookId}`);
    await readerA.text();
    expect(readerA.headers.get('content-security-policy')).toContain("img-src 'self';");
  });

  it('`flipbook blobs gc` on the bucket: --dry-run reports and keeps; a run removes the garbage and keeps what is live or young', async () => {
    const live = {
      pages: await storedKeys(place, `pages/${v1}`),
      originals: await storedKeys(place, 'originals'),
    };
    const me = thisOwner();
    // A process of this host that has ended: its upload temporary is a leftover.
    const deadPid = spawnSync('true').pid ?? 0;
    expect(deadPid).toBeGreaterThan(0);
    const garbage = {
      folder: randomUUID(),
      deadTemp: `${me.host}.${deadPid}.${randomUUID()}.part`,
      liveTemp: `${me.host}.${process.pid}.${randomUUID()}.part`,
      youngOriginal: originalKeyOf(randomBytes(100)),
      oldOriginal: originalKeyOf(randomBytes(100)),
    };
    const bytes = { page: 1234, document: 56, deadTemp: 789, liveTemp: 10, oldOriginal: 4321 };
    await Promise.all([
      putObject(place, `pages/${garbage.folder}/1/max.jpg`, randomBytes(bytes.page)),
      putObject(place, `pages/${garbage.folder}/document.json`, 'x'.repeat(bytes.document)),
      putObject(place, `tmp/${garbage.deadTemp}`, randomBytes(bytes.deadTemp)),
      putObject(place, `tmp/${garbage.liveTemp}`, randomBytes(bytes.liveTemp)),
      putObject(place, `originals/${garbage.youngOriginal}`, '%PDF-1.4 nobody uses me'),
      putObject(place, `originals/${garbage.oldOriginal}`, randomBytes(bytes.oldOriginal)),
    ]);
    // Two hours old: past the hour an original may wait between commit and its version.
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    await utimes(
      s3rverFile(s3, place, `originals/${garbage.oldOriginal}`),
      twoHoursAgo,
      twoHoursAgo,
    );
    const everything = async () => ({
      tmp: await storedKeys(place, 'tmp'),
      originals: await storedKeys(place, 'originals'),
      pages: await storedKeys(place, 'pages'),
    });
    const planted = await everything();
    const expected = {
      temporaries: { count: 1, bytes: bytes.deadTemp },
      originals: { count: 1, bytes: bytes.oldOriginal },
      pageFolders: { count: 1, bytes: bytes.page + bytes.document },
      total: { count: 3, bytes: bytes.deadTemp + bytes.oldOriginal + bytes.page + bytes.document },
    };

    const dry = await flipbook([
      'blobs',
      'gc',
      '--dry-run',
      '--json',
      ...fx.storeArgs,
      ...blobArgs,
    ]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout) as GcReport).toEqual({ dryRun: true, ...expected });
    expect(await everything(), 'a dry run removes nothing').toEqual(planted);

    const run = await flipbook(['blobs', 'gc', '--json', ...fx.storeArgs, ...blobArgs]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout) as GcReport).toEqual({ dryRun: false, ...expected });

    const after = await everything();
    expect(after.tmp).toEqual([garbage.liveTemp]); // its owner (this test) is alive
    expect(after.originals.sort()).toEqual([...live.originals, garbage.youngOriginal].sort());
    expect(after.pages.filter((k) => k.startsWith(garbage.folder))).toEqual([]);
    expect(await storedKeys(place, `pages/${v1}`)).toEqual(live.pages);
    expect((await get(pageUrl(daemonB.url, v1, 1, 'max.jpg'))).status).toBe(200);

    // The same again, without --json: words, and nothing left to remove.
    const words = await flipbook(['blobs', 'gc', ...fx.storeArgs, ...blobArgs]);
    expect(words.code, words.stderr).toBe(0);
    expect(words.stdout).toContain('removed 0 in all, 0.0 MB');

    await deleteObject(place, `tmp/${garbage.liveTemp}`);
    await deleteObject(place, `originals/${garbage.youngOriginal}`);
  }, 90_000);

  it('deleting a version or a flipbook removes its objects, and the original once no version uses it', async () => {
    const smallKey = originalKeyOf(corpus(SMALL_PDF));
    const v2 = (await a.addVersion(flipbookId, pdf(SMALL_PDF), { activate: 'false' })).body
      .version_id as string;
    const other = await createFlipbook(a, {}, pdf(SMALL_PDF)); // the same bytes: one original
    await waitForOutcome(a, flipbookId, v2);
    await waitForOutcome(a, other.flipbookId, other.versionId);
    // (A deletion during the fill: laterRenditions.e2e.)
    expect(await waitForFill(place, v2, 3)).toContain('3/max.jpg');
    await waitForFill(place, other.versionId, 3);
    expect(await storedKeys(place, 'originals')).toContain(smallKey);

    expectJson(await b.remove(flipbookId, v2), 200); // through daemon B: one bucket for all
    expect(await storedKeys(place, `pages/${v2}`)).toEqual([]);
    expect(await storedKeys(place, 'originals'), 'still used by the other flipbook').toContain(
      smallKey,
    );
    expect((await get(pageUrl(fx.daemon.url, v2, 1, 'max.jpg'))).status).toBe(404);

    expectJson(await a.del(`/flipbooks/${other.flipbookId}`), 200);
    expect(await storedKeys(place, `pages/${other.versionId}`)).toEqual([]);
    expect(await storedKeys(place, 'originals')).not.toContain(smallKey);

    expectJson(await a.del(`/flipbooks/${flipbookId}`), 200);
    expect(await storedKeys(place, `pages/${v1}`)).toEqual([]);
    expect(await storedKeys(place, 'pages')).toEqual([]);
    expect(await storedKeys(place, 'originals')).toEqual([]);
    expect((await get(`${daemonB.url}/files/originals/${v1}`)).status).toBe(404);
  }, 120_000);
});

// ---- 5: from a directory to a bucket --------------------------------------------------------

describe('`flipbook blobs copy` from a data dir to a bucket, then serving from the bucket', () => {
  let fx: ApiFixture;
  let daemon: Daemon | null = null;

  beforeAll(async () => {
    fx = await startApi('embedded', [...NO_RATE_LIMIT, '--workers', '1']);
  });
  afterAll(async () => {
    await daemon?.stop();
    await fx?.stop();
  });

  it('copies every file; a daemon on the bucket serves the book; a second run finds it all there', async () => {
    const c = client(fx.api, fx.key);
    const { flipbookId, versionId } = await createFlipbook(c, {}, pdf(SMALL_PDF));
    expect((await waitForOutcome(c, flipbookId, versionId)).status).toBe('done');
    // A rendition processing stored (max.jpg is made on first request, and a stand-in answers
    // one still rendering after a second: under load, `before` was that stand-in).
    const before = await get(pageUrl(fx.daemon.url, versionId, 2, 'mid.jpg'));
    expect(before.status).toBe(200);
    await fx.stop();

    const dataDir = fx.storeArgs[1] ?? '';
    const bucket = await freshBucket(inject('s3Endpoint'));
    const to = [`s3://${bucket.bucket}`, '--s3-endpoint', inject('s3Endpoint'), '--s3-path-style'];
    const first = await flipbook(['blobs', 'copy', '--to', ...to, '--data-dir', dataDir, '--json']);
    expect(first.code, first.stderr).toBe(0);
    const report = JSON.parse(first.stdout) as Json;
    const target = {
      kind: 's3',
      bucket: bucket.bucket,
      prefix: '',
      endpoint: inject('s3Endpoint'),
    };
    const copied = [
      ...(await storedKeys(target as BlobPlace, 'originals')).map((k) => `originals/${k}`),
      ...(await storedKeys(target as BlobPlace, 'pages')).map((k) => `pages/${k}`),
    ];
    expect(copied).toContain(`originals/${originalKeyOf(corpus(SMALL_PDF))}`);
    expect(copied).toContain(`pages/${versionId}/3/min.jpg`);
    expect(copied).toContain(`pages/${versionId}/document.json`);
    expect(report).toMatchObject({ copied: copied.length, skipped: 0, failed: 0 });
    expect(report.bytes).toBeGreaterThan(corpus(SMALL_PDF).length);
    expect(report.to).toBe(`s3://${bucket.bucket}/`);

    daemon = await startDaemon(['--data-dir', dataDir, ...bucket.args, '--workers', '0']);
    const onBucket = client(`${daemon.url}/api/v1`, fx.key);
    const book = await onBucket.flipbook(flipbookId);
    expectJson(book, 200);
    for (const page of book.body.pages as Json[]) {
      for (const size of ['img_max', 'img_mid', 'img_min']) {
        expect((await get(page[size])).status, page[size]).toBe(200);
      }
    }
    const after = await get(pageUrl(daemon.url, versionId, 2, 'mid.jpg'));
    expect(after.bytes.equals(before.bytes)).toBe(true);
    const original = await get(`${daemon.url}/files/originals/${versionId}`);
    expect(original.status).toBe(200);
    expect(original.bytes.equals(Buffer.from(corpus(SMALL_PDF)))).toBe(true);
    const text = await get(pageUrl(daemon.url, versionId, 1, 'text.txt'));
    expect(text.status).toBe(200);
    expect(text.bytes.toString().trim().length).toBeGreaterThan(0);
    await daemon.stop();
    daemon = null;

    const again = await flipbook(['blobs', 'copy', '--to', ...to, '--data-dir', dataDir]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(
      new RegExp(`^copied 0 files \\(0\\.0 MB\\) .*; ${copied.length} were already there\\n$`),
    );
  }, 150_000);
});

// ---- 6: the store going away ----------------------------------------------------------------

describe('the bucket going away and coming back', () => {
  let s3: S3Server | null = null;
  let s3Dir = '';
  let port = 0;
  let fx: ApiFixture;
  let blobArgs: string[];
  let c: Client;
  /** stored before the outage: served after it */
  let before = { flipbookId: '', versionId: '' };

  beforeAll(async () => {
    // A directory of our own, so a restart on the same port finds the bucket and its objects.
    s3Dir = await mkdtemp(join(tmpdir(), 'flipbook-s3rver-restart-'));
    s3 = await startS3Server(0, s3Dir);
    port = s3.port;
    blobArgs = (await freshBucket(s3.endpoint)).args;
    fx = await startApi('postgres', [...blobArgs, ...NO_RATE_LIMIT]);
    c = client(fx.api, fx.key);
  });
  afterAll(async () => {
    await stopWorkers();
    await fx?.stop();
    await s3?.stop();
    await rm(s3Dir, { recursive: true, force: true });
  });

  const stopStore = async () => {
    await s3?.stop();
    s3 = null;
  };
  /** the store back on its port and directory (each test starts from a store that is up) */
  const storeUp = async () => {
    s3 ??= await startS3Server(port, s3Dir);
  };

  it('while the store is away: alive but not ready, files and uploads a JSON 503 within 40 s', async () => {
    await storeUp();
    before = await createFlipbook(c, {}, pdf(SMALL_PDF));
    await stopStore();

    expect((await fetch(`${fx.daemon.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${fx.daemon.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ error: 'The blob store is unavailable' });
    expectError(await send(`${fx.daemon.url}/files/originals/${before.versionId}`), 503);
    const metrics = await (await fetch(`${fx.daemon.url}/metrics`)).text();
    expect(metrics).toMatch(/^flipbook_blob_store_errors_total\{operation="check"\} [1-9]/m);

    const startedAt = Date.now();
    const refused = await c
      .post('/flipbooks', {
        body: form({}, pdf(SMALL_PDF, 'during-the-outage.pdf')),
        signal: AbortSignal.timeout(40_000),
      })
      .catch((error: Error) => error);
    const refusedMs = Date.now() - startedAt;
    console.info(`an upload while the store is away: answered after ${refusedMs} ms`);
    // Nothing on the refusal's path may fail unseen (removing the temporary cannot work either).
    const unhandled = fx.daemon
      .logs()
      .split('\n')
      .filter((line) => line.includes('unhandled rejection'));
    expect(unhandled).toEqual([]);
    expect(refused, 'an answer to the upload within 40 s').not.toBeInstanceOf(Error);
    expectError(refused as Reply, 503);
    expect((refused as Reply).headers.get('retry-after')).toBe('5');
    expect((await fetch(`${fx.daemon.url}/healthz`)).status).toBe(200);
    expect(fx.daemon.process.exitCode).toBeNull();
  }, 90_000);

  it('once the store is back: ready again, what was stored before is served, uploads work', async () => {
    await storeUp();
    await waitFor('the daemon ready again', async () =>
      (await fetch(`${fx.daemon.url}/readyz`)).status === 200 ? true : undefined,
    );
    const original = await get(`${fx.daemon.url}/files/originals/${before.versionId}`);
    expect(original.status).toBe(200);
    expect(original.bytes.equals(Buffer.from(corpus(SMALL_PDF)))).toBe(true);
    const after = await createFlipbook(c, {}, pdf(SMALL_PDF, 'after-the-outage.pdf'));
    expect((await c.status(after.flipbookId, after.versionId)).body.status).toBe('pending');
    // The refused upload left nothing behind.
    expect(await storedKeys(fx.blobPlace, 'tmp')).toEqual([]);
  }, 90_000);

  it('a worker whose store goes away mid-render defers the job, and finishes it once the store is back', async () => {
    await storeUp();
    const worker = await startWorker([...fx.storeArgs, ...blobArgs, '--workers', '1'], {
      FLIPBOOK_RETRY_MS: '1000',
      FLIPBOOK_STORE_RETRY_MS: '1000',
    });
    const { flipbookId, versionId } = await createFlipbook(c, {}, pdf(TRACEMONKEY));
    await waitFor('the version processing', async () =>
      (await c.status(flipbookId, versionId)).body.status === 'processing' ? true : undefined,
    );
    await stopStore();
    await waitFor(
      'the worker deferring the job',
      () =>
        worker
          .logs()
          .split('\n')
          // the bucket's failure, counted as an attempt (src/worker/deferrals.ts)
          .some(
            (l) =>
              l.includes('processing deferred: the file store failed') && l.includes(versionId),
          )
          ? true
          : undefined,
      40_000,
    );
    expect((await c.status(flipbookId, versionId)).body.status).toBe('processing');
    expect(worker.child.exitCode).toBeNull();

    await storeUp();
    const final = await waitForOutcome(c, flipbookId, versionId, 90_000);
    expect(final).toMatchObject({ status: 'done', pages: 14, is_active: true });
    const keys = await waitForFill(fx.blobPlace, versionId, 14);
    for (let n = 1; n <= 14; n++) expect(keys).toContain(`${n}/max.jpg`);
    expect((await get(pageUrl(fx.daemon.url, versionId, 14, 'max.jpg'))).status).toBe(200);
    expect(worker.logs()).not.toContain('"version failed"');
  }, 180_000);
});

// ---- 7: memory --------------------------------------------------------------------------------

/**
 * A real PDF of exactly `size` bytes, made as it is sent: one blank page, and an object nothing
 * refers to whose stream is zeros. pdfinfo reads its cross-reference table and accepts it.
 */
const paddedPdf = (size: number) => {
  const build = (padding: number) => {
    const objects = [
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>',
    ];
    let head = '%PDF-1.4\n';
    const offsets: number[] = [];
    for (const [i, body] of objects.entries()) {
      offsets.push(head.length);
      head += `${i + 1} 0 obj\n${body}\nendobj\n`;
    }
    offsets.push(head.length);
    head += `4 0 obj\n<< /Length ${padding} >>\nstream\n`;
    let tail = '\nendstream\nendobj\n';
    const xref = head.length + padding + tail.length;
    tail += `xref\n0 5\n0000000000 65535 f \n`;
    for (const offset of offsets) tail += `${String(offset).padStart(10, '0')} 00000 n \n`;
    tail += `trailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
    return { head, tail, padding };
  };
  let made = build(size);
  for (let i = 0; i < 3; i++) {
    made = build(size - made.head.length - made.tail.length);
  }
  const { head, tail, padding } = made;
  expect(head.length + padding + tail.length).toBe(size);
  return async function* () {
    yield Buffer.from(head, 'latin1');
    const zeros = Buffer.alloc(MB);
    for (let left = padding; left > 0; left -= MB) {
      yield left >= MB ? zeros : zeros.subarray(0, left);
    }
    yield Buffer.from(tail, 'latin1');
  };
};

/** POSTs a multipart upload streamed from `chunks`, with its Content-Length. */
const streamUpload = async (
  url: string,
  key: string,
  size: number,
  chunks: () => AsyncGenerator<Buffer>,
) => {
  const envelope = multipartEnvelope({}, 'big.pdf');
  const req = request(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': envelope.contentType,
      'content-length': String(envelope.head.length + size + envelope.tail.length),
    },
  });
  const answered = new Promise<IncomingMessage>((resolve, reject) => {
    req.once('response', resolve);
    req.once('error', reject);
  });
  async function* body() {
    yield Buffer.from(envelope.head);
    yield* chunks();
    yield Buffer.from(envelope.tail);
  }
  // An early answer (a refusal) cuts the body short: the answer is what the test looks at.
  const sent = pipeline(Readable.from(body()), req).catch(() => {});
  const res = await answered;
  let text = '';
  for await (const chunk of res) text += chunk;
  await sent;
  return { status: res.statusCode ?? 0, body: JSON.parse(text) as Json };
};

describe('a bucket that stops answering (frozen, not gone)', () => {
  let s3: S3Server;
  let proxy: Server;
  let frozen = false;
  const sockets = new Set<Socket>();
  const cutAll = () => {
    for (const socket of sockets) socket.destroy();
  };
  let fx: ApiFixture;

  beforeAll(async () => {
    // The daemon reaches the store through a proxy that, once frozen, accepts connections and
    // never answers (a store that hangs: SIGSTOP, a dead load balancer), instead of refusing them.
    s3 = await startS3Server();
    const target = new URL(s3.endpoint);
    proxy = createServer((client) => {
      sockets.add(client);
      client.on('close', () => sockets.delete(client));
      client.on('error', () => {});
      if (frozen) return; // held open, never answered
      const upstream = connect(Number(target.port), target.hostname);
      sockets.add(upstream);
      upstream.on('close', () => sockets.delete(upstream));
      upstream.on('error', () => client.destroy());
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const endpoint = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const { bucket } = await freshBucket(s3.endpoint);
    fx = await startApi('postgres', [
      '--blob-url',
      `s3://${bucket}`,
      '--s3-endpoint',
      endpoint,
      '--s3-path-style',
      ...NO_RATE_LIMIT,
    ]);
  });
  afterAll(async () => {
    await fx?.stop();
    cutAll();
    await new Promise((r) => proxy?.close(r));
    await s3?.stop();
  });

  it('answers a JSON 503 for files and uploads within the client timeouts, never hangs', async () => {
    const c = client(fx.api, fx.key);
    const stored = await createFlipbook(c, {}, pdf(SMALL_PDF));
    frozen = true;
    cutAll(); // the SDK's pooled connections go: every request is a new one
    const started = Date.now();
    const [original, upload] = await Promise.all([
      send(`${fx.daemon.url}/files/originals/${stored.versionId}`),
      c.create(pdf(SMALL_PDF)),
    ]);
    expectError(original, 503);
    expectError(upload, 503);
    expect(upload.headers.get('retry-after')).toBe('5');
    // an operation's retries within 8 s, a request's operations within the same 8 s
    // (docs/deploy.md, "A bucket that stalls")
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await fetch(`${fx.daemon.url}/healthz`)).status).toBe(200);
    expect(fx.daemon.logs()).toContain('the blob store failed');
    expect(fx.daemon.logs()).not.toContain('[WARN]'); // the SDK's words are in the JSON log
  }, 180_000);
});

describe('a bucket that belongs to another database', () => {
  it('is swept of nothing but temporaries, and gc says whose it is', async () => {
    const fx = await startApi('postgres', ['--workers', '1', ...NO_RATE_LIMIT]);
    try {
      const c = client(fx.api, fx.key);
      const book = await createFlipbook(c, {}, pdf(SMALL_PDF));
      await waitForOutcome(c, book.flipbookId, book.versionId);
      const pagesBefore = await waitForFill(fx.blobPlace, book.versionId, 3);
      expect(pagesBefore.length).toBeGreaterThan(0);

      // A typo in --database-url: an empty database on the production bucket.
      const other = await freshDatabase();
      for (const dry of [['--dry-run'], []]) {
        const gc = await flipbook([
          'blobs',
          'gc',
          ...dry,
          '--json',
          '--database-url',
          other,
          ...fx.blobArgs,
        ]);
        expect(gc.code, gc.stdout).toBe(1);
        expect(gc.stderr).toMatch(/belongs to another installation/);
      }
      // Unmarked (a mark removed, a store from before marks): claimed only by a database that
      // knows some of its files.
      const place = fx.blobPlace;
      if (place.kind !== 's3') throw new Error('not a bucket');
      const s3 = s3TestClient(place.endpoint);
      const mark = `${place.prefix}flipbook-store.json`;
      await s3.send(new DeleteObjectCommand({ Bucket: place.bucket, Key: mark }));
      const unmarked = await flipbook(['blobs', 'gc', '--database-url', other, ...fx.blobArgs]);
      expect(unmarked.code, unmarked.stdout).toBe(1);
      expect(unmarked.stderr).toMatch(/is unmarked and holds files this database does not know/);
      const claimed = await flipbook(['blobs', 'gc', '--dry-run', ...fx.storeArgs, ...fx.blobArgs]);
      expect(claimed.code, claimed.stderr).toBe(0);
      const ownAgain = await flipbook(['blobs', 'gc', ...fx.storeArgs, ...fx.blobArgs]);
      expect(ownAgain.code, ownAgain.stderr).toBe(0);
      // marked again, as its own (a dry run had written nothing)
      const remarked = await s3.send(new GetObjectCommand({ Bucket: place.bucket, Key: mark }));
      expect(await remarked.Body?.transformToString()).toMatch(/"installation"/);
      s3.destroy();

      const stray = await startDaemon(['--database-url', other, ...fx.blobArgs, '--workers', '0']);
      try {
        await waitFor('the start-up sweep to refuse', () =>
          stray.logs().includes('belongs to another installation') ? true : undefined,
        );
      } finally {
        await stray.stop();
      }
      expect(await storedKeys(fx.blobPlace, `pages/${book.versionId}`)).toEqual(pagesBefore);
      expect((await send(`${fx.daemon.url}/files/pages/${book.versionId}/1/mid.jpg`)).status).toBe(
        200,
      );
      // its own database still sweeps it
      const own = await flipbook(['blobs', 'gc', '--json', ...fx.storeArgs, ...fx.blobArgs]);
      expect(own.code, own.stderr).toBe(0);
      expect(JSON.parse(own.stdout).pageFolders.count).toBe(0);
    } finally {
      await fx.stop();
    }
  }, 180_000);
});

describe('a bucket that cannot be used is said at start', () => {
  it('serve and worker wait for it a line a try (--wait-at-start), blobs gc tries once; each exits 1 naming the bucket and why, with no stack; nothing starts', async () => {
    const database = await freshDatabase();
    const endpoint = inject('s3Endpoint');
    const at = new URL(endpoint).host;
    const missing = `no-such-bucket-${randomBytes(4).toString('hex')}`;
    const flags = ['--blob-url', `s3://${missing}`, '--s3-endpoint', endpoint, '--s3-path-style'];
    const unavailable = `the bucket s3://${missing}/ at ${at} is unavailable: the bucket does not exist (NoSuchBucket)`;
    for (const command of [
      ['serve', '--port', '0', '--database-url', database, '--wait-at-start', '2', ...flags],
      ['worker', '--database-url', database, '--wait-at-start', '2', ...flags],
    ]) {
      const run = await flipbook(command);
      expect(run.code, `${command[0]}: ${run.stdout}${run.stderr}`).toBe(1);
      expect(run.stderr).toMatch(
        new RegExp(`^flipbook: ${escapeRegExp(unavailable)} \\(\\d+ tries in \\d+ s\\)\n$`),
      );
      const waiting = logLines(run.stdout).filter((line) => line.waitingFor);
      expect(waiting[0]?.msg).toMatch(
        new RegExp(
          `^waiting for the bucket s3://${missing}/ at ${escapeRegExp(at)}: the bucket does not exist \\(NoSuchBucket\\) \\(try 1, \\d s left\\)$`,
        ),
      );
      expect(run.stdout).not.toContain('ready');
    }
    const gc = await flipbook(['blobs', 'gc', '--database-url', database, ...flags]);
    expect(gc.code, gc.stderr).toBe(1);
    expect(gc.stderr).toBe(`flipbook: ${unavailable}\n`);
    // and a store that does not answer at all
    const closed = await startS3Server();
    await closed.stop();
    const run = await flipbook([
      'worker',
      '--database-url',
      database,
      '--wait-at-start',
      '0',
      '--blob-url',
      's3://anything',
      '--s3-endpoint',
      closed.endpoint,
      '--s3-path-style',
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `flipbook: the bucket s3://anything/ at ${new URL(closed.endpoint).host} is unavailable: the connection was refused (nothing listens on that port)\n`,
    );
  }, 120_000);
});

describe('a database not there at start', () => {
  it('serve and worker wait for a name that does not resolve a line a try, then exit 1 saying so, with no stack', async () => {
    for (const command of ['serve', 'worker']) {
      const run = await flipbook([
        command,
        ...(command === 'serve' ? ['--port', '0'] : []),
        '--database-url',
        'postgres://flipbook:secret@nonexistent.invalid/flipbook',
        '--wait-at-start',
        '2',
      ]);
      expect(run.code, `${command}: ${run.stdout}${run.stderr}`).toBe(1);
      expect(run.stderr).toMatch(
        /^flipbook: the database at nonexistent\.invalid:5432 is unavailable: the name does not resolve \(\d+ tries in \d+ s\)\n$/,
      );
      const waiting = logLines(run.stdout).filter((line) => line.waitingFor);
      expect(waiting.length).toBeGreaterThanOrEqual(2);
      expect(waiting[0]?.msg).toMatch(
        /^waiting for the database at nonexistent\.invalid:5432: the name does not resolve \(try 1, \d s left\)$/,
      );
      expect(run.stdout + run.stderr).not.toContain('secret');
    }
  }, 60_000);
});

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const logLines = (stdout: string) =>
  stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg?: string; waitingFor?: string });

describe('memory: a 512 MB upload into the bucket', () => {
  let fx: ApiFixture;

  beforeAll(async () => {
    // A fresh bucket on the run's s3rver. What is measured is memory, not the bucket's bounds:
    // s3rver runs in the suite's own process and, starved of CPU by the other files, can take
    // longer than the default 8 s to take a part (the run then answered 503 three times).
    fx = await startApi('postgres', [...NO_RATE_LIMIT, '--s3-timeout', '30']);
    expect(fx.blobKind).toBe('s3');
  });
  afterAll(async () => {
    await fx?.stop();
  });

  /** Runs `work` while sampling the daemon's RSS every 100 ms; the highest seen. */
  const peakRss = async <T>(work: () => Promise<T>) => {
    let peak = await rssOf(fx.daemon);
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, await rssOf(fx.daemon));
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const startedAt = Date.now();
    try {
      const result = await work();
      return { result, ms: Date.now() - startedAt, peak };
    } finally {
      sampling = false;
      await sampler;
      peak = Math.max(peak, await rssOf(fx.daemon));
    }
  };
  /**
   * A streamed upload; a 503 (the bucket, starved of CPU by the suite's other files, answered a
   * part after the SDK's 10 s request timeout: "try again later") is tried again, as a client
   * would: what this suite measures is the memory an upload costs, not s3rver's speed.
   */
  const upload = async (size: number) => {
    for (let attempt = 1; ; attempt++) {
      const answer = await streamUpload(`${fx.api}/flipbooks`, fx.key, size, paddedPdf(size));
      if (answer.status !== 503 || attempt === 3) return answer;
    }
  };

  it("a 512 MB upload keeps the daemon's resident memory growth under 64 MB", async () => {
    const c = client(fx.api, fx.key);
    // The upload path's modules loaded by a small upload; then a 32 MB one (multipart, spooled,
    // committed) grows the heap and the allocator's arenas to what any large upload needs once,
    // whatever its size: the growth that matters is the one that scales with the upload.
    await createFlipbook(c, {}, pdf(SMALL_PDF));
    const cold = await rssOf(fx.daemon);
    const warmUp = await peakRss(() => upload(32 * 1000 * 1000));
    expect(warmUp.result.status, JSON.stringify(warmUp.result.body)).toBe(201);
    const warm = await rssOf(fx.daemon);

    const size = 512 * 1000 * 1000; // 512 MB, under the 512 MiB limit
    const big = await peakRss(() => upload(size));
    expect(big.result.status, JSON.stringify(big.result.body)).toBe(201);
    const versionId = big.result.body.version_id as string;
    const head = await get(`${fx.daemon.url}/files/originals/${versionId}`, { method: 'HEAD' });
    expect(Number(head.headers.get('content-length'))).toBe(size);

    const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;
    console.info(
      [
        `daemon RSS after a small upload: ${mb(cold)}`,
        `32 MB upload: ${warmUp.ms} ms, peak ${mb(warmUp.peak)} (+${mb(warmUp.peak - cold)}), then ${mb(warm)}`,
        `512 MB upload: ${big.ms} ms, peak ${mb(big.peak)} (+${mb(big.peak - warm)} over the warm daemon, +${mb(big.peak - cold)} over the cold one)`,
      ].join('\n'),
    );
    expect((big.peak - warm) / MB).toBeLessThan(64);
    // From cold, the heap's and arenas' one-time growth is in it too (~80 MB measured, ~70 MB on
    // the directory store): far from the half gigabyte a buffered upload would cost.
    expect((big.peak - cold) / MB).toBeLessThan(128);

    // 512 MB less in the bucket for the rest of the run.
    for (const reply of [warmUp.result, big.result]) {
      expectJson(await c.del(`/flipbooks/${reply.body.flipbook_id}`), 200);
    }
    expect(await storedKeys(fx.blobPlace, 'originals')).toHaveLength(1);
  }, 400_000); // up to three tries of a 512 MB upload on a busy machine
});
