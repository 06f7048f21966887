// Reading figures (issue 30): not events (reading is volume, not decisions), daily roll-ups per
// flipbook written in batches by src/app/analytics/ingest.ts. Every key starts with
// (flipbook_id, day), so a report over a range reads one index range whatever the traffic.
// `link_key` is the share link a reader came by, or the nil UUID for the book's own URL.
// `analytics_seen` holds the day's reader hashes, to count each reader once a day; it is of no
// use once its day's salt is gone, and is deleted with it.
// One file (over 300 lines): the figures' tables and every write to them, under the caps and locks
// they share; the reports are src/queries/analyticsReports.ts.
import { LINKS_PER_DAY, OTHER, SOURCE_NAMES_PER_DAY } from '../domain/analytics/dailyCaps.ts';
import type { Db } from '../readTables/readTable.ts';

export const NO_LINK = '00000000-0000-0000-0000-000000000000';
/**
 * The row of a flipbook's day that counts its readers whatever link they came by (its other
 * figures stay 0): a reader of two links is one reader of the book.
 */
export const ALL_LINKS = 'ffffffff-ffff-ffff-ffff-ffffffffffff';

/** The version of the row a day's links past LINKS_PER_DAY are counted in (with page 0). */
export const OTHER_VERSION = '00000000-0000-0000-0000-000000000000';

export const ANALYTICS_DDL = `
-- Pages and links were first keyed without their version, in a build that never wrote to them
-- (nothing counted before the reader sent beacons): such empty tables make way for these.
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM information_schema.tables WHERE table_name = 'analytics_pages'
             AND table_schema = current_schema())
     AND NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_name = 'analytics_pages'
             AND column_name = 'version_id' AND table_schema = current_schema()) THEN
    DROP TABLE analytics_pages, analytics_links;
  END IF;
END $$;
CREATE TABLE IF NOT EXISTS analytics_daily (
  flipbook_id UUID NOT NULL, day DATE NOT NULL, link_key UUID NOT NULL,
  opens INT NOT NULL DEFAULT 0, views INT NOT NULL DEFAULT 0, readers INT NOT NULL DEFAULT 0,
  read_seconds DOUBLE PRECISION NOT NULL DEFAULT 0, searches INT NOT NULL DEFAULT 0,
  downloads INT NOT NULL DEFAULT 0, zooms INT NOT NULL DEFAULT 0,
  PRIMARY KEY (flipbook_id, day, link_key)
);
CREATE TABLE IF NOT EXISTS analytics_pages (
  flipbook_id UUID NOT NULL, day DATE NOT NULL, version_id UUID NOT NULL, position INT NOT NULL,
  views INT NOT NULL DEFAULT 0, seconds DOUBLE PRECISION NOT NULL DEFAULT 0,
  PRIMARY KEY (flipbook_id, day, version_id, position)
);
CREATE TABLE IF NOT EXISTS analytics_links (
  flipbook_id UUID NOT NULL, day DATE NOT NULL, version_id UUID NOT NULL, position INT NOT NULL,
  link INT NOT NULL, clicks INT NOT NULL DEFAULT 0,
  PRIMARY KEY (flipbook_id, day, version_id, position, link)
);
CREATE TABLE IF NOT EXISTS analytics_sources (
  flipbook_id UUID NOT NULL, day DATE NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL,
  opens INT NOT NULL DEFAULT 0,
  PRIMARY KEY (flipbook_id, day, kind, name)
);
CREATE TABLE IF NOT EXISTS analytics_seen (
  day DATE NOT NULL, flipbook_id UUID NOT NULL, link_key UUID NOT NULL, reader TEXT NOT NULL,
  PRIMARY KEY (day, flipbook_id, link_key, reader)
);
`;

/** One flush's figures, as columns (unnest): each list sorted by its key (no deadlocks). */
export type Flush = {
  seen: { day: string[]; flipbook: string[]; link: string[]; reader: string[] };
  daily: {
    flipbook: string[];
    day: string[];
    link: string[];
    opens: number[];
    views: number[];
    seconds: number[];
    searches: number[];
    downloads: number[];
    zooms: number[];
  };
  pages: {
    flipbook: string[];
    day: string[];
    version: string[];
    position: number[];
    views: number[];
    seconds: number[];
  };
  links: {
    flipbook: string[];
    day: string[];
    version: string[];
    position: number[];
    link: number[];
    clicks: number[];
  };
  sources: { flipbook: string[]; day: string[]; kind: string[]; name: string[]; opens: number[] };
};

/**
 * `a + b` for a day's counter, stopping at int's largest: a flood that would overflow one
 * counter must not fail the write of every flipbook's figures.
 */
const plus = (a: string, b: string) => `least(${a}::bigint + ${b}, 2147483647)::int`;

/** SQL: the cap of names of a kind (`kind`: an expression), SOURCE_NAMES_PER_DAY's. */
const capOfKind = (kind: string) =>
  `CASE ${kind} ${Object.entries(SOURCE_NAMES_PER_DAY)
    .map(([name, cap]) => `WHEN '${name}' THEN ${cap}`)
    .join(' ')} ELSE ${Math.min(...Object.values(SOURCE_NAMES_PER_DAY))} END`;

/** Advisory locks of this class (two int keys: apart from the single-key locks of src/store). */
const FIGURES_LOCK_CLASS = 30;

/**
 * Counts a write's readers new today (`seen`: their codes): those whose code was not seen yet,
 * into their day's row. Any part of a day's codes is counted exactly on its own
 * (src/app/analytics/pendingFigures.ts writes them in bounded parts).
 */
export const addReaders = async (db: Db, seen: Flush['seen']) => {
  if (seen.reader.length === 0) return;
  await db.query(
    `WITH fresh AS (
       INSERT INTO analytics_seen (day, flipbook_id, link_key, reader)
       SELECT * FROM unnest($1::date[], $2::uuid[], $3::uuid[], $4::text[])
       ON CONFLICT DO NOTHING RETURNING day, flipbook_id, link_key)
     INSERT INTO analytics_daily (flipbook_id, day, link_key, readers)
     SELECT flipbook_id, day, link_key, count(*) FROM fresh GROUP BY 1, 2, 3
     ORDER BY 1, 2, 3
     ON CONFLICT (flipbook_id, day, link_key)
     DO UPDATE SET readers = ${plus('analytics_daily.readers', 'EXCLUDED.readers')}`,
    [seen.day, seen.flipbook, seen.link, seen.reader],
  );
};

/**
 * SQL: `rows` (a relation `i` with `flipbook_id`, `day`, the name's columns `name`, and `n`
 * its count; `part`: the columns of a day's key) with `folded`: a name the day has no row for (`known`: an expression, true when it has
 * one) past the day's cap (`cap`, an expression). The names new to the day are placed the most
 * counted first; the day's count of names (`held`: a scalar query over `r`, backed by the key's
 * index and bounded by the cap) is read once per day, on its first row. Only sorts and index
 * probes, no join: joined to itself on its key, the batch was planned as a merge join on
 * (flipbook, day) alone, quadratic (2,000 new links of one day: 1.4 s; the 5,000 a flood kept
 * in memory passed the 5 s statement limit, and each failed write came back bigger).
 */
const foldedPastCap = (
  rows: string,
  part: string,
  name: string,
  known: string,
  held: string,
  cap: string,
) => `
  SELECT p.*, p.fresh AND max(p.held) OVER (PARTITION BY ${part}) + p.nth > ${cap} AS folded
  FROM (
    SELECT r.*, CASE WHEN r.first = 1 THEN (${held}) END AS held
    FROM (
      SELECT f.*,
        row_number() OVER (PARTITION BY ${part}, f.fresh ORDER BY f.n DESC, ${name}) AS nth,
        row_number() OVER (PARTITION BY ${part}) AS first
      FROM (SELECT i.*, NOT coalesce(${known}, false) AS fresh FROM ${rows}) f) r) p`;

/**
 * Adds a write's figures but its readers (addReaders) in one transaction (`db`: its client). Each
 * (flipbook, day) whose names it writes is locked first, across daemons, in the order of the
 * locks' keys (no deadlock): a day's caps count the names the other daemons' writes added, so
 * they hold whatever writes at once. Each statement takes one part of bounded size
 * (src/app/analytics/pendingFigures.ts), and none does more than sort it and probe the keys'
 * index once a row.
 */
export const addFigures = async (db: Db, f: Flush) => {
  const named = [...f.links.flipbook, ...f.sources.flipbook];
  if (named.length > 0) {
    await db.query(
      `SELECT pg_advisory_xact_lock(${FIGURES_LOCK_CLASS}, k) FROM (
         SELECT DISTINCT hashtext(b::text || ' ' || d::text) AS k
         FROM unnest($1::uuid[], $2::date[]) AS t(b, d) ORDER BY k) keys
       ORDER BY k`,
      [named, [...f.links.day, ...f.sources.day]],
    );
  }
  const d = f.daily;
  if (d.flipbook.length > 0) {
    await db.query(
      `INSERT INTO analytics_daily AS a
         (flipbook_id, day, link_key, opens, views, read_seconds, searches, downloads, zooms)
       SELECT * FROM unnest($1::uuid[], $2::date[], $3::uuid[], $4::int[], $5::int[],
         $6::float8[], $7::int[], $8::int[], $9::int[])
       ON CONFLICT (flipbook_id, day, link_key) DO UPDATE SET
         opens = ${plus('a.opens', 'EXCLUDED.opens')}, views = ${plus('a.views', 'EXCLUDED.views')},
         read_seconds = a.read_seconds + EXCLUDED.read_seconds,
         searches = ${plus('a.searches', 'EXCLUDED.searches')},
         downloads = ${plus('a.downloads', 'EXCLUDED.downloads')},
         zooms = ${plus('a.zooms', 'EXCLUDED.zooms')}`,
      [d.flipbook, d.day, d.link, d.opens, d.views, d.seconds, d.searches, d.downloads, d.zooms],
    );
  }
  if (f.pages.flipbook.length > 0) {
    await db.query(
      `INSERT INTO analytics_pages AS a (flipbook_id, day, version_id, position, views, seconds)
       SELECT * FROM unnest($1::uuid[], $2::date[], $3::uuid[], $4::int[], $5::int[], $6::float8[])
       ON CONFLICT (flipbook_id, day, version_id, position) DO UPDATE SET
         views = ${plus('a.views', 'EXCLUDED.views')}, seconds = a.seconds + EXCLUDED.seconds`,
      [
        f.pages.flipbook,
        f.pages.day,
        f.pages.version,
        f.pages.position,
        f.pages.views,
        f.pages.seconds,
      ],
    );
  }
  if (f.links.flipbook.length > 0) {
    // Page 0 is the day's (other) row: never counted as a name, never folded.
    await db.query(
      `WITH placed AS (${foldedPastCap(
        `unnest($1::uuid[], $2::date[], $3::uuid[], $4::int[], $5::int[], $6::int[])
           AS i(flipbook_id, day, version_id, position, link, n)`,
        'flipbook_id, day',
        'version_id, position, link',
        `i.position = 0 OR (SELECT true FROM analytics_links l
           WHERE (l.flipbook_id, l.day, l.version_id, l.position, l.link)
             = (i.flipbook_id, i.day, i.version_id, i.position, i.link))`,
        `SELECT count(*) FROM analytics_links l
           WHERE l.flipbook_id = r.flipbook_id AND l.day = r.day AND l.position > 0`,
        String(LINKS_PER_DAY),
      )})
       INSERT INTO analytics_links AS a (flipbook_id, day, version_id, position, link, clicks)
       SELECT flipbook_id, day,
         CASE WHEN folded THEN '${OTHER_VERSION}'::uuid ELSE version_id END,
         CASE WHEN folded THEN 0 ELSE position END, CASE WHEN folded THEN 0 ELSE link END,
         least(sum(n), 2147483647)::int
       FROM placed GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
       ON CONFLICT (flipbook_id, day, version_id, position, link) DO UPDATE SET
         clicks = ${plus('a.clicks', 'EXCLUDED.clicks')}`,
      [
        f.links.flipbook,
        f.links.day,
        f.links.version,
        f.links.position,
        f.links.link,
        f.links.clicks,
      ],
    );
  }
  if (f.sources.flipbook.length > 0) {
    await db.query(
      `WITH placed AS (${foldedPastCap(
        `unnest($1::uuid[], $2::date[], $3::text[], $4::text[], $5::int[])
           AS i(flipbook_id, day, kind, name, n)`,
        'flipbook_id, day, kind',
        'name',
        `i.name = '${OTHER}' OR (SELECT true FROM analytics_sources s
           WHERE (s.flipbook_id, s.day, s.kind, s.name) = (i.flipbook_id, i.day, i.kind, i.name))`,
        `SELECT count(*) FROM analytics_sources s WHERE s.flipbook_id = r.flipbook_id
           AND s.day = r.day AND s.kind = r.kind AND s.name <> '${OTHER}'`,
        capOfKind('kind'),
      )})
       INSERT INTO analytics_sources AS a (flipbook_id, day, kind, name, opens)
       SELECT flipbook_id, day, kind, CASE WHEN folded THEN '${OTHER}' ELSE name END,
         least(sum(n), 2147483647)::int
       FROM placed GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
       ON CONFLICT (flipbook_id, day, kind, name) DO UPDATE SET
         opens = ${plus('a.opens', 'EXCLUDED.opens')}`,
      [f.sources.flipbook, f.sources.day, f.sources.kind, f.sources.name, f.sources.opens],
    );
  }
};

/**
 * Of these flipbooks' days (`links`: flipbook and day; `sources`: and kind), those that keep as
 * many names as their cap, with the names they keep (at most the cap each): from then on a
 * daemon folds any other name of theirs in memory (src/app/analytics/pendingFigures.ts). Each
 * day is counted by its key's index, at most its cap's rows.
 */
export const namesOfFullDays = async (
  db: Db,
  links: { flipbook: string[]; day: string[] },
  sources: { flipbook: string[]; day: string[]; kind: string[] },
) => {
  const full = {
    links: [] as {
      flipbook: string;
      day: string;
      version: string;
      position: number;
      link: number;
    }[],
    sources: [] as { flipbook: string; day: string; kind: string; name: string }[],
  };
  if (links.flipbook.length > 0) {
    full.links = (
      await db.query<(typeof full.links)[number]>(
        `SELECT k.flipbook_id AS flipbook, k.day::text AS day, l.version_id AS version,
           l.position, l.link
         FROM unnest($1::uuid[], $2::date[]) AS k(flipbook_id, day)
         JOIN LATERAL (SELECT count(*) AS n FROM analytics_links c
           WHERE c.flipbook_id = k.flipbook_id AND c.day = k.day AND c.position > 0) c
           ON c.n >= ${LINKS_PER_DAY}
         JOIN analytics_links l
           ON l.flipbook_id = k.flipbook_id AND l.day = k.day AND l.position > 0`,
        [links.flipbook, links.day],
      )
    ).rows;
  }
  if (sources.flipbook.length > 0) {
    full.sources = (
      await db.query<(typeof full.sources)[number]>(
        `SELECT k.flipbook_id AS flipbook, k.day::text AS day, k.kind, s.name
         FROM unnest($1::uuid[], $2::date[], $3::text[]) AS k(flipbook_id, day, kind)
         JOIN LATERAL (SELECT count(*) AS n FROM analytics_sources c
           WHERE c.flipbook_id = k.flipbook_id AND c.day = k.day AND c.kind = k.kind
             AND c.name <> '${OTHER}') c ON c.n >= ${capOfKind('k.kind')}
         JOIN analytics_sources s ON s.flipbook_id = k.flipbook_id AND s.day = k.day
           AND s.kind = k.kind AND s.name <> '${OTHER}'`,
        [sources.flipbook, sources.day, sources.kind],
      )
    ).rows;
  }
  return full;
};

/** Deletes the reader hashes of the days before `day` (their salt is gone: they are of no use). */
export const forgetReadersBefore = async (db: Db, day: string) => {
  await db.query('DELETE FROM analytics_seen WHERE day < $1', [day]);
};

/**
 * Of these flipbooks, those whose figures are kept: still there, not archived (its pages already
 * open read on, but the book is withdrawn), in a workspace that counts (analytics on). A flush
 * writes for these only. A live preview's figures are kept under its version's id, apart from its
 * flipbook's (src/reader/bookAnswers.ts), on the same terms.
 */
export const countedFlipbooks = async (db: Db, ids: string[]) =>
  new Set(
    (
      await db.query<{ id: string }>(
        `SELECT coalesce(p.version_id, f.flipbook_id) AS id
         FROM unnest($1::uuid[]) AS asked(id)
         LEFT JOIN previews p ON p.version_id = asked.id
         JOIN flipbooks f ON f.flipbook_id = coalesce(p.flipbook_id, asked.id)
         JOIN workspaces w ON w.workspace_id = f.workspace_id
         WHERE w.analytics_enabled AND f.status <> 'archived'`,
        [ids],
      )
    ).rows.map((r) => r.id),
  );

const FIGURE_TABLES = [
  'analytics_daily',
  'analytics_pages',
  'analytics_links',
  'analytics_sources',
] as const;

/**
 * Deletes the figures no longer kept: days past their workspace's retention (counted back from
 * `today`), and every figure of a flipbook that was deleted (or of a preview no longer live). Each table is reached by its key's
 * prefix (flipbook, day), never scanned whole: the flipbooks concerned are found in the daily
 * table, which has a row for every flipbook and day any other table has.
 */
export const pruneFigures = async (db: Db, today: string) => {
  const { rows } = await db.query<{ id: string; cutoff: string }>(
    `SELECT a.flipbook_id AS id,
       coalesce(to_char($1::date - w.analytics_days, 'YYYY-MM-DD'), '9999-12-31') AS cutoff
     FROM (SELECT flipbook_id, min(day) AS first FROM analytics_daily GROUP BY flipbook_id) a
     LEFT JOIN previews p ON p.version_id = a.flipbook_id
     LEFT JOIN flipbooks f ON f.flipbook_id = coalesce(p.flipbook_id, a.flipbook_id)
     LEFT JOIN workspaces w ON w.workspace_id = f.workspace_id
     WHERE f.flipbook_id IS NULL OR a.first < $1::date - w.analytics_days`,
    [today],
  );
  if (rows.length === 0) return;
  const ids = rows.map((r) => r.id);
  const cutoffs = rows.map((r) => r.cutoff);
  for (const table of FIGURE_TABLES) {
    await db.query(
      `DELETE FROM ${table} t USING unnest($1::uuid[], $2::date[]) AS c(id, cutoff)
       WHERE t.flipbook_id = c.id AND t.day < c.cutoff`,
      [ids, cutoffs],
    );
  }
};
