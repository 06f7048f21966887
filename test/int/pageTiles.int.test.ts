// Deep-zoom tiles in process (src/app/pageTiles.ts, src/app/tileCache.ts) on a real PostgreSQL, a
// real blob directory and real poppler: a page too small for the deepest level (poppler writes no
// JPEG above 65,535 dpi) offers the levels it can have and gets them; a request is answered
// within a second of its arrival (a pdftoppm that takes 3 s: the page's best image stands in, the
// render goes on for the next request), its lookups included: on a bucket that stops answering
// too (behind test/support/faultyProxy.ts; before: 8.3–8.6 s, the kept tile's lookup waiting out
// the bucket's bound); the cache keeps the kept tiles within its budget, least recently
// used out first, one eviction at a time across two daemons' connections; a deletion takes the
// rows with it. The largest rendition of a slow page answers within a second too.
import { createHash, randomUUID } from 'node:crypto';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runFlipbookCommand } from '../../src/app/commands.ts';
import { demandRendition } from '../../src/app/laterRenditions.ts';
import { ANSWER_MS, pageTile, type TileAnswer, TilesBusy } from '../../src/app/pageTiles.ts';
import { type TileCache, tileCache } from '../../src/app/tileCache.ts';
import { removeVersionFiles } from '../../src/app/versionFiles.ts';
import type { BlobStore, PageFile } from '../../src/blobs/blobStore.ts';
import { openDirStore, openS3Store } from '../../src/blobs/openBlobStore.ts';
import { NotFound } from '../../src/domain/errors.ts';
import { tileLevels } from '../../src/domain/page/tiles.ts';
import type { ProcessLimits } from '../../src/pdf/poppler.ts';
import { DEFAULT_RENDER_OPTIONS } from '../../src/pdf/renderPdf.ts';
import { RenderSlots } from '../../src/pdf/renderSlots.ts';
import { tileCacheSize } from '../../src/state/tileCache.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { freshDatabase } from '../support/databases.ts';
import { startFaultyProxy } from '../support/faultyProxy.ts';
import { createInStore } from '../support/inStore.ts';
import { TEST_METADATA } from '../support/metadata.ts';
import { pdfBytes, stream } from '../support/pdfWriter.ts';
import { freshBucket, S3_ENV } from '../support/s3Server.ts';

Object.assign(process.env, S3_ENV);

/** Page sizes in points: an ordinary page, a 10 pt square (no 16,000 px level), a 3 pt one (none). */
const PAGES: [number, number][] = [
  [200, 300],
  [10, 10],
  [3, 3],
];

const tinyBook = () => {
  const objects = new Map<number, string>([
    [1, '<< /Type /Catalog /Pages 2 0 R >>'],
    [
      2,
      `<< /Type /Pages /Kids [${PAGES.map((_, i) => `${10 + i * 2} 0 R`).join(' ')}] /Count ${PAGES.length} >>`,
    ],
  ]);
  PAGES.forEach(([w, h], i) => {
    objects.set(
      10 + i * 2,
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${w} ${h}] /Contents ${11 + i * 2} 0 R >>`,
    );
    objects.set(11 + i * 2, stream(`1 0 0 rg 1 1 ${w / 2} ${h / 2} re f 0 0 1 rg 0 0 1 1 re f`));
  });
  return pdfBytes({ objects, root: 1 });
};

const log = { warn: () => {} };
const made: string[] = [];

/** A folder of tools: the real ones, pdftoppm taking `delay` seconds first. */
const slowTools = async (delay: number) => {
  const dir = await mkdtemp(join(tmpdir(), 'flipbook-slow-tools-'));
  made.push(dir);
  for (const tool of ['pdfinfo', 'pdftotext', 'pdftocairo', 'qpdf']) {
    await writeFile(join(dir, tool), `#!/bin/sh\nexec /usr/bin/${tool} "$@"\n`);
    await chmod(join(dir, tool), 0o755);
  }
  await writeFile(
    join(dir, 'pdftoppm'),
    `#!/bin/sh\nsleep ${delay}\nexec /usr/bin/pdftoppm "$@"\n`,
  );
  await chmod(join(dir, 'pdftoppm'), 0o755);
  return dir;
};

const timed = async <T>(work: Promise<T>) => {
  const started = performance.now();
  const value = await work;
  return { value, ms: performance.now() - started };
};

/** What the answer was; a kept tile (opened for sending) is closed. */
const kindOf = async (answer: TileAnswer) => {
  if (answer.kind === 'kept') await answer.blob.close();
  return answer.kind;
};

/**
 * Asks until the tile is kept (each answer within the bound), or fails after `deadlineMs`. A 503
 * (TilesBusy: the page not looked up in time, on a machine loaded by the suite) is asked again,
 * as a client does.
 */
const untilKept = async (ask: () => Promise<TileAnswer>, deadlineMs = 30_000) => {
  const end = performance.now() + deadlineMs;
  const seen: (TileAnswer['kind'] | 'busy')[] = [];
  for (;;) {
    const { value, ms } = await timed(
      ask().catch((error: unknown) => {
        if (error instanceof TilesBusy) return null;
        throw error;
      }),
    );
    expect(ms).toBeLessThan(ANSWER_MS + 500);
    seen.push(value ? await kindOf(value) : 'busy');
    if (value?.kind === 'kept') return seen;
    if (performance.now() > end) throw new Error(`never kept: ${seen.join(', ')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe('deep-zoom tiles', () => {
  let databaseUrl: string;
  let store: Store;
  let blobs: BlobStore;
  let blobDir: string;
  let checksum: string;
  let cache: TileCache;
  const slots = new RenderSlots({ capacity: 2 });
  const deps = (limits: ProcessLimits = DEFAULT_RENDER_OPTIONS.limits) => ({
    db: store.db,
    blobs,
    limits,
    slots,
    cache,
  });

  /** A finished version of the tiny book; `images`: the page images processing would have made. */
  const finishedVersion = async (images: PageFile[] = ['mid.jpg'], on: BlobStore = blobs) => {
    const { flipbookId, versionId } = await createInStore(store, {
      workspaceId: randomUUID(),
      title: 'Tiny pages',
      slug: `tiny-${randomUUID().slice(0, 8)}`,
      file: { name: 't.pdf', type: 'pdf', mimeType: 'application/pdf', size: 1, checksum },
    });
    await runFlipbookCommand(
      store,
      flipbookId,
      {
        type: 'CompleteProcessing',
        data: {
          versionId,
          width: PAGES[0]?.[0] ?? 0,
          height: PAGES[0]?.[1] ?? 0,
          pages: PAGES.map(([width, height], i) => ({
            pageId: randomUUID(),
            position: i + 1,
            width,
            height,
          })),
          now: new Date(),
        },
      },
      TEST_METADATA,
    );
    for (let position = 1; position <= PAGES.length; position++) {
      for (const image of images) {
        const side = image === 'max.jpg' ? 2000 : image === 'mid.jpg' ? 1000 : 300;
        const jpeg = await sharp({
          create: { width: side, height: side, channels: 3, background: '#888' },
        })
          .jpeg()
          .toBuffer();
        await on.writePageFile(versionId, position, image, jpeg);
      }
    }
    return { flipbookId, versionId };
  };

  /** Stores the tiny book as an uploaded original: its checksum. */
  const keepOriginal = async (on: BlobStore) => {
    const bytes = tinyBook();
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const incoming = await on.temporary();
    await pipeline(Readable.from([bytes]), incoming.stream);
    await on.commitOriginal(incoming.ref, sha256);
    await on.discard(incoming.ref);
    return sha256;
  };

  beforeAll(async () => {
    databaseUrl = await freshDatabase();
    store = await openStore({ databaseUrl });
    blobDir = await mkdtemp(join(tmpdir(), 'flipbook-tiles-'));
    blobs = await openDirStore(blobDir);
    checksum = await keepOriginal(blobs);
    cache = tileCache({ db: store.db, blobs }, { budgetBytes: 1024 ** 3, log });
  });
  afterAll(async () => {
    await cache?.stop();
    await store?.close();
    await blobs?.close();
    await rm(blobDir, { recursive: true, force: true });
    for (const dir of made) await rm(dir, { recursive: true, force: true });
  });

  it('offers a tiny page the levels poppler can render, and renders them (never a 503 forever)', async () => {
    expect(PAGES.map(([w, h]) => tileLevels(w, h))).toEqual([3, 2, 0]);
    // the probe's bound: 16,000 px is above 65,535 dpi under 17.6 pt
    expect([tileLevels(17, 17), tileLevels(18, 18), tileLevels(19, 19)]).toEqual([2, 2, 3]);
    const { versionId } = await finishedVersion();
    // The 10 pt page: its deepest tile (8,000 px, 57,600 dpi) is made and kept...
    const seen = await untilKept(() =>
      pageTile(deps(), versionId, 2, { level: 2, column: 7, row: 7 }),
    );
    expect(seen.at(-1)).toBe('kept');
    const tile = await blobs.openPageFile(versionId, 2, 'tile-2-7-7.jpg');
    expect(tile?.size).toBeGreaterThan(100);
    await tile?.close();
    // ...16,000 px is a level it does not have (before: a 503 Busy to every ask, for ever), and
    // the 3 pt page has none.
    await expect(pageTile(deps(), versionId, 2, { level: 3, column: 0, row: 0 })).rejects.toThrow(
      NotFound,
    );
    await expect(pageTile(deps(), versionId, 3, { level: 1, column: 0, row: 0 })).rejects.toThrow(
      NotFound,
    );
  });

  it('answers within a second with the best image there while a slow render goes on, 503 only with none', async () => {
    const slow = { ...DEFAULT_RENDER_OPTIONS.limits, toolDir: await slowTools(3) };
    const { versionId } = await finishedVersion(['mid.jpg', 'min.jpg']);
    const first = await timed(pageTile(deps(slow), versionId, 1, { level: 1, column: 1, row: 2 }));
    expect(first.value).toEqual({ kind: 'standIn', file: 'mid.jpg' });
    expect(first.ms).toBeLessThan(ANSWER_MS + 300);
    expect(first.ms).toBeGreaterThanOrEqual(ANSWER_MS - 50); // it did wait for the tile first
    // A request that arrived 700 ms ago (its lookups, a loaded machine) waits only what is left
    // of its second (before: 0.8 s whatever had gone before).
    const arrived = performance.now() - 700;
    const late = await timed(
      pageTile(deps(slow), versionId, 1, { level: 1, column: 0, row: 2 }, arrived + ANSWER_MS),
    );
    expect(late.value).toEqual({ kind: 'standIn', file: 'mid.jpg' });
    expect(late.ms).toBeLessThan(300 + 200);
    // The render went on: a later ask finds the tile.
    await untilKept(() => pageTile(deps(slow), versionId, 1, { level: 1, column: 1, row: 2 }));
    // A page with no image at all (removed by hand) and a slow tile: a 503, in a second.
    const bare = await finishedVersion([]);
    const refused = await timed(
      pageTile(deps(slow), bare.versionId, 1, { level: 1, column: 0, row: 0 }).catch((e) => e),
    );
    expect(refused.value).toBeInstanceOf(TilesBusy);
    expect(refused.ms).toBeLessThan(ANSWER_MS + 300);
  });

  it('answers within a second on a bucket that stops answering: the page image known, else a 503 to ask again', async () => {
    const proxy = await startFaultyProxy(inject('s3Endpoint'));
    const { bucket } = await freshBucket(inject('s3Endpoint'));
    const scratchDir = await mkdtemp(join(tmpdir(), 'flipbook-tiles-s3-'));
    made.push(scratchDir);
    // the default bounds: an operation gives up after 8 s
    const bucketStore = await openS3Store({
      url: `s3://${bucket}`,
      endpoint: proxy.endpoint,
      pathStyle: true,
      scratchDir,
    });
    try {
      await keepOriginal(bucketStore);
      const { versionId } = await finishedVersion(['mid.jpg', 'min.jpg'], bucketStore);
      const slow = { ...DEFAULT_RENDER_OPTIONS.limits, toolDir: await slowTools(3) };
      const on = { ...deps(slow), blobs: bucketStore };
      // Page 1 asked for once while the bucket answers: its image is known from then on.
      const first = await pageTile(on, versionId, 1, { level: 1, column: 1, row: 2 });
      expect(first).toEqual({ kind: 'standIn', file: 'mid.jpg' });
      proxy.set({ kind: 'freeze' });
      const known = await timed(pageTile(on, versionId, 1, { level: 1, column: 0, row: 0 }));
      expect(known.value).toEqual({ kind: 'standIn', file: 'mid.jpg' });
      expect(known.ms).toBeLessThan(1_500);
      // Page 2, never asked for: a 503 to ask again, as soon.
      const unknown = await timed(
        pageTile(on, versionId, 2, { level: 1, column: 0, row: 0 }).catch((e: unknown) => e),
      );
      expect(unknown.value).toBeInstanceOf(TilesBusy);
      expect((unknown.value as TilesBusy).headers['Retry-After']).toBe('2');
      expect(unknown.ms).toBeLessThan(1_500);
      // The bucket back: the page's image again, and the tile made once its render is done.
      proxy.set({ kind: 'pass' });
      const back = await timed(pageTile(on, versionId, 2, { level: 1, column: 0, row: 0 }));
      expect(back.value).toEqual({ kind: 'standIn', file: 'mid.jpg' });
      expect(back.ms).toBeLessThan(1_500);
    } finally {
      proxy.set({ kind: 'pass' });
      await bucketStore.close();
      await proxy.close();
    }
  }, 60_000);

  it('answers a request for the largest image of a slow page within a second; the render goes on', async () => {
    const slow = { ...DEFAULT_RENDER_OPTIONS.limits, toolDir: await slowTools(3) };
    const { versionId } = await finishedVersion(['mid.jpg', 'min.jpg']);
    const later = {
      db: store.db,
      blobs,
      render: { ...DEFAULT_RENDER_OPTIONS, limits: slow, slots },
    };
    const first = await timed(demandRendition(later, versionId, 1, 'max'));
    expect(first.value).toBe('later');
    expect(first.ms).toBeLessThan(1_500);
    const end = performance.now() + 30_000;
    const stored = async () => {
      const file = await blobs.openPageFile(versionId, 1, 'max.jpg');
      await file?.close();
      return file !== null;
    };
    while (!(await stored())) {
      if (performance.now() > end) throw new Error('max.jpg never stored');
      await new Promise((r) => setTimeout(r, 100));
    }
    // the real one, for the next request (which finds the file before asking for a render)
    const max = await blobs.readPageFile(versionId, 1, 'max.jpg');
    expect(max).not.toBeNull();
  });

  it('keeps the tiles within the budget, least recently used out first, once across two daemons', async () => {
    const { versionId } = await finishedVersion();
    const names = ['tile-1-0-0.jpg', 'tile-1-1-0.jpg', 'tile-1-0-1.jpg', 'tile-1-1-1.jpg'];
    for (const name of names) {
      const [level, column, row] = name.slice(5, -4).split('-').map(Number);
      await untilKept(() => pageTile(deps(), versionId, 1, { level, column, row } as never));
    }
    await cache.flush();
    const keptFiles = async () => {
      const there: string[] = [];
      for (const name of names) {
        const file = await blobs.openPageFile(versionId, 1, name as PageFile);
        if (file) there.push(name);
        await file?.close();
      }
      return there;
    };
    expect(await keptFiles()).toEqual(names);
    const sizes = await store.db.query<{ tile: string; bytes: string }>(
      'SELECT tile, bytes::text FROM tile_cache WHERE version_id = $1',
      [versionId],
    );
    const bytesOf = new Map(sizes.rows.map((r) => [r.tile, Number(r.bytes)]));
    expect([...bytesOf.keys()].sort()).toEqual([...names].sort());
    // Read again, the first two are the most recent: the other two are the least recently used.
    await new Promise((r) => setTimeout(r, 20));
    for (const name of names.slice(0, 2)) {
      const [level, column, row] = name.slice(5, -4).split('-').map(Number);
      expect(
        await kindOf(await pageTile(deps(), versionId, 1, { level, column, row } as never)),
      ).toBe('kept');
    }
    // A budget with room for two, on two daemons' own connections evicting at the same moment.
    await cache.flush();
    await store.db.query('DELETE FROM tile_cache WHERE version_id <> $1', [versionId]);
    const budget = (bytesOf.get(names[0] ?? '') ?? 0) + (bytesOf.get(names[1] ?? '') ?? 0);
    const other = await openStore({ databaseUrl });
    try {
      const caches = [store, other].map((s) =>
        tileCache({ db: s.db, blobs }, { budgetBytes: budget, log }),
      );
      const removed = await Promise.all(caches.map((c) => c.evict()));
      // one evicted the two; the other, under the lock or after, nothing more
      expect(removed.map((r) => r.tiles).sort()).toEqual([0, 2]);
      expect(await keptFiles()).toEqual(names.slice(0, 2));
      expect((await tileCacheSize(store.db)).bytes).toBeLessThanOrEqual(budget);
      const rows = await store.db.query<{ tile: string }>(
        'SELECT tile FROM tile_cache WHERE version_id = $1 ORDER BY tile',
        [versionId],
      );
      expect(rows.rows.map((r) => r.tile)).toEqual(names.slice(0, 2).sort());
      // Asked again, an evicted tile is made again (and counted again).
      await untilKept(() => pageTile(deps(), versionId, 1, { level: 1, column: 0, row: 1 }));
    } finally {
      await other.close();
    }
  });

  it('takes a deleted version’s tiles out of the count', async () => {
    const { versionId } = await finishedVersion();
    await untilKept(() => pageTile(deps(), versionId, 1, { level: 1, column: 0, row: 0 }));
    await cache.flush();
    const count = async () =>
      Number(
        (
          await store.db.query<{ n: string }>(
            'SELECT count(*)::text AS n FROM tile_cache WHERE version_id = $1',
            [versionId],
          )
        ).rows[0]?.n,
      );
    expect(await count()).toBe(1);
    await removeVersionFiles(store, blobs, versionId, { checksum, pdf_checksum: checksum }, false);
    expect(await count()).toBe(0);
    expect(await blobs.openPageFile(versionId, 1, 'tile-1-0-0.jpg')).toBeNull();
  });
});
