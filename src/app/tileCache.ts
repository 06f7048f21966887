// The deep-zoom tiles' budget (`serve --tile-cache-size`): the tiles kept in the blob store are
// counted in the `tile_cache` table (src/state/tileCache.ts) and, when their sum is over the
// budget, the least recently used are removed, by whichever daemon gets there first.
//
// Kept off a reader's path: a tile stored or read is only noted in memory; the notes go to the
// database together, one statement every FLUSH_MS (a hot tile costs one row update per flush, not
// one per read). Eviction runs in the background, at most BATCH tiles a pass, a pass every
// PASS_MS, sooner while it is still over. A failed write or pass is logged and tried again later,
// never a reader's error: the worst it does is let the cache run over its budget for a while.

import type { BlobStore, PageFile } from '../blobs/blobStore.ts';
import type { Db } from '../readTables/readTable.ts';
import {
  dropOrphanTiles,
  type EvictedTile,
  recordTileUses,
  restoreEvictions,
  type TileUse,
  takeEvictions,
} from '../state/tileCache.ts';

/**
 * 2 GiB: the deepest level of about four 100-page books (a 16,000 px page is ~150 tiles of
 * ~150 KB; readers zoom into a few pages, not all). A fixed size rather than a share of free
 * space: a bucket has no free space to measure, and a budget that moves with the disk would
 * evict more when uploads fill it, as it should, but unpredictably.
 */
export const DEFAULT_TILE_CACHE_BYTES = 2 * 1024 ** 3;
const FLUSH_MS = 5_000;
const PASS_MS = 30_000;
/** Tiles removed a pass at most (each a removal in the blob store). */
const BATCH = 200;
/** Removals at once in a pass. */
const REMOVING_AT_ONCE = 8;
/** Notes held before a flush is due anyway (memory bound under a flood). */
const MAX_NOTES = 10_000;

export type TileCache = {
  /** a tile was stored or read (its size in bytes); returns at once, never throws */
  used: (versionId: string, position: number, tile: PageFile, bytes: number) => void;
  /** writes the notes held (tests, and the last thing before the store closes) */
  flush: () => Promise<void>;
  /** one eviction pass: the tiles removed */
  evict: () => Promise<{ tiles: number; bytes: number }>;
  start: () => void;
  stop: () => Promise<void>;
};

export type TileCacheOptions = {
  budgetBytes: number;
  log: { warn: (fields: object, message: string) => void };
  passMs?: number;
  flushMs?: number;
  batch?: number;
};

export const tileCache = (
  deps: { db: Db; blobs: BlobStore },
  options: TileCacheOptions,
): TileCache => {
  const { db, blobs } = deps;
  const batch = options.batch ?? BATCH;
  const notes = new Map<string, TileUse & { at: number }>();
  let flushing: Promise<void> = Promise.resolve();
  let flushTimer: NodeJS.Timeout | null = null;
  let passTimer: NodeJS.Timeout | null = null;
  let passing: Promise<unknown> = Promise.resolve();
  let stopped = true;

  const flush = () => {
    if (flushTimer) clearTimeout(flushTimer);
    flushTimer = null;
    const taken = [...notes.values()];
    notes.clear();
    const now = performance.now();
    flushing = flushing.then(() =>
      recordTileUses(
        db,
        taken.map(({ at, ...use }) => ({ ...use, agoMs: now - at })),
      ).catch((error: unknown) =>
        options.log.warn({ err: error, tiles: taken.length }, 'could not record tiles kept'),
      ),
    );
    return flushing;
  };

  const removeAll = async (rows: EvictedTile[]) => {
    const failed: EvictedTile[] = [];
    let next = 0;
    const lane = async () => {
      for (let row = rows[next++]; row; row = rows[next++]) {
        const done = await blobs
          .removePageFile(row.version_id, row.position, row.tile as PageFile)
          .then(() => true)
          .catch(() => false);
        if (!done) failed.push(row);
      }
    };
    await Promise.all(Array.from({ length: REMOVING_AT_ONCE }, lane));
    return failed;
  };

  const evict = async () => {
    await flush();
    await dropOrphanTiles(db);
    const rows = await takeEvictions(db, options.budgetBytes, batch);
    const failed = await removeAll(rows);
    if (failed.length > 0) {
      await restoreEvictions(db, failed);
      options.log.warn(
        { tiles: failed.length },
        'could not remove tiles over the cache budget: trying again later',
      );
    }
    const removed = rows.filter((r) => !failed.includes(r));
    return { tiles: removed.length, bytes: removed.reduce((sum, r) => sum + Number(r.bytes), 0) };
  };

  const schedule = (ms: number) => {
    if (stopped) return;
    passTimer = setTimeout(() => {
      passTimer = null;
      const pass = evict().then(
        // A full batch: there may be more over the budget, so the next pass comes soon.
        (removed) => schedule(removed.tiles >= batch ? 1_000 : (options.passMs ?? PASS_MS)),
        (error: unknown) => {
          options.log.warn({ err: error }, 'tile cache eviction failed: trying again later');
          schedule(options.passMs ?? PASS_MS);
        },
      );
      passing = pass;
    }, ms);
    passTimer.unref();
  };

  return {
    used: (versionId, position, tile, bytes) => {
      const key = `${versionId}/${position}/${tile}`;
      notes.set(key, { versionId, position, tile, bytes, agoMs: 0, at: performance.now() });
      if (notes.size >= MAX_NOTES) void flush();
      else if (!flushTimer) {
        flushTimer = setTimeout(() => void flush(), options.flushMs ?? FLUSH_MS);
        flushTimer.unref();
      }
    },
    flush,
    evict,
    start: () => {
      if (!stopped) return;
      stopped = false;
      schedule(options.passMs ?? PASS_MS);
    },
    stop: async () => {
      stopped = true;
      if (passTimer) clearTimeout(passTimer);
      passTimer = null;
      await passing.catch(() => {});
      await flush();
    },
  };
};
