// Processing across processes: separate `flipbook worker` processes beside a daemon that renders
// nothing itself, observed only from outside (HTTP, the `flipbook events` CLI, the blobs, the
// workers' logs and their poppler processes): each upload rendered exactly once by two workers on
// one PostgreSQL database and one bucket, a deletion telling the worker that renders the version
// to stop, and a worker killed with SIGKILL mid-render. What a processing lane renders and how its
// outcomes are answered is test/spec/processing.spec.test.ts's, in process.
// Every process started here is stopped in afterAll, failures included.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiFixture, startApi } from '../support/apiFixture.ts';
import {
  type Client,
  client,
  createFlipbook,
  expectJson,
  type Json,
  pdf,
  SMALL_PDF,
} from '../support/apiHelpers.ts';
import { storedKeys } from '../support/blobPlace.ts';
import { flipbook } from '../support/cli.ts';
import { tempDataDir } from '../support/databases.ts';
import {
  expectForwardOnly,
  ofVersion,
  waitForStatus,
  watchOutcome,
} from '../support/versionWatch.ts';
import { waitFor } from '../support/waitFor.ts';
import { started, startWorker, stopWorkers } from '../support/workers.ts';

const LONG = 'text_why3-manual.pdf'; // 184 pages, ~13 s to render on 2 cores
/** Killed while processing, then rendered whole by the next worker: 42 pages are enough. */
const KILLED = 'img_GS9_Color_Management.pdf';
const KILLED_PAGES = 42;
/**
 * The job lease the kill test gives its workers (FLIPBOOK_LEASE_MS), ten times the default: the
 * next worker on this host must take the job up at once, not when the lease runs out.
 */
const LONG_LEASE_MS = 600_000;
/** status polling is far above the default 120 requests a minute */
const NO_RATE_LIMIT = ['--rate-limit', '0'];

type LoggedEvent = { position: number; type: string; data: Json };

const eventsOf = async (storeArgs: string[], flipbookId: string): Promise<LoggedEvent[]> => {
  const result = await flipbook(['events', flipbookId, '--json', ...storeArgs]);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as LoggedEvent[];
};

/** The page-file route the daemon serves (src/http/files.ts). */
const pageFile = (base: string, versionId: string, position: number, file: string) =>
  `${base}/files/pages/${versionId}/${position}/${file}`;

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
      uploads.map((u) => watchOutcome(c, u.flipbookId, u.versionId, 110_000)),
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

  it('stops rendering a version at once when it is deleted mid-render, and keeps none of its files', async () => {
    /** whether any file of the version is stored */
    const hasFiles = async (versionId: string) =>
      (await storedKeys(fx.blobPlace, `pages/${versionId}`)).length > 0;
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
    await waitFor(
      'poppler rendering the version',
      () => renderers().length > 0 || undefined,
      30_000,
      100,
    );

    expectJson(await c.remove(long.flipbookId, long.versionId), 200);
    const deletedAt = Date.now();
    // The lease is renewed every 20 s: stopping within 5 s is the deletion's own notice.
    while (renderers().length > 0 && Date.now() - deletedAt < 5_000) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(renderers(), 'renderers left 5 s after the deletion').toEqual([]);
    // the worker removes its attempt directory as it stops
    await waitFor(
      'no file of the version',
      async () => !(await hasFiles(long.versionId)) || undefined,
      5_000,
    );

    // It stopped because it was told, not because its files vanished under it (the worker says
    // so once it has stopped: its line may still be on its way).
    const saidOf = () =>
      started
        .flatMap((w) => w.logs().split('\n'))
        .filter((line) => line.includes(long.versionId))
        .map((line) => JSON.parse(line).msg as string);
    const endings = ['processing stopped', 'processing failed; will retry', 'version failed'];
    const said = await waitFor('the worker to say why it stopped', () => {
      const lines = saidOf();
      return lines.some((msg) => endings.includes(msg)) ? lines : undefined;
    });
    expect(said).toContain('processing stopped');
    expect(said).not.toContain('processing failed; will retry');
    expect(said).not.toContain('version failed');

    const events = await eventsOf(fx.storeArgs, long.flipbookId);
    expect(ofVersion(events, long.versionId, 'VersionDeleted')).toHaveLength(1);
    expect(ofVersion(events, long.versionId, 'VersionProcessed')).toHaveLength(0);
    expect(ofVersion(events, long.versionId, 'VersionProcessingFailed')).toHaveLength(0);

    const next = await createFlipbook(c, {}, pdf(SMALL_PDF));
    const { final } = await watchOutcome(c, next.flipbookId, next.versionId);
    expect(final.status).toBe('done');
  });
});

describe('a worker killed with SIGKILL mid-render', () => {
  let fx: ApiFixture;
  let c: Client;
  let workerArgs: string[];
  const env = { FLIPBOOK_LEASE_MS: String(LONG_LEASE_MS) };
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

  it('leaves the job to the next worker on this host at once, its lease unexpired; the version is processed once', async () => {
    const first = await startWorker(workerArgs, env);
    const { flipbookId, versionId } = await createFlipbook(c, {}, pdf(KILLED));
    await waitForStatus(c, flipbookId, versionId, 'processing');

    process.kill(first.pid, 'SIGKILL');
    await new Promise<void>((r) =>
      first.child.exitCode !== null || first.child.signalCode !== null
        ? r()
        : first.child.once('exit', () => r()),
    );
    expect((await c.status(flipbookId, versionId)).body.status).toBe('processing');
    const second = await startWorker(workerArgs, env);

    const { final, seen } = await watchOutcome(c, flipbookId, versionId, 90_000);
    expectForwardOnly(seen);
    expect(final).toMatchObject({ status: 'done', pages: KILLED_PAGES, is_active: true });

    const events = await eventsOf(fx.storeArgs, flipbookId);
    expect(ofVersion(events, versionId, 'VersionProcessed')).toHaveLength(1);
    const starts = ofVersion(events, versionId, 'VersionProcessingStarted');
    // The killed worker's attempt, then the one that finished: handed back, not waited out.
    expect(starts.map((e) => e.data.attempt)).toEqual([1, 2]);
    expect(second.logs()).toContain('handed back the leases of processes gone');
    expect(new Set(starts.map((e) => e.data.pageCount))).toEqual(new Set([KILLED_PAGES]));
    expect(ofVersion(events, versionId, 'VersionProcessingFailed')).toHaveLength(0);
    expect(second.logs()).toContain(versionId);

    if (process.env.FLIPBOOK_TEST_DEBUG) {
      console.info('staging left behind:', readdirSync(join(killBlobDir, 'staging')));
    }
    const book = await c.flipbook(flipbookId);
    expect(book.body.pages).toHaveLength(KILLED_PAGES);
    for (const position of [1, 21, KILLED_PAGES]) {
      const res = await fetch(pageFile(fx.daemon.url, versionId, position, 'max.jpg'));
      await res.arrayBuffer();
      expect(res.status).toBe(200);
    }
  }, 120_000);
});
