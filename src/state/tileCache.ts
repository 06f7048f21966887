// Table `tile_cache`: the deep-zoom tiles kept in the blob store (src/app/pageTiles.ts), with
// their size and when a reader last had them, so that every daemon on the database keeps their
// sum within one budget by removing the least recently used (src/app/tileCache.ts). Operational
// state, not a read table: a tile is a cache of the PDF and no event says one was made, so replay
// cannot rebuild it and leaves it alone (created with the operational tables in
// src/store/schema.ts). Times are the database's, so daemons with different clocks agree on
// which tile is oldest.
import type { Db } from '../readTables/readTable.ts';
import { dropOrphanRows } from './versionRows.ts';

export const TILE_CACHE_DDL = `CREATE TABLE IF NOT EXISTS tile_cache (
  version_id UUID NOT NULL,
  position INT NOT NULL,
  tile TEXT NOT NULL,
  bytes BIGINT NOT NULL,
  last_used TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (version_id, position, tile)
);
CREATE INDEX IF NOT EXISTS tile_cache_last_used ON tile_cache (last_used)`;

/** One eviction at a time across daemons (an arbitrary constant, as schema.ts's). */
const EVICTION_LOCK = 727_040;

export type TileUse = {
  versionId: string;
  position: number;
  tile: string;
  bytes: number;
  /** how long ago (ms) it was stored or read, by this process's monotonic clock */
  agoMs: number;
};

/**
 * Records tiles stored or read, in one statement: each row's size, and its last use as the
 * database's now() less how long ago it was. Only for versions that still exist: a use noted
 * just before a deletion leaves no row behind.
 */
export const recordTileUses = async (db: Db, uses: TileUse[]) => {
  if (uses.length === 0) return;
  await db.query(
    `INSERT INTO tile_cache (version_id, position, tile, bytes, last_used)
     SELECT u.version_id, u.position, u.tile, u.bytes,
       now() - make_interval(secs => u.ago_ms / 1000)
     FROM unnest($1::uuid[], $2::int[], $3::text[], $4::bigint[], $5::float8[])
       AS u(version_id, position, tile, bytes, ago_ms)
     WHERE EXISTS (SELECT 1 FROM versions v WHERE v.version_id = u.version_id)
     ON CONFLICT (version_id, position, tile) DO UPDATE SET bytes = excluded.bytes,
       last_used = greatest(tile_cache.last_used, excluded.last_used)`,
    [
      uses.map((u) => u.versionId),
      uses.map((u) => u.position),
      uses.map((u) => u.tile),
      uses.map((u) => u.bytes),
      uses.map((u) => Math.max(0, u.agoMs)),
    ],
  );
};

export type EvictedTile = {
  version_id: string;
  position: number;
  tile: string;
  bytes: string;
  last_used: Date;
};

/**
 * Takes the least recently used tiles out of the table while their sum is over `budget` bytes,
 * at most `batch` of them, and returns them (their files are the caller's to remove). One
 * statement: under a transaction-scoped advisory lock, so two daemons never both remove the
 * same excess; the one that does not get it removes nothing this time.
 */
export const takeEvictions = async (db: Db, budget: number, batch: number) =>
  (
    await db.query<EvictedTile>(
      `WITH lock AS MATERIALIZED (SELECT pg_try_advisory_xact_lock($1) AS got),
       total AS MATERIALIZED (
         SELECT coalesce(sum(bytes), 0)::bigint AS bytes FROM tile_cache, lock WHERE lock.got),
       oldest AS MATERIALIZED (
         SELECT version_id, position, tile, bytes,
           sum(bytes) OVER (ORDER BY last_used, version_id, position, tile) AS upto
         FROM tile_cache ORDER BY last_used, version_id, position, tile LIMIT $3)
       DELETE FROM tile_cache t USING oldest o, total
       WHERE t.version_id = o.version_id AND t.position = o.position AND t.tile = o.tile
         AND o.upto - o.bytes < total.bytes - $2::bigint
       RETURNING t.version_id::text, t.position, t.tile, t.bytes::text, t.last_used`,
      [EVICTION_LOCK, budget, batch],
    )
  ).rows;

/** Puts back rows whose files could not be removed: the next pass tries again. */
export const restoreEvictions = async (db: Db, rows: EvictedTile[]) => {
  if (rows.length === 0) return;
  await db.query(
    `INSERT INTO tile_cache (version_id, position, tile, bytes, last_used)
     SELECT * FROM unnest($1::uuid[], $2::int[], $3::text[], $4::bigint[], $5::timestamptz[])
     ON CONFLICT DO NOTHING`,
    [
      rows.map((r) => r.version_id),
      rows.map((r) => r.position),
      rows.map((r) => r.tile),
      rows.map((r) => r.bytes),
      rows.map((r) => r.last_used),
    ],
  );
};

/** A deleted version's tiles: their files go with its folder, their rows here. */
export const forgetVersionTiles = (db: Db, versionId: string) =>
  db.query('DELETE FROM tile_cache WHERE version_id = $1', [versionId]);

/** Rows of versions that no longer exist (a deletion whose clean-up failed): none is a file. */
export const dropOrphanTiles = (db: Db) => dropOrphanRows(db, 'tile_cache');

/** The tiles counted and their bytes (metrics, tests). */
export const tileCacheSize = async (db: Db) => {
  const { rows } = await db.query<{ tiles: string; bytes: string }>(
    'SELECT count(*)::text AS tiles, coalesce(sum(bytes), 0)::text AS bytes FROM tile_cache',
  );
  return { tiles: Number(rows[0]?.tiles ?? 0), bytes: Number(rows[0]?.bytes ?? 0) };
};
