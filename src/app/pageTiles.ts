// Deep zoom: a page's tiles, rendered from the original the first time a reader zooms in past
// what its largest image (max.jpg, 2000 px on the long side) shows sharply, and kept beside the
// page's images. Level z renders the page 2000 × 2^z px on its long side (4,000 to 16,000), cut
// into tiles of TILE px; a page has the levels poppler can render (src/domain/page/tiles.ts), and
// the reader asks only for the tiles it shows.
//
// A tile is never worth an upload's time, nor a reader's wait:
// - renders take the process's render slots at the 'tile' priority, below every upload's pages
//   (src/pdf/renderSlots.ts), and give their slot back when processing wants it; at most half the
//   slots at once; and the tool runs reniced (+10), so even a worker in another process on the
//   machine, and the daemon's own requests, come first;
// - a request is answered within ANSWER_MS of its arrival, whatever it meets: its lookups (the
//   page's size, whether the tile is kept, which image of the page is there) and its wait for
//   the render share that one deadline (before: a fixed 0.8 s wait after lookups that a frozen
//   bucket held for 8 s, and a loaded machine for seconds). While the tile is not there in time
//   it is answered with the best image of the page already there (a redirect to it, which the
//   reader has: it shows that image under the tiles), while the render goes on for the next
//   request. A 503 only when the page has no image, or when the store did not say in time;
// - at most MAX_QUEUED renders wait or run: beyond that, or for a tile that failed lately,
//   nothing is queued, and the answer is that image at the same deadline (the reader asks
//   again, a few times, further apart each time: src/reader/client/upgrade.ts).
// Kept tiles count against the cache budget (./tileCache.ts), which evicts the least used.
// One file (over 300 lines): a tile's lookup, render and deadline are one request's answer.

import type { BlobStore, PageFile } from '../blobs/blobStore.ts';
import { outsideRequestBudget } from '../blobs/boundedSend.ts';
import type { OpenedBlob } from '../blobs/objectStore.ts';
import { AppError, NotFound } from '../domain/errors.ts';
import { TILE, tileGrid, tileLevels } from '../domain/page/tiles.ts';
import { renderTile } from '../pdf/pageTile.ts';
import type { ProcessLimits } from '../pdf/poppler.ts';
import type { JobSlots, RenderSlots } from '../pdf/renderSlots.ts';
import { tileSource } from '../queries/files.ts';
import type { Db } from '../readTables/readTable.ts';
import { knownStandIn, type StandIn, standInOf } from './pageStandIns.ts';
import type { TileCache } from './tileCache.ts';

const QUALITY = 82;
/**
 * A tile request is answered within this of its arrival: its tile if it is kept or made by
 * then, else the page's image (or a 503). The lookups are inside it, the answer's own sending
 * after it.
 */
export const ANSWER_MS = 1000;
/** Renders waiting for a slot or running, per process. */
const MAX_QUEUED = 32;
/** A render that has not started by then is dropped: its reader has long had an answer. */
const QUEUE_MS = 60_000;
/** Tools run this much below the daemon (nice), in every process that renders tiles. */
const NICE = 10;
/** A tile that failed is not tried again for this long (each try can hold a slot 20 s). */
const FAILED_FOR_MS = 10 * 60_000;
const MAX_FAILED = 10_000;
export type TileDeps = {
  db: Db;
  blobs: BlobStore;
  limits: ProcessLimits;
  slots: RenderSlots;
  cache: TileCache;
};

export type TileAnswer =
  /** the tile is kept, opened: the caller sends it and closes it */
  | { kind: 'kept'; blob: OpenedBlob }
  /** made for this request (and kept for the next, unless the store would not take it) */
  | { kind: 'made'; bytes: Buffer; kept: boolean }
  /** not there in time (or not to be had): this page image meanwhile */
  | { kind: 'standIn'; file: StandIn };

export class TilesBusy extends AppError {
  override name = 'TilesBusy';
  constructor(
    message = 'Busy rendering other pages; try again shortly',
    headers: Record<string, string> = {},
  ) {
    super(503, message, { 'Retry-After': '2', ...headers });
  }
}

/** The store (or the database) did not say within the request's second what the page has. */
export const tilesLate = () =>
  new TilesBusy('The page could not be looked up in time; try again shortly');

/** How a render ended: its bytes (and whether they were kept), or not made. */
type Rendered = { bytes: Buffer; kept: boolean } | 'failed';
/** This process's renders under way or waiting, by tile key. */
const inFlight = new Map<string, Promise<Rendered>>();
/** Tiles whose render failed, until when they are not tried again. */
const failed = new Map<string, number>();
/** Tiles rendering now (each holds a render slot too). */
let rendering = 0;
const renderWaiters: (() => void)[] = [];
/** The tiles' one share of the slots (the unit of fairness): made for the slots in use. */
const jobs = new WeakMap<RenderSlots, JobSlots>();

/** A turn among the tiles: at most half the slots render tiles at once (at least one). */
const tileTurn = async (slots: RenderSlots, signal: AbortSignal) => {
  if (rendering < Math.max(1, Math.floor(slots.capacity / 2))) {
    rendering += 1;
    return;
  }
  await new Promise<void>((resolve, reject) => {
    const go = () => {
      signal.removeEventListener('abort', drop);
      resolve();
    };
    const drop = () => {
      const at = renderWaiters.indexOf(go);
      if (at >= 0) renderWaiters.splice(at, 1);
      reject(signal.reason);
    };
    signal.addEventListener('abort', drop, { once: true });
    renderWaiters.push(go); // handed over by tileDone
  });
};
const tileDone = () => {
  const next = renderWaiters.shift();
  if (next) next();
  else rendering -= 1;
};

const failedLately = (key: string) => {
  const until = failed.get(key);
  if (until !== undefined && until < performance.now()) failed.delete(key);
  return until !== undefined && until >= performance.now();
};

/**
 * What a request for `tile-<z>-<column>-<row>.jpg` of a finished version's page gets by
 * `deadline` (performance.now() ms: the request's arrival + ANSWER_MS): the kept tile, or its
 * bytes made now, or a stand-in image; TilesBusy (a 503) when the page has no image or the store
 * did not say in time.
 */
export const pageTile = async (
  deps: TileDeps,
  versionId: string,
  position: number,
  tile: { level: number; column: number; row: number },
  deadline = performance.now() + ANSWER_MS,
): Promise<TileAnswer> => {
  const name = `tile-${tile.level}-${tile.column}-${tile.row}.jpg` as const;
  const key = `${versionId}/${position}/${name}`;
  const source = await by(tileSource(deps.db, versionId, position), deadline);
  if (source === LATE) throw tilesLate();
  if (!source || tile.level < 1 || tile.level > tileLevels(source.width, source.height)) {
    throw new NotFound('Not found');
  }
  const grid = tileGrid(source.width, source.height, tile.level);
  if (tile.column >= grid.columns || tile.row >= grid.rows) throw new NotFound('Not found');
  // A tile rendering in this process is not kept yet: no need to ask the store.
  let work = inFlight.get(key);
  if (!work) {
    const kept = await by(
      deps.blobs.openPageFile(versionId, position, name).catch(() => null),
      deadline,
      (late) => void late?.close(), // opened after its request was answered
    );
    if (kept === LATE) {
      // The store did not say in time (stalled, or the machine too loaded): no render on a
      // store that cannot keep it; the page's image if it is known, else a 503 to ask again.
      const known = knownStandIn(versionId, position);
      if (known) return { kind: 'standIn', file: known };
      throw tilesLate();
    }
    if (kept) {
      deps.cache.used(versionId, position, name, kept.size);
      return { kind: 'kept', blob: kept };
    }
  }
  if (!work && !failedLately(key) && inFlight.size < MAX_QUEUED) {
    const x = tile.column * TILE;
    const y = tile.row * TILE;
    const area = {
      longSide: grid.longSide,
      x,
      y,
      width: Math.min(TILE, grid.width - x),
      height: Math.min(TILE, grid.height - y),
    };
    // Not the request's work: it goes on after the answer, its store operations each bounded
    // on their own rather than by what is left of this request's budget.
    work = outsideRequestBudget(() =>
      renderAndKeep(deps, { versionId, position, name, checksum: source.checksum }, area),
    )
      .catch((error: unknown): Rendered => {
        // poppler could not: not tried again for a while. Anything else (the store, a queue
        // too long) may be over by the next request.
        if (error instanceof TileFailed) {
          if (failed.size >= MAX_FAILED) failed.clear(); // a bound, not a cache to be clever with
          failed.set(key, performance.now() + FAILED_FOR_MS);
        }
        return 'failed';
      })
      .finally(() => inFlight.delete(key));
    inFlight.set(key, work);
  }
  // Looked up while the render is awaited, so the stand-in is known by the deadline.
  const standIn = standInOf(deps.blobs, versionId, position);
  // Its render's outcome, or the deadline's wait even with no render to wait for (the queue full,
  // a tile that failed lately): answered at once, a flood's clients would only ask again at once,
  // hundreds of times a second, and take the daemon from everyone else (measured: bench/tiles).
  const outcome = await by(work ?? new Promise<Rendered>(() => {}), deadline);
  if (outcome !== LATE && outcome !== 'failed') return { kind: 'made', ...outcome };
  // not there in time, or not made: the page's best image meanwhile
  const file = await by(standIn, deadline);
  if (file === LATE) throw tilesLate();
  if (!file) throw new TilesBusy();
  return { kind: 'standIn', file };
};

const LATE = Symbol('late');

/**
 * `work`'s value if it comes by `deadline` (performance.now() ms), else LATE; a value that comes
 * later goes to `late` (to close what was opened for nobody).
 */
const by = async <T>(
  work: Promise<T>,
  deadline: number,
  late?: (value: T) => void,
): Promise<T | typeof LATE> => {
  let timer: NodeJS.Timeout | undefined;
  let answered = false;
  const timeout = new Promise<typeof LATE>((resolve) => {
    timer = setTimeout(() => resolve(LATE), Math.max(0, deadline - performance.now()));
  });
  try {
    const value = await Promise.race([work, timeout]);
    answered = value !== LATE;
    return value;
  } finally {
    clearTimeout(timer);
    if (!answered && late) work.then(late, () => {});
  }
};

/** poppler could not make the tile (a timeout, the memory cap, a refusal). */
class TileFailed extends Error {
  override name = 'TileFailed';
}

/**
 * Renders a tile in its turn and keeps it: its bytes, and whether the store took them. Throws
 * TileFailed if poppler could not make it; anything else if the store failed or the render
 * never started (the queue's time ran out).
 */
const renderAndKeep = async (
  deps: TileDeps,
  tile: { versionId: string; position: number; name: PageFile; checksum: string },
  area: Parameters<typeof renderTile>[2],
): Promise<Rendered> => {
  const queued = AbortSignal.timeout(QUEUE_MS);
  await tileTurn(deps.slots, queued);
  try {
    const original = await deps.blobs.localOriginal(tile.checksum);
    try {
      const bytes = await renderInSlot(deps, original.path, tile.position, area, queued);
      const kept = await deps.blobs
        .writePageFile(tile.versionId, tile.position, tile.name, bytes)
        .then(() => true)
        .catch(() => false);
      if (kept) deps.cache.used(tile.versionId, tile.position, tile.name, bytes.length);
      return { bytes, kept };
    } finally {
      await original.release();
    }
  } finally {
    tileDone();
  }
};

/** One render in a slot; asked back by processing, it stops and waits for another slot. */
const renderInSlot = async (
  deps: TileDeps,
  pdfPath: string,
  position: number,
  area: Parameters<typeof renderTile>[2],
  queued: AbortSignal,
): Promise<Buffer> => {
  let job = jobs.get(deps.slots);
  if (!job) {
    job = deps.slots.job();
    jobs.set(deps.slots, job);
  }
  const limits = { ...deps.limits, nice: NICE };
  for (;;) {
    const slot = await job.acquire('tile', queued);
    const stop = new AbortController();
    slot.yieldWith(() => stop.abort());
    try {
      const bytes = await renderTile(pdfPath, position, area, {
        limits,
        quality: QUALITY,
        signal: stop.signal,
      });
      if (bytes) return bytes;
      if (!stop.signal.aborted) throw new TileFailed('the tile could not be rendered');
    } finally {
      slot.release();
    }
  }
};
