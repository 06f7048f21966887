// Processing when the file store fails under it: real PostgreSQL, real poppler, the workers'
// own loop (startWorkers), a bucket behind the fault-injecting proxy. A render the store cuts
// short resumes where it stopped (its stored pages are not rendered or stored again) and counts
// as a store attempt; a store that stays away fails the version in words after STORE_ATTEMPTS
// (src/worker/deferrals.ts). Before: a deferred render started again from page 1 and was not
// counted, so a version waited for a store that never came back, and a flaky store re-rendered
// (and re-stored) every page of every attempt.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { systemClock } from '../../src/app/clock.ts';
import { createWorkspace } from '../../src/app/workspaces.ts';
import type { BlobStore } from '../../src/blobs/blobStore.ts';
import { bucketLimits } from '../../src/blobs/bucketLimits.ts';
import { openS3Store } from '../../src/blobs/openBlobStore.ts';
import { logger } from '../../src/log.ts';
import type { Store } from '../../src/store/store.ts';
import { STORE_ATTEMPTS } from '../../src/worker/deferrals.ts';
import { renderOptionsFor } from '../../src/worker/renderSettings.ts';
import { startWorkers } from '../../src/worker/workerPool.ts';
import { type FaultyProxy, startFaultyProxy } from '../support/faultyProxy.ts';
import { createInStore } from '../support/inStore.ts';
import { TEST_METADATA } from '../support/metadata.ts';
import { pdfBytes, stream, text } from '../support/pdfWriter.ts';
import { freshBucket, S3_ENV } from '../support/s3Server.ts';
import { openTestStore } from '../support/stores.ts';
import { waitFor } from '../support/waitFor.ts';

Object.assign(process.env, S3_ENV);

const PAGES = 24;

/** A text PDF of `pages` pages: quick to render, each page its own. */
const textPdf = (pages: number) => {
  const objects = new Map<number, string>();
  const kids = Array.from({ length: pages }, (_, i) => `${10 + 2 * i} 0 R`).join(' ');
  objects.set(1, '<< /Type /Catalog /Pages 2 0 R >>');
  objects.set(2, `<< /Type /Pages /Kids [${kids}] /Count ${pages} /MediaBox [0 0 612 792] >>`);
  objects.set(3, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  for (let i = 0; i < pages; i++) {
    objects.set(
      10 + 2 * i,
      `<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 3 0 R >> >> /Contents ${11 + 2 * i} 0 R >>`,
    );
    objects.set(11 + 2 * i, stream(text(72, 700, `Page ${i + 1} of the catalogue`, 24)));
  }
  return pdfBytes({ objects, root: 1 });
};

let store: Store;
let blobs: BlobStore;
let proxy: FaultyProxy;
let workspaceId: string;
let scratchDir: string;
/** the same bucket with the default bounds (8 s an operation, retries within it) */
let patient: BlobStore;

beforeAll(async () => {
  proxy = await startFaultyProxy(inject('s3Endpoint'));
  const { bucket } = await freshBucket(inject('s3Endpoint'));
  scratchDir = await mkdtemp(join(tmpdir(), 'flipbook-deferral-'));
  const on = { url: `s3://${bucket}`, endpoint: proxy.endpoint, pathStyle: true, scratchDir };
  // Quick failures: a budget of 0.4 s per operation, 1 s of silence.
  blobs = await openS3Store({ ...on, limits: { ...bucketLimits(1), budgetMs: 400 } });
  patient = await openS3Store(on);
  store = await openTestStore('postgres');
  workspaceId = (
    await createWorkspace(store, { name: 'acme', plan: 'team' }, TEST_METADATA, new Date())
  ).id;
});
afterAll(async () => {
  proxy?.set({ kind: 'pass' });
  await blobs?.close();
  await patient?.close();
  await store?.close();
  await proxy?.close();
  await rm(scratchDir, { recursive: true, force: true });
});

/** A flipbook whose version's original is stored: its job waits in the queue. */
const uploaded = async (bytes: Buffer) => {
  const incoming = await blobs.temporary();
  await pipeline(Readable.from([bytes]), incoming.stream);
  const sha256 = (await import('node:crypto')).createHash('sha256').update(bytes).digest('hex');
  await blobs.commitOriginal(incoming.ref, sha256);
  await blobs.discard(incoming.ref);
  return createInStore(store, {
    workspaceId,
    title: 'Catalogue',
    slug: `catalogue-${randomUUID().slice(0, 8)}`,
    file: {
      name: 'catalogue.pdf',
      type: 'pdf',
      mimeType: 'application/pdf',
      size: bytes.length,
      checksum: sha256,
    },
  });
};

const versionRow = async (versionId: string) =>
  (
    await store.db.query<{ status: string; error: string | null; page_count: number | null }>(
      'SELECT status, error, page_count FROM versions WHERE version_id = $1',
      [versionId],
    )
  ).rows[0];

const jobRow = async (versionId: string) =>
  (
    await store.db.query<{ attempts: number; store_failures: number }>(
      'SELECT attempts, store_failures FROM jobs WHERE version_id = $1',
      [versionId],
    )
  ).rows[0];

const workers = (storeRetryMs: number, on: BlobStore = blobs) =>
  startWorkers(
    { store, blobs: on, log: logger, render: renderOptionsFor(2), clock: systemClock },
    { lanes: 1, leaseMs: 30_000, pollMs: 50, retryMs: 60_000, storeRetryMs },
  );

describe('a render the file store cuts short', () => {
  it('resumes where it stopped: no page stored before the failure stored again; the failure counts', async () => {
    const book = await uploaded(textPdf(PAGES));
    // Pages from the 13th on cannot be stored: the first attempt stores what it can, then stops.
    const late = new RegExp(`/pages/${book.versionId}/(1[3-9]|2\\d)/`);
    proxy.reset();
    proxy.set({
      kind: 'fail',
      percent: 100,
      only: (method, path) => method === 'PUT' && late.test(path),
    });
    // The default budget (8 s): with the 0.4 s one, a PUT the store completed but answered late
    // on a loaded machine counted as failed, and its page was stored again (the full run did).
    const pool = workers(1500, patient);
    try {
      await waitFor('the first attempt to be put off', async () =>
        (await jobRow(book.versionId))?.store_failures === 1 ? true : undefined,
      );
      proxy.set({ kind: 'pass' });
      await waitFor('the version to be done', async () =>
        (await versionRow(book.versionId))?.status === 'done' ? true : undefined,
      );
    } finally {
      await pool.stop();
    }
    const stored = proxy.stored();
    const midOf = (position: number) => `pages/${book.versionId}/${position}/mid.jpg`;
    const counts = Array.from(
      { length: PAGES },
      (_, i) => [...stored].find(([key]) => key.endsWith(midOf(i + 1)))?.[1] ?? 0,
    );
    // The pages stored before the failure are stored once: the second attempt resumed after
    // them. A later page may be stored twice: its PUT, still being retried within its budget
    // when the attempt was put off, can land after the store came back.
    expect(counts.slice(0, 12), JSON.stringify(counts)).toEqual(
      Array.from({ length: 12 }, () => 1),
    );
    expect(
      counts.every((count) => count >= 1),
      JSON.stringify(counts),
    ).toBe(true);
    expect((await versionRow(book.versionId))?.page_count).toBe(PAGES);
    // every page served from the store
    for (let position = 1; position <= PAGES; position++) {
      expect(await blobs.openPageFile(book.versionId, position, 'mid.jpg')).not.toBeNull();
    }
  }, 60_000);

  it('processes a version while 30 % of requests answer 500, each page stored once', async () => {
    const book = await uploaded(textPdf(PAGES));
    proxy.reset();
    proxy.set({ kind: 'fail', percent: 30, seed: 11 });
    const pool = workers(200, patient);
    try {
      await waitFor('the version to be done', async () =>
        (await versionRow(book.versionId))?.status === 'done' ? true : undefined,
      );
    } finally {
      await pool.stop();
      proxy.set({ kind: 'pass' });
    }
    const stored = proxy.stored();
    const mids = [...stored].filter(
      ([key]) => key.includes(`pages/${book.versionId}/`) && key.endsWith('/mid.jpg'),
    );
    expect(mids.length).toBe(PAGES);
    expect(mids.every(([, count]) => count === 1)).toBe(true);
    expect(proxy.counts().failed).toBeGreaterThan(10);
    // retried within the budget: no attempt was even put off
    expect(
      (await store.db.query('SELECT 1 FROM jobs WHERE version_id = $1', [book.versionId])).rowCount,
    ).toBe(0);
  }, 60_000);

  it(`fails the version in words after ${STORE_ATTEMPTS} attempts the store failed`, async () => {
    const book = await uploaded(textPdf(2));
    proxy.set({ kind: 'fail', percent: 100 });
    const pool = workers(10); // 10 ms doubling: the ten attempts within seconds
    try {
      await waitFor(
        'the version to fail',
        async () => ((await versionRow(book.versionId))?.status === 'error' ? true : undefined),
        30_000,
      );
    } finally {
      await pool.stop();
      proxy.set({ kind: 'pass' });
    }
    expect((await versionRow(book.versionId))?.error).toMatch(
      new RegExp(
        `^The file store was unavailable for ${STORE_ATTEMPTS} attempts over \\d+ minutes?`,
      ),
    );
  }, 60_000);
});
