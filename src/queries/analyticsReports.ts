// Reports over the reading figures (src/state/analytics.ts holds them): a flipbook's and a
// workspace's, over a range of days, by day and by source, read off the figures' keys.
import type { Db } from '../readTables/readTable.ts';
import { ALL_LINKS, NO_LINK } from '../state/analytics.ts';

export type DayFigures = {
  day: string;
  opens: number;
  views: number;
  readers: number;
  read_seconds: number;
};
export type StatsRows = {
  totals: DayFigures & { searches: number; downloads: number; zooms: number };
  days: DayFigures[];
  pages: { position: number; views: number; seconds: number }[];
  links: { position: number; link: number; clicks: number }[];
  sources: { kind: string; name: string; opens: number }[];
  shareLinks: (Omit<DayFigures, 'day'> & { link_id: string })[];
};

// Sums as float8: exact far past any count, where int would overflow over years of a busy book
// (and bigint comes back from pg as text).
// Readers from the whole book's rows (ALL_LINKS); the other figures from the links' rows, where
// those rows' are 0.
const sums = `coalesce(sum(opens), 0)::float8 AS opens, coalesce(sum(views), 0)::float8 AS views,
  coalesce(sum(readers) FILTER (WHERE link_key = '${ALL_LINKS}'), 0)::float8 AS readers,
  coalesce(sum(read_seconds), 0)::float8 AS read_seconds`;
/** The same for one link's rows. */
const linkSums = `coalesce(sum(opens), 0)::float8 AS opens, coalesce(sum(views), 0)::float8 AS views,
  coalesce(sum(readers), 0)::float8 AS readers, coalesce(sum(read_seconds), 0)::float8 AS read_seconds`;

/**
 * A flipbook's figures over the days [from, to] (inclusive, UTC dates); pages and links of one
 * version (`versionId`), or of every version when null.
 */
export const flipbookStats = async (
  db: Db,
  flipbookId: string,
  from: string,
  to: string,
  versionId: string | null,
  /** how many links and sources of each kind at most, the most clicked/opened first */
  top = 50,
): Promise<StatsRows> => {
  const range = [flipbookId, from, to];
  const where = 'flipbook_id = $1 AND day BETWEEN $2::date AND $3::date';
  const ofVersion = `${where} AND ($4::uuid IS NULL OR version_id = $4)`;
  const [totals, days, pages, links, sources, shareLinks] = await Promise.all([
    db.query(
      `SELECT ${sums}, coalesce(sum(searches), 0)::float8 AS searches,
         coalesce(sum(downloads), 0)::float8 AS downloads, coalesce(sum(zooms), 0)::float8 AS zooms
       FROM analytics_daily WHERE ${where}`,
      range,
    ),
    db.query(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, ${sums}
       FROM analytics_daily WHERE ${where} GROUP BY day ORDER BY day`,
      range,
    ),
    db.query(
      `SELECT position, sum(views)::float8 AS views, sum(seconds)::float8 AS seconds
       FROM analytics_pages WHERE ${ofVersion} GROUP BY position ORDER BY position`,
      [...range, versionId],
    ),
    db.query(
      `SELECT position, link, sum(clicks)::float8 AS clicks
       FROM analytics_links WHERE ${ofVersion} AND position > 0 GROUP BY position, link
       ORDER BY clicks DESC, position, link LIMIT $5`,
      [...range, versionId, top],
    ),
    db.query(
      `SELECT kind, name, opens FROM (
         SELECT kind, name, sum(opens)::float8 AS opens,
           row_number() OVER (PARTITION BY kind ORDER BY sum(opens) DESC, name) AS n
         FROM analytics_sources WHERE ${where} GROUP BY kind, name) s
       WHERE n <= $4 ORDER BY kind, opens DESC, name`,
      [...range, top],
    ),
    db.query(
      `SELECT link_key AS link_id, ${linkSums}
       FROM analytics_daily WHERE ${where} AND link_key NOT IN ('${NO_LINK}', '${ALL_LINKS}')
       GROUP BY link_key ORDER BY views DESC, link_key`,
      range,
    ),
  ]);
  return {
    totals: totals.rows[0],
    days: days.rows,
    pages: pages.rows,
    links: links.rows,
    sources: sources.rows,
    shareLinks: shareLinks.rows,
  } as StatsRows;
};

/** A workspace's figures over [from, to]: per day, and per flipbook (the most viewed first). */
export const workspaceStats = async (
  db: Db,
  workspaceId: string,
  from: string,
  to: string,
  top = 100,
) => {
  const [days, books] = await Promise.all([
    db.query<DayFigures>(
      `SELECT to_char(a.day, 'YYYY-MM-DD') AS day, ${sums}
       FROM analytics_daily a JOIN flipbooks f ON f.flipbook_id = a.flipbook_id
       WHERE f.workspace_id = $1 AND a.day BETWEEN $2::date AND $3::date
       GROUP BY a.day ORDER BY a.day`,
      [workspaceId, from, to],
    ),
    db.query<Omit<DayFigures, 'day'> & { id: string; title: string }>(
      `SELECT f.flipbook_id AS id, f.title, ${sums}
       FROM flipbooks f LEFT JOIN analytics_daily a
         ON a.flipbook_id = f.flipbook_id AND a.day BETWEEN $2::date AND $3::date
       WHERE f.workspace_id = $1
       GROUP BY f.flipbook_id, f.title ORDER BY views DESC, opens DESC, f.title LIMIT $4`,
      [workspaceId, from, to, top],
    ),
  ]);
  return { days: days.rows, books: books.rows };
};

/**
 * A preview's reading figures, all days: counted apart from its flipbook's, under the preview's
 * version id (src/reader/bookAnswers.ts gives its reader that key), never in the book's figures.
 */
export const previewFigures = async (db: Db, versionId: string) =>
  (
    await db.query<{ opens: number; readers: number; read_seconds: number }>(
      `SELECT coalesce(sum(opens), 0)::float8 AS opens,
         coalesce(sum(readers) FILTER (WHERE link_key = '${ALL_LINKS}'), 0)::float8 AS readers,
         coalesce(sum(read_seconds), 0)::float8 AS read_seconds
       FROM analytics_daily WHERE flipbook_id = $1`,
      [versionId],
    )
  ).rows[0] ?? { opens: 0, readers: 0, read_seconds: 0 };
