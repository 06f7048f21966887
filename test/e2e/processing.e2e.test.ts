// Processing, end to end: real uploads rendered by the real daemon and by separate `flipbook
// worker` processes, observed only from outside (HTTP, the `flipbook events` CLI, the blob dir).
// Every process started here is stopped in afterAll, failures included.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiFixture, startApi } from '../support/apiFixture.ts';
import {
  type Client,
  CORPUS,
  client,
  corpus,
  createFlipbook,
  expectJson,
  type Json,
  pdf,
  SMALL_PDF,
  sleep,
} from '../support/apiHelpers.ts';
import { storedKeys } from '../support/blobPlace.ts';
import { flipbook } from '../support/cli.ts';
import { tempDataDir } from '../support/databases.ts';
import { started, startWorker, stopWorkers } from '../support/workers.ts';

const TRACEMONKEY = 'vec_tracemonkey.pdf'; // 14 pages, Letter
const ENCRYPTED = 'enc_issue3371.pdf'; // needs a user password
const LONG = 'text_why3-manual.pdf'; // 184 pages, ~13 s to render on 2 cores
const SIZES = { max: 2000, mid: 1000, min: 300 } as const;
const ORDER = ['pending', 'processing', 'done'];
/** the job lease the kill test gives its workers (FLIPBOOK_LEASE_MS), instead of 60 s */
const SHORT_LEASE_MS = 5_000;
/** status polling is far above the default 120 requests a minute */
const NO_RATE_LIMIT = ['--rate-limit', '0'];

// ---- processes ------------------------------------------------------------------------------

// ---- observing ------------------------------------------------------------------------------

type Watched = { final: Json; seen: string[] };

/** Polls a version's status until it is `done` or `error`, recording each distinct status seen. */
const waitForOutcome = async (
  c: Client,
  flipbookId: string,
  versionId: string,
  timeoutMs = 60_000,
): Promise<Watched> => {
  const seen: string[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reply = await c.status(flipbookId, versionId);
    expectJson(reply, 200);
    const status = reply.body.status as string;
    if (seen.at(-1) !== status) seen.push(status);
    if (status === 'done' || status === 'error') return { final: reply.body, seen };
    if (Date.now() > deadline) {
      throw new Error(`version ${versionId} still ${status} after ${timeoutMs} ms (${seen})`);
    }
    await sleep(100);
  }
};

/** Polls until the version's status is `wanted`; fails if it gets past it. */
const waitForStatus = async (
  c: Client,
  flipbookId: string,
  versionId: string,
  wanted: string,
  timeoutMs = 30_000,
) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reply = await c.status(flipbookId, versionId);
    expectJson(reply, 200);
    if (reply.body.status === wanted) return;
    expect(ORDER.indexOf(reply.body.status), `status ${reply.body.status}`).toBeLessThan(
      ORDER.indexOf(wanted),
    );
    if (Date.now() > deadline) throw new Error(`version ${versionId} never became ${wanted}`);
    await sleep(25);
  }
};

/** Statuses must move forward only: pending → processing → done. */
const expectForwardOnly = (seen: string[]) => {
  const indexes = seen.map((s) => ORDER.indexOf(s));
  expect(indexes.every((i) => i >= 0)).toBe(true);
  expect(indexes).toEqual([...indexes].sort((a, b) => a - b));
};

type LoggedEvent = { position: number; type: string; data: Json };

const eventsOf = async (storeArgs: string[], flipbookId: string): Promise<LoggedEvent[]> => {
  const result = await flipbook(['events', flipbookId, '--json', ...storeArgs]);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as LoggedEvent[];
};

const ofVersion = (events: LoggedEvent[], versionId: string, type: string) =>
  events.filter((e) => e.type === type && e.data.versionId === versionId);

const countTypes = (events: LoggedEvent[]) => {
  const counts: Record<string, number> = {};
  for (const e of events) counts[e.type] = (counts[e.type] ?? 0) + 1;
  return counts;
};

/** The page-file route the daemon serves (src/http/files.ts). */
const pageFile = (base: string, versionId: string, position: number, file: string) =>
  `${base}/files/pages/${versionId}/${position}/${file}`;

// ---- 1-3: the daemon's own workers ----------------------------------------------------------

// On both blob stores: the embedded store's directory, and a bucket beside the postgres store.
describe.each([
  ['embedded', 'a directory'],
  ['postgres', 'a bucket'],
] as const)('processing inside the daemon (%s store, blobs in %s, --workers 2)', (kind, _blobs) => {
  let fx: ApiFixture;
  let c: Client;
  /** whether any file of the version is stored */
  const hasFiles = async (versionId: string) =>
    (await storedKeys(fx.blobPlace, `pages/${versionId}`)).length > 0;
  // set by the first test, used by the ones after it
  let flipbookId = '';
  let v1 = '';

  beforeAll(async () => {
    fx = await startApi(kind, [...NO_RATE_LIMIT, '--workers', '2']);
    c = client(fx.api, fx.key);
  });
  afterAll(async () => {
    await fx?.stop();
  });

  it('renders an upload: pending → processing → done, 14 pages, activated, one event each', async () => {
    const created = await c.create(pdf(TRACEMONKEY));
    expectJson(created, 201);
    expect(created.body.status).toBe('pending');
    flipbookId = created.body.flipbook_id;
    v1 = created.body.version_id;

    const { final, seen } = await waitForOutcome(c, flipbookId, v1);
    if (process.env.FLIPBOOK_TEST_DEBUG) console.info('statuses seen:', seen);
    expectForwardOnly(seen);
    expect(seen.at(-1)).toBe('done');
    expect(final).toMatchObject({ version_id: v1, status: 'done', pages: 14, is_active: true });

    // Progress batches (VersionPagesRendered) depend on timing; the outcome events do not.
    const events = (await eventsOf(fx.storeArgs, flipbookId)).filter(
      (e) => e.type !== 'VersionPagesRendered',
    );
    expect(countTypes(events)).toEqual({
      FlipbookCreated: 1,
      VersionUploaded: 1,
      VersionProcessingStarted: 1,
      VersionProcessed: 1,
      VersionActivated: 1,
    });
    expect(events.map((e) => e.type)).toEqual([
      'FlipbookCreated',
      'VersionUploaded',
      'VersionProcessingStarted',
      'VersionProcessed',
      'VersionActivated',
    ]);
    const [, , start, processed, activated] = events;
    expect(start?.data).toMatchObject({ versionId: v1, attempt: 1, pageCount: 14 });
    expect(processed?.data).toMatchObject({ versionId: v1, pageCount: 14, width: 612 });
    expect(processed?.data.height).toBe(792);
    expect(activated?.data).toMatchObject({ versionId: v1, previousVersionId: null });
  });

  it('GET flipbook lists the 14 pages at 612x792', async () => {
    const reply = await c.flipbook(flipbookId);
    expectJson(reply, 200);
    const pages = reply.body.pages as Json[];
    expect(pages.map((p) => p.position)).toEqual(Array.from({ length: 14 }, (_, i) => i + 1));
    for (const page of pages) expect([page.width, page.height]).toEqual([612, 792]);
    const version = (reply.body.versions as Json[]).find((v) => v.id === v1);
    expect(version).toMatchObject({ status: 'done', is_active: true, width: 612, height: 792 });
  });

  it('every img_* URL the API gives answers 200 image/jpeg', async () => {
    const pages = (await c.flipbook(flipbookId)).body.pages as Json[];
    const failures: string[] = [];
    for (const page of pages) {
      for (const size of ['img_max', 'img_mid', 'img_min']) {
        const res = await fetch(page[size]);
        await res.arrayBuffer();
        const type = res.headers.get('content-type');
        if (res.status !== 200 || type !== 'image/jpeg')
          failures.push(`${page[size]} → ${res.status} ${type}`);
      }
    }
    expect({ failed: failures.length, examples: failures.slice(0, 3) }).toEqual({
      failed: 0,
      examples: [],
    });
  });

  it('serves page files as immutable JPEGs with an ETag, 304 on revalidation, right sizes', async () => {
    for (let position = 1; position <= 14; position++) {
      for (const [size, longSide] of Object.entries(SIZES)) {
        const url = pageFile(fx.daemon.url, v1, position, `${size}.jpg`);
        const res = await fetch(url);
        const bytes = Buffer.from(await res.arrayBuffer());
        expect(res.status, url).toBe(200);
        expect(res.headers.get('content-type')).toBe('image/jpeg');
        expect(res.headers.get('cache-control')).toContain('immutable');
        const etag = res.headers.get('etag');
        expect(etag).toBeTruthy();
        const meta = await sharp(bytes).metadata();
        expect(meta.format).toBe('jpeg');
        expect(Math.max(meta.width ?? 0, meta.height ?? 0), `${url} long side`).toBe(longSide);
        // Letter is portrait: the long side is the height, and the aspect ratio is kept.
        expect(meta.height).toBe(longSide);
        expect(Math.abs((meta.width ?? 0) - (longSide * 612) / 792)).toBeLessThanOrEqual(1);

        const again = await fetch(url, { headers: { 'if-none-match': etag ?? '' } });
        expect(again.status, `revalidating ${url}`).toBe(304);
        expect((await again.arrayBuffer()).byteLength).toBe(0);
        expect(again.headers.get('etag')).toBe(etag);
      }
    }
  });

  it('serves page text and the original', async () => {
    const text = await fetch(pageFile(fx.daemon.url, v1, 1, 'text.txt'));
    expect(text.status).toBe(200);
    expect(text.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(text.headers.get('cache-control')).toContain('immutable');
    expect((await text.text()).trim().length).toBeGreaterThan(0);

    const original = await fetch(`${fx.daemon.url}/files/originals/${v1}`);
    expect(original.status).toBe(200);
    expect(original.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(await original.arrayBuffer()).equals(Buffer.from(corpus(TRACEMONKEY)))).toBe(
      true,
    );
  });

  it('processes a version with activate=false without activating it; activation and deletion then work', async () => {
    const added = await c.addVersion(flipbookId, pdf(SMALL_PDF), { activate: 'false' });
    expectJson(added, 201);
    const v2 = added.body.version_id as string;
    const { final, seen } = await waitForOutcome(c, flipbookId, v2);
    expectForwardOnly(seen);
    expect(final).toMatchObject({ status: 'done', pages: 3, is_active: false });
    // The first version stays the one shown.
    let book = await c.flipbook(flipbookId);
    expect(book.body.pages).toHaveLength(14);
    expect((await c.status(flipbookId, v1)).body.is_active).toBe(true);

    const activated = await c.activate(flipbookId, v2);
    expectJson(activated, 200);
    expect(activated.body).toEqual({ success: true, active_version_id: v2 });
    expect((await c.status(flipbookId, v2)).body.is_active).toBe(true);
    expect((await c.status(flipbookId, v1)).body.is_active).toBe(false);
    book = await c.flipbook(flipbookId);
    expect(book.body.pages).toHaveLength(3);

    const v1Files = [1, 7, 14].flatMap((p) =>
      ['max.jpg', 'mid.jpg', 'min.jpg', 'text.txt'].map((f) => pageFile(fx.daemon.url, v1, p, f)),
    );
    for (const url of v1Files) expect((await fetch(url)).status, url).toBe(200);
    expect(await hasFiles(v1)).toBe(true);

    const removed = await c.remove(flipbookId, v1);
    expectJson(removed, 200);
    expect(removed.body).toEqual({ success: true });
    for (const url of v1Files) expect((await fetch(url)).status, url).toBe(404);
    expect(await hasFiles(v1)).toBe(false);
    // The remaining version is untouched.
    expect((await fetch(pageFile(fx.daemon.url, v2, 1, 'max.jpg'))).status).toBe(200);
    expect(await hasFiles(v2)).toBe(true);
  });

  it('records a password-protected PDF as an error and goes on processing', async () => {
    const bad = await createFlipbook(c, {}, pdf(ENCRYPTED));
    const { final } = await waitForOutcome(c, bad.flipbookId, bad.versionId);
    expect(final).toMatchObject({ status: 'error', is_active: false });
    // beyond the spec: the reason, only for a failed version (docs/api.md)
    expect(final.error_reason).toBe(
      'The PDF is password-protected: it can only be opened with its password',
    );

    const events = await eventsOf(fx.storeArgs, bad.flipbookId);
    const failed = ofVersion(events, bad.versionId, 'VersionProcessingFailed');
    expect(failed).toHaveLength(1);
    expect(failed[0]?.data.reason).toMatch(/password/i);
    expect(ofVersion(events, bad.versionId, 'VersionProcessed')).toHaveLength(0);
    expect(ofVersion(events, bad.versionId, 'VersionActivated')).toHaveLength(0);

    const good = await createFlipbook(c, {}, pdf(SMALL_PDF));
    const after = await waitForOutcome(c, good.flipbookId, good.versionId);
    expect(after.final).toMatchObject({ status: 'done', pages: 3, is_active: true });
    expect(after.final).not.toHaveProperty('error_reason');
  });
  it('stops rendering a version at once when it is deleted mid-render, and keeps none of its files', async () => {
    const long = await createFlipbook(c, {}, pdf(LONG));
    await waitForStatus(c, long.flipbookId, long.versionId, 'processing');
    // poppler's command lines name the version's attempt directory
    const renderers = () =>
      readdirSync('/proc')
        .filter((pid) => /^\d+$/.test(pid))
        .filter((pid) => {
          try {
            return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(long.versionId);
          } catch {
            return false; // ended meanwhile
          }
        });
    // (up to 30 s: on a machine running other suites, page 1 alone can take a while)
    for (let i = 0; i < 300 && renderers().length === 0; i++) await sleep(100);
    expect(renderers().length, 'poppler is rendering the version').toBeGreaterThan(0);

    expectJson(await c.remove(long.flipbookId, long.versionId), 200);
    const deletedAt = Date.now();
    // The lease is renewed every 20 s: stopping within 5 s is the deletion's own notice.
    while (renderers().length > 0 && Date.now() - deletedAt < 5_000) await sleep(100);
    expect(renderers(), 'renderers left 5 s after the deletion').toEqual([]);
    await sleep(500); // the worker removes its attempt directory as it stops
    expect(await hasFiles(long.versionId)).toBe(false);

    // It stopped because it was told, not because its files vanished under it.
    const said = fx.daemon
      .logs()
      .split('\n')
      .filter((line) => line.includes(long.versionId))
      .map((line) => JSON.parse(line).msg);
    expect(said).toContain('processing stopped');
    expect(said).not.toContain('processing failed; will retry');
    expect(said).not.toContain('version failed');

    const events = await eventsOf(fx.storeArgs, long.flipbookId);
    expect(ofVersion(events, long.versionId, 'VersionDeleted')).toHaveLength(1);
    expect(ofVersion(events, long.versionId, 'VersionProcessed')).toHaveLength(0);
    expect(ofVersion(events, long.versionId, 'VersionProcessingFailed')).toHaveLength(0);

    const next = await createFlipbook(c, {}, pdf(SMALL_PDF));
    const { final } = await waitForOutcome(c, next.flipbookId, next.versionId);
    expect(final.status).toBe('done');
  });

  it('ends every damaged or password-protected corpus file in a 422 or an error with a reason, and stays up', async () => {
    const files = readdirSync(CORPUS).filter((f) => /^(bad|enc)_.*\.pdf$/.test(f));
    files.splice(files.indexOf('enc_algo4.pdf'), 1); // owner password only: it renders
    expect(files.length).toBeGreaterThanOrEqual(14);
    const outcomes = await Promise.all(
      files.map(async (file) => {
        const reply = await c.create(pdf(file), {});
        if (reply.status === 422) {
          expect(reply.body.error, file).toMatch(/PDF/);
          return `${file}: 422 ${reply.body.error}`;
        }
        expectJson(reply, 201);
        const { flipbook_id: flipbookId, version_id: versionId } = reply.body as {
          flipbook_id: string;
          version_id: string;
        };
        const { final } = await waitForOutcome(c, flipbookId, versionId);
        expect(final.status, file).toBe('error');
        const events = await eventsOf(fx.storeArgs, flipbookId);
        const [failed] = ofVersion(events, versionId, 'VersionProcessingFailed');
        const reason = String(failed?.data.reason);
        expect(final.error_reason, file).toBe(reason);
        expect(reason, file).toMatch(
          file.startsWith('enc_') ? /password-protected/ : /^The (PDF|renderer)/,
        );
        return `${file}: error ${reason}`;
      }),
    );
    if (process.env.FLIPBOOK_TEST_DEBUG) console.info(outcomes.join('\n'));

    const health = await fetch(`${fx.daemon.url}/healthz`);
    expect(health.status).toBe(200);
    const good = await createFlipbook(c, {}, pdf(SMALL_PDF));
    const after = await waitForOutcome(c, good.flipbookId, good.versionId);
    expect(after.final).toMatchObject({ status: 'done', pages: 3 });
  });
  // The limits are the render's, whichever store takes its pages: checked once, on the directory.
  if (kind === 'embedded')
    it('ends hostile uploads (a smask bomb, a slow page) within their limits and processes the next one', async () => {
      const hostile = await Promise.all(
        ['dos_bomb_giant.pdf', 'slow_issue16263.pdf'].map((f) => createFlipbook(c, {}, pdf(f))),
      );
      const started = Date.now();
      // Both lanes may be busy with the hostile files: the small one waits for the first to end.
      const small = await createFlipbook(c, {}, pdf(SMALL_PDF));
      const smallDone = await waitForOutcome(c, small.flipbookId, small.versionId, 120_000);
      expect(smallDone.final.status).toBe('done');
      const smallMs = Date.now() - started;

      const ends: string[] = [];
      for (const [i, h] of hostile.entries()) {
        const { final } = await waitForOutcome(c, h.flipbookId, h.versionId, 120_000);
        // Each finishes or fails within its limits (60 s + 5 s a page for one page, docs/processing.md).
        expect(['done', 'error'], `hostile file ${i}`).toContain(final.status);
        ends.push(String(final.status));
      }
      const hostileMs = Date.now() - started;
      expect(hostileMs).toBeLessThan(65_000 + 5_000);
      if (process.env.FLIPBOOK_TEST_DEBUG) console.info({ smallMs, hostileMs, ends });
      expect((await fetch(`${fx.daemon.url}/healthz`)).status).toBe(200);
    }, 150_000);
});

// ---- 4: several worker processes ------------------------------------------------------------

describe('two `flipbook worker` processes on one PostgreSQL database and one bucket', () => {
  let fx: ApiFixture;
  let c: Client;
  let workerArgs: string[];

  beforeAll(async () => {
    // No shared directory: the daemon and the workers meet in the database and the bucket.
    fx = await startApi('postgres', NO_RATE_LIMIT); // the fixture adds --workers 0
    expect(fx.blobKind).toBe('s3');
    c = client(fx.api, fx.key);
    workerArgs = [...fx.storeArgs, ...fx.blobArgs, '--workers', '2'];
    await Promise.all([startWorker(workerArgs), startWorker(workerArgs)]);
  });
  afterAll(async () => {
    await stopWorkers();
    await fx?.stop();
  });

  it('processes each of 6 uploads exactly once', async () => {
    const files = [
      'text_multicolumn.pdf',
      'odd_habibi-rotated.pdf',
      'odd_cardinal.pdf',
      'vec_vector.pdf',
      'img_scan-c02-22.pdf',
      'img_jpx-lichtenstein.pdf',
    ];
    const uploads = await Promise.all(files.map((f) => createFlipbook(c, {}, pdf(f))));
    // ~7 s alone; other suites render the corpus at the same time, so leave room.
    const outcomes = await Promise.all(
      uploads.map((u) => waitForOutcome(c, u.flipbookId, u.versionId, 110_000)),
    );
    for (const [i, { final }] of outcomes.entries()) {
      expect(final.status, files[i]).toBe('done');
      expect(final.is_active, files[i]).toBe(true);
    }

    for (const [i, u] of uploads.entries()) {
      const events = await eventsOf(fx.storeArgs, u.flipbookId);
      expect(ofVersion(events, u.versionId, 'VersionProcessed'), files[i]).toHaveLength(1);
      // The default 60 s lease cannot run out here, so there is no second attempt either.
      const starts = ofVersion(events, u.versionId, 'VersionProcessingStarted');
      expect(
        starts.map((e) => e.data.attempt),
        files[i],
      ).toEqual([1]);
    }

    // Each version was rendered to the end by exactly one worker process.
    const logs = started.map((w) => w.logs());
    const renderers = uploads.map((u) =>
      logs.flatMap((l, worker) =>
        l
          .split('\n')
          .filter((line) => line.includes('"version processed"') && line.includes(u.versionId))
          .map(() => worker),
      ),
    );
    for (const [i, u] of uploads.entries()) expect(renderers[i], u.versionId).toHaveLength(1);
    if (process.env.FLIPBOOK_TEST_DEBUG) console.info('rendered by worker:', renderers.flat());
  }, 120_000);
});

// ---- 5: a worker killed mid-render ----------------------------------------------------------

describe('a worker killed with SIGKILL mid-render', () => {
  let fx: ApiFixture;
  let c: Client;
  let workerArgs: string[];
  const env = { FLIPBOOK_LEASE_MS: String(SHORT_LEASE_MS) };
  let killBlobDir = '';

  beforeAll(async () => {
    const blobDir = await tempDataDir();
    fx = await startApi('postgres', [...NO_RATE_LIMIT, '--blob-dir', blobDir]);
    c = client(fx.api, fx.key);
    workerArgs = [...fx.storeArgs, '--blob-dir', blobDir, '--workers', '1'];
    killBlobDir = blobDir;
  });
  afterAll(async () => {
    await stopWorkers();
    await fx?.stop();
  });

  it('leaves the job to another worker once the lease runs out; the version is processed once', async () => {
    const first = await startWorker(workerArgs, env);
    const { flipbookId, versionId } = await createFlipbook(c, {}, pdf(LONG));
    await waitForStatus(c, flipbookId, versionId, 'processing');

    process.kill(first.pid, 'SIGKILL');
    await new Promise<void>((r) =>
      first.child.exitCode !== null || first.child.signalCode !== null
        ? r()
        : first.child.once('exit', () => r()),
    );
    expect((await c.status(flipbookId, versionId)).body.status).toBe('processing');
    const second = await startWorker(workerArgs, env);

    const { final, seen } = await waitForOutcome(c, flipbookId, versionId, 90_000);
    expectForwardOnly(seen);
    expect(final).toMatchObject({ status: 'done', pages: 184, is_active: true });

    const events = await eventsOf(fx.storeArgs, flipbookId);
    expect(ofVersion(events, versionId, 'VersionProcessed')).toHaveLength(1);
    const starts = ofVersion(events, versionId, 'VersionProcessingStarted');
    // The killed worker's attempt, then the one that finished. On a loaded machine a slow attempt
    // may lose its lease too; what must hold is one outcome, from increasing attempts.
    const attempts = starts.map((e) => e.data.attempt as number);
    expect(attempts[0]).toBe(1);
    expect(attempts.length).toBeGreaterThanOrEqual(2);
    expect(attempts).toEqual([...attempts].sort((a, b) => a - b));
    expect(new Set(starts.map((e) => e.data.pageCount))).toEqual(new Set([184]));
    expect(ofVersion(events, versionId, 'VersionProcessingFailed')).toHaveLength(0);
    expect(second.logs()).toContain(versionId);

    if (process.env.FLIPBOOK_TEST_DEBUG) {
      console.info('staging left behind:', readdirSync(join(killBlobDir, 'staging')));
    }
    const book = await c.flipbook(flipbookId);
    expect(book.body.pages).toHaveLength(184);
    for (const position of [1, 92, 184]) {
      const res = await fetch(pageFile(fx.daemon.url, versionId, position, 'max.jpg'));
      await res.arrayBuffer();
      expect(res.status).toBe(200);
    }
  }, 120_000);
});
