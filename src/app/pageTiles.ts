// Deep zoom: a page's tiles, rendered from the original the first time a reader zooms in past
// what its largest image (max.jpg, 2000 px on the long side) shows sharply, and kept beside the
// page's images. Level z renders the page 2000 × 2^z px on its long side (4,000 to 16,000), cut
// into tiles of TILE px; the reader asks only for the tiles it shows. Public (like the page
// images), so bounded: a few renders at a time per daemon, a few dozen more waiting their turn
// (a zoomed screen asks for several at once), beyond that a 503 with Retry-After (the reader
// keeps the softer image meanwhile and asks again).
import { tileSource } from '../../projections/files.ts';
import type { Db } from '../../projections/readTable.ts';
import type { BlobStore } from '../blobs/blobStore.ts';
import { AppError, NotFound } from '../domain/errors.ts';
import { TILE, TILE_LEVELS, tileGrid } from '../domain/page/tiles.ts';
import { renderTile } from '../pdf/pageTile.ts';
import type { ProcessLimits } from '../pdf/poppler.ts';

/** Renders at once per daemon: a phone's screen zoomed in shows four to eight tiles. */
const AT_ONCE = 4;
const QUALITY = 82;
/** Tiles waiting for a render, beyond those rendering. */
const MAX_WAITING = 32;
let running = 0;
const waiting: (() => void)[] = [];

/** A render's turn: at once when one is free, else in order; a full queue is a refusal. */
const turn = async () => {
  if (running < AT_ONCE) {
    running += 1;
    return;
  }
  if (waiting.length >= MAX_WAITING) throw new TilesBusy();
  await new Promise<void>((resolve) => waiting.push(resolve)); // handed over by `done`
};
const done = () => {
  const next = waiting.shift();
  if (next) next();
  else running -= 1;
};
const inFlight = new Map<string, Promise<Buffer | null>>();

export class TilesBusy extends AppError {
  override name = 'TilesBusy';
  constructor() {
    super(503, 'Busy rendering other pages; try again shortly', { 'Retry-After': '2' });
  }
}

/**
 * Makes sure `tile-<z>-<column>-<row>.jpg` of a finished version's page exists: null when it is
 * kept (open it), or its bytes when it was just made and could not be kept.
 */
export const pageTile = async (
  deps: { db: Db; blobs: BlobStore; limits: ProcessLimits },
  versionId: string,
  position: number,
  tile: { level: number; column: number; row: number },
): Promise<Buffer | null> => {
  const name = `tile-${tile.level}-${tile.column}-${tile.row}.jpg` as const;
  const key = `${versionId}/${position}/${name}`;
  // Refused before anything costs: a flood of requests gets its 503s without a query each.
  if (waiting.length >= MAX_WAITING && !inFlight.has(key)) throw new TilesBusy();
  const source = await tileSource(deps.db, versionId, position);
  if (!source || tile.level < 1 || tile.level > TILE_LEVELS) throw new NotFound('Not found');
  const grid = tileGrid(source.width, source.height, tile.level);
  if (tile.column >= grid.columns || tile.row >= grid.rows) throw new NotFound('Not found');
  const kept = await deps.blobs.openPageFile(versionId, position, name).catch(() => null);
  if (kept) {
    await kept.close();
    return null;
  }
  const pending = inFlight.get(key);
  if (pending) return pending;
  const { checksum } = source;
  const render = async () => {
    const original = await deps.blobs.localOriginal(checksum).catch(() => null);
    if (!original) throw new TilesBusy(); // the store did not answer: the reader asks again
    const x = tile.column * TILE;
    const y = tile.row * TILE;
    const bytes = await renderTile(
      original.path,
      position,
      {
        longSide: grid.longSide,
        x,
        y,
        width: Math.min(TILE, grid.width - x),
        height: Math.min(TILE, grid.height - y),
      },
      { limits: deps.limits, quality: QUALITY },
    ).finally(() => original.release());
    // A failure (a timeout, the tool killed) is not kept: the next reader tries again.
    if (!bytes) throw new TilesBusy();
    const stored = await deps.blobs
      .writePageFile(versionId, position, name, bytes)
      .then(() => true)
      .catch(() => false);
    return stored ? null : bytes;
  };
  const work = (async () => {
    await turn();
    try {
      return await render();
    } finally {
      done();
    }
  })().finally(() => inFlight.delete(key));
  inFlight.set(key, work);
  return work;
};
