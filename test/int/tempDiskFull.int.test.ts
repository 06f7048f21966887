// A full temporary disk is the machine's failure, never the document's. TMPDIR points at a tiny
// tmpfs for this file's process (the poppler wrappers, which capture each tool's output in a file
// there, and the scratch files of tiles and later renditions are made in it), which the tests
// fill and free; the store, the blob directory and the PDFs are elsewhere. Before the fix a valid
// PDF met with a full TMPDIR was refused at upload (422 "the PDF has no pages": pdfinfo exited 0
// and its wrapper could not keep what it printed), failed for good in processing, and tiles
// answered `503 Busy` forever; nothing was logged.

import { execFileSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiDeps } from '../../src/app/apiDeps.ts';
import { issueApiKey } from '../../src/app/apiKeys.ts';
import type { Caller } from '../../src/app/caller.ts';
import type { Clock } from '../../src/app/clock.ts';
import { flipbookEvents } from '../../src/app/eventLog.ts';
import { keyUsageRecorder } from '../../src/app/keyUsage.ts';
import { demandRendition } from '../../src/app/laterRenditions.ts';
import { pageTile, type TileDeps } from '../../src/app/pageTiles.ts';
import type { ReceivedUpload } from '../../src/app/received.ts';
import { type TileCache, tileCache } from '../../src/app/tileCache.ts';
import { createFlipbook } from '../../src/app/uploads.ts';
import { urlsFor } from '../../src/app/urls.ts';
import type { BlobStore } from '../../src/blobs/blobStore.ts';
import { openDirStore } from '../../src/blobs/openBlobStore.ts';
import { MachineFailure } from '../../src/domain/errors.ts';
import { mountApi } from '../../src/http/api.ts';
import { createHttpServer } from '../../src/http/server.ts';
import type { Logger } from '../../src/log.ts';
import { inspectPdf } from '../../src/pdf/inspectPdf.ts';
import { DEFAULT_LIMITS, limitedDir, runPoppler, wrapperDirs } from '../../src/pdf/poppler.ts';
import { DEFAULT_RENDER_OPTIONS, type RenderOptions } from '../../src/pdf/renderPdf.ts';
import { versionStatusById } from '../../src/readTables/versions.ts';
import type { Store } from '../../src/store/store.ts';
import { startWorkers } from '../../src/worker/workerPool.ts';
import { corpus } from '../support/corpus.ts';
import { fillDisk } from '../support/fullDisk.ts';
import { workspaceInStore } from '../support/inStore.ts';
import { TEST_METADATA } from '../support/metadata.ts';
import { openTestStore } from '../support/stores.ts';
import { waitFor } from '../support/waitFor.ts';

const PDF = 'vec_tracemonkey.pdf'; // 14 Letter pages
const clock: Clock = { now: () => new Date() };
const FULL = /^The server's temporary disk is full; try again later$/;

type LogLine = { msg: string; [field: string]: unknown };
const lines: LogLine[] = [];
const log: Logger = pino(
  { level: 'info' },
  { write: (line: string) => lines.push(JSON.parse(line)) },
);

let mountPoint = '';
let mounted = false;
let blobDir = '';
let store: Store;
let blobs: BlobStore;
let deps: ApiDeps;
let cache: TileCache;
/** What a tile request needs: the render's limits and slots, a cache with room to spare. */
const tiles = (): TileDeps => ({
  db: store.db,
  blobs,
  limits: render.limits,
  slots: render.slots,
  cache,
});
const tmpBefore = process.env.TMPDIR;
/** Small renditions: what is measured is the outcome, not the render. */
const render: RenderOptions = {
  ...DEFAULT_RENDER_OPTIONS,
  sizes: { max: 600, mid: 300, min: 100 },
  renditions: ['max', 'mid', 'min'],
};

/** Writes until the disk refuses a byte more. */
const fill = () => fillDisk(mountPoint);
const free = () => rmSync(join(mountPoint, 'filler'), { force: true });
/** Makes empty files until the disk has no inode left (its blocks are free). */
const fillInodes = () => {
  const dir = join(mountPoint, 'inodes');
  mkdirSync(dir);
  for (let i = 0; ; i++) {
    try {
      writeFileSync(join(dir, String(i)), '');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOSPC') return;
      throw error;
    }
  }
};
const freeInodes = () => rmSync(join(mountPoint, 'inodes'), { recursive: true, force: true });

const caller = async (): Promise<Caller> => {
  const made = await workspaceInStore(store);
  return {
    workspaceId: made.id,
    plan: 'team',
    metadata: { actor: { type: 'api_key', id: randomUUID(), name: 'ci' }, request_id: 'req' },
  };
};

/** An upload as the HTTP side hands it over: in the blob store's temporary, hashed. */
const received = async (): Promise<ReceivedUpload> => {
  const bytes = await readFile(corpus(PDF));
  const incoming = await blobs.temporary();
  await pipeline(Readable.from([bytes]), incoming.stream);
  return {
    fields: {},
    file: {
      ref: incoming.ref,
      path: incoming.path,
      name: PDF,
      mimeType: 'application/pdf',
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    },
  };
};

beforeAll(async () => {
  mountPoint = mkdtempSync(join(tmpdir(), 'flipbook-tmpdisk-'));
  execFileSync('mount', [
    '-t',
    'tmpfs',
    '-o',
    'size=2m,nr_inodes=128,mode=0700',
    'tmpfs',
    mountPoint,
  ]);
  mounted = true;
  blobDir = mkdtempSync(join(tmpdir(), 'flipbook-tmpdisk-blobs-'));
  [store, blobs] = await Promise.all([openTestStore('postgres'), openDirStore(blobDir)]);
  deps = { store, blobs, clock, urls: urlsFor(() => 'https://books.example') };
  cache = tileCache({ db: store.db, blobs }, { budgetBytes: 1024 ** 3, log: { warn: () => {} } });
  // From here on, everything this process makes in TMPDIR is made on the small disk.
  process.env.TMPDIR = mountPoint;
});

afterAll(async () => {
  if (tmpBefore === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = tmpBefore;
  await cache?.stop();
  await store?.close();
  await blobs?.close();
  if (mounted) execFileSync('umount', ['--lazy', mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
  rmSync(blobDir, { recursive: true, force: true });
});

/** The failure a call ends with, or null when it succeeds. */
const failureOf = (work: Promise<unknown>) =>
  work.then(
    () => null,
    (error: unknown) => error,
  );

/** A machine failure as a request hears it, and as the log tells it. */
const expectFullDisk = (error: unknown, tool: string) => {
  expect(error, String(error)).toBeInstanceOf(MachineFailure);
  const failure = error as MachineFailure;
  expect(failure.status).toBe(503);
  expect(Number(failure.headers['Retry-After'])).toBeGreaterThan(0);
  expect(failure.message).toMatch(FULL);
  expect(failure.detail).toContain(`${tool} could not keep its output: no space left`);
  expect(failure.directory).toBe(mountPoint);
};

describe('a full TMPDIR (a 2 MB tmpfs of 128 inodes, filled)', () => {
  it('pdfinfo at upload: a machine failure (503 with Retry-After), not an unreadable PDF, and readable once there is room', async () => {
    free();
    expect(await inspectPdf(corpus(PDF))).toEqual({ kind: 'readable', pages: 14 });
    // The wrappers this process runs the tools through were made on the small disk.
    expect(wrapperDirs.length).toBeGreaterThan(0);
    for (const dir of wrapperDirs) expect(dir.startsWith(`${mountPoint}/`)).toBe(true);
    fill();
    const inspected = await failureOf(inspectPdf(corpus(PDF)));
    expectFullDisk(inspected, 'pdfinfo');
    free();
    expect(await inspectPdf(corpus(PDF))).toEqual({ kind: 'readable', pages: 14 });
  });

  it('a tool asked its version on a full disk (node-poppler, before its first run) still answers', async () => {
    free();
    // Limits of their own: a new wrapper folder and a node-poppler that has not asked yet.
    const limits = { ...DEFAULT_LIMITS, toolDir: '/usr/bin' };
    await limitedDir(limits);
    fill();
    const run = runPoppler(
      limits,
      { tool: 'pdfinfo', file: corpus(PDF), options: {} },
      { signal: AbortSignal.timeout(15_000), maxBytes: 1024 * 1024 },
    );
    expectFullDisk(await failureOf(run), 'pdfinfo');
    free();
  });

  it('a disk too full to make the wrappers on is a machine failure too', async () => {
    fill();
    const limits = { ...DEFAULT_LIMITS, memoryMb: DEFAULT_LIMITS.memoryMb + 1 };
    const run = runPoppler(
      limits,
      { tool: 'pdfinfo', file: corpus(PDF), options: {} },
      { signal: AbortSignal.timeout(15_000), maxBytes: 1024 * 1024 },
    );
    const error = await failureOf(run);
    expect(error, String(error)).toBeInstanceOf(MachineFailure);
    expect((error as MachineFailure).message).toMatch(FULL);
    expect((error as MachineFailure).directory).toBe(mountPoint);
    free();
  });

  it('the upload over HTTP: 503 with Retry-After and the cause logged, never 422; 201 once there is room', async () => {
    free();
    const me = await caller();
    const { key } = await issueApiKey(
      store,
      { workspace: { id: me.workspaceId } },
      TEST_METADATA,
      new Date(),
    );
    const keyUsage = keyUsageRecorder(store.db, { intervalMs: 60_000, onError: () => {}, clock });
    const server = createHttpServer(log, (routes) =>
      mountApi(routes, { ...deps, log, keyUsage, clock, webhookAllowPrivate: false }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/flipbooks`;
    const upload = async () => {
      const body = new FormData();
      body.append(
        'file',
        new Blob([await readFile(corpus(PDF))], { type: 'application/pdf' }),
        PDF,
      );
      const response = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body,
      });
      return { response, body: (await response.json()) as { error?: string } };
    };
    try {
      fill();
      const logged = lines.length;
      const refused = await upload();
      expect(refused.response.status, JSON.stringify(refused.body)).toBe(503);
      expect(Number(refused.response.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(refused.body.error).toMatch(FULL);
      const said = lines.slice(logged).filter((l) => l.level === 50);
      expect(said).toHaveLength(1);
      expect(said[0]).toMatchObject({ directory: mountPoint });
      expect(String(said[0]?.cause)).toContain('pdfinfo could not keep its output: no space left');
      free();
      const accepted = await upload();
      expect(accepted.response.status, JSON.stringify(accepted.body)).toBe(201);
    } finally {
      free();
      await keyUsage.settle();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('processing: a render that meets the full disk is deferred, not failed, and ends done once there is room', async () => {
    free();
    const made = await createFlipbook(deps, await caller(), await received());
    fill();
    const workers = startWorkers(
      { store, blobs, log, render, clock },
      { lanes: 1, leaseMs: 20_000, pollMs: 100, retryMs: 1000, storeRetryMs: 1000 },
    );
    try {
      const deferred = await waitFor('the render to meet the full disk', async () => {
        const line = lines.find(
          (l) => l.msg === 'processing deferred: storage failed' && l.versionId === made.version_id,
        );
        if (line) return line;
        // Before the fix the version failed for good: said at once, not after the timeout.
        if ((await versionStatusById(store.db, made.version_id)) === 'error') return 'error';
      });
      expect(deferred).not.toBe('error');
      expect(String((deferred as LogLine).reason)).toContain(
        `no space left in TMPDIR (${mountPoint})`,
      );
      expect(await versionStatusById(store.db, made.version_id)).not.toBe('error');
      free();
      const status = await waitFor('the version to end', async () => {
        const now = await versionStatusById(store.db, made.version_id);
        return now === 'done' || now === 'error' ? now : undefined;
      });
      expect(status).toBe('done');
      const types = (await flipbookEvents(store, made.flipbook_id)).map((e) => e.type);
      expect(types).not.toContain('VersionProcessingFailed');
      expect(types.filter((t) => t === 'VersionProcessed')).toHaveLength(1);
    } finally {
      free();
      await workers.stop();
    }

    // Tiles and later renditions of that version, with the disk full again: the machine's
    // failure (a 503 with Retry-After that the log explains), not a silent "Busy".
    fill();
    try {
      // A tile that cannot be made now is no wait for the reader: the page's best image stands
      // in (src/app/pageTiles.ts), and the tile is made once there is room.
      expect(await pageTile(tiles(), made.version_id, 1, { level: 1, column: 0, row: 0 })).toEqual({
        kind: 'standIn',
        file: 'max.jpg',
      });
      const rendition = await failureOf(
        demandRendition({ db: store.db, blobs, render }, made.version_id, 2, 'max'),
      );
      expectFullDisk(rendition, 'pdftoppm');
    } finally {
      free();
    }

    // No inode left (the blocks free): no scratch folder can be made, for a tool's output, a
    // tile, or a later rendition's pages.
    fillInodes();
    try {
      expectFullDisk(await failureOf(inspectPdf(corpus(PDF))), 'pdfinfo');
      expect(await pageTile(tiles(), made.version_id, 1, { level: 1, column: 0, row: 0 })).toEqual({
        kind: 'standIn',
        file: 'max.jpg',
      });
      const rendition = await failureOf(
        demandRendition({ db: store.db, blobs, render }, made.version_id, 2, 'max'),
      );
      expect(rendition, String(rendition)).toBeInstanceOf(MachineFailure);
      expect((rendition as MachineFailure).message).toMatch(FULL);
    } finally {
      freeInodes();
    }
    // A deadline no load reaches: past the default second, a stand-in answers (seen in a loaded run).
    const tile = await pageTile(
      tiles(),
      made.version_id,
      1,
      { level: 1, column: 0, row: 0 },
      performance.now() + 60_000,
    );
    expect(tile).toMatchObject({ kind: 'made', kept: true }); // made (sent as made) and kept
    const again = await pageTile(tiles(), made.version_id, 1, { level: 1, column: 0, row: 0 });
    expect(again.kind).toBe('kept');
    if (again.kind === 'kept') await again.blob.close();
    expect(await demandRendition({ db: store.db, blobs, render }, made.version_id, 2, 'max')).toBe(
      'stored',
    );
  });
});
