// The list of a workspace's flipbooks (GET /api/v1/flipbooks and the dashboard's grid): one page
// and the total, built for the filters given (no `$n IS NULL OR ...`, which would hide the indexes
// from the planner). Only the page's rows are read in full and joined to their active versions.
// docs/architecture.md, "The list at scale", has the plans and the measurements.
import { createHash } from 'node:crypto';
import { countSql } from '../readTables/flipbookCounts.ts';
import {
  type FlipbookRow,
  flipbookColumns,
  type ListQuery,
  type SortField,
} from '../readTables/flipbooks.ts';
import type { Db, Prepared } from '../readTables/readTable.ts';
import { versionColumns } from '../readTables/versions.ts';
import { createListMarks, type ListMarks, type Mark } from './listMarks.ts';
import {
  createSearchResults,
  MAX_REMEMBERED_MATCHES,
  type SearchResults,
} from './searchResults.ts';

export type ListedRow = FlipbookRow & { [active: `v_${string}`]: unknown };
type Fetched = ListedRow & { total: number; stamp: string | null; sort_key: string };

/** `%` and `_` in a search are the characters themselves, not LIKE wildcards. */
const likePattern = (search: string) => `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

// Sort keys come from a fixed list, never from the request text itself. Each has an index with
// the tie-breaker (see the DDL in flipbooks.ts); `title_key` is lower(title).
const SORT: Record<SortField, { column: string; key: string; type: string; stamp: string }> = {
  created_at: {
    column: 'created_at',
    key: `to_char(f.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US')`,
    type: 'timestamp',
    stamp: 'changed',
  },
  updated_at: {
    column: 'updated_at',
    key: `to_char(f.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US')`,
    type: 'timestamp',
    stamp: 'touched',
  },
  title: { column: 'title_key', key: 'f.title_key', type: 'text', stamp: 'changed' },
};

/**
 * The lists without a search as prepared statements (24 texts at most: sort, direction, status
 * or not, from a remembered row or not), and reading a search's page by ids: parsing them on each
 * request cost a third of the query. Whatever the values, the plan is the same ordered index read
 * (PostgreSQL keeps planning each execution for its values anyway). A search itself is not
 * prepared: its plan depends on the pattern.
 */
const statements = new Map<string, Prepared>();
const prepared = (text: string): Prepared => {
  let statement = statements.get(text);
  if (!statement) {
    const name = `list-${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
    statement = { name, text };
    statements.set(text, statement);
  }
  return statement;
};

/** What this process remembers of the lists it served; tests and benchmarks may start afresh. */
export type Remembered = { marks: ListMarks; searches: SearchResults };
const remembered: Remembered = { marks: createListMarks(), searches: createSearchResults() };
export const nothingRemembered = (): Remembered => ({
  marks: createListMarks(),
  searches: createSearchResults(),
});

export const listFlipbooks = (
  db: Db,
  workspaceId: string,
  q: ListQuery,
  memory: Remembered = remembered,
): Promise<{ rows: ListedRow[]; total: number }> =>
  q.search === null
    ? orderedPage(db, workspaceId, q, memory.marks)
    : searchPage(db, workspaceId, q, memory.searches);

/**
 * Without a search: the page's ids come off the sort's index alone, starting from the nearest
 * page end this process remembers (or the start), and the total is the kept count. One row more
 * than the page is read, the one before it, so that this page's start is remembered too.
 */
const orderedPage = async (db: Db, workspaceId: string, q: ListQuery, marks: ListMarks) => {
  const list = [workspaceId, q.sort, q.dir, q.status ?? ''].join('|');
  const start = (q.page - 1) * q.perPage;
  const near = marks.nearest(list, start);
  let read = await readOrdered(db, workspaceId, q, start, near);
  if (near && read.stamp !== near.stamp) {
    // The workspace changed since that page end was seen: start from the beginning.
    marks.forget(list);
    read = await readOrdered(db, workspaceId, q, start, null);
  }
  if (read.stamp !== null) marks.record(list, read.stamp, read.marks);
  return { rows: read.rows, total: read.total };
};

const readOrdered = async (
  db: Db,
  workspaceId: string,
  q: ListQuery,
  start: number,
  near: { position: number; mark: Mark } | null,
) => {
  const sort = SORT[q.sort];
  const params: unknown[] = [workspaceId];
  const param = (value: unknown) => `$${params.push(value)}`;
  const status = q.status === null ? null : param(q.status);
  const where = ['workspace_id = $1'];
  if (status !== null) where.push(`status = ${status}`);
  const total = countSql(status);
  const stamp = `SELECT ${sort.stamp} FROM flipbook_counts WHERE workspace_id = $1`;
  const dir = q.dir === 'asc' ? 'ASC' : 'DESC';
  if (near) {
    const after = `(${param(near.mark.key)}::${sort.type}${sort.type === 'timestamp' ? " AT TIME ZONE 'UTC'" : ''}, ${param(near.mark.id)}::uuid)`;
    where.push(`(${sort.column}, flipbook_id) ${dir === 'ASC' ? '>' : '<'} ${after}`);
  }
  const from = near?.position ?? 0;
  // the row before the page too, unless it is the mark itself or there is none
  const lead = start > from ? 1 : 0;
  const { rows } = await db.query<Fetched>(
    prepared(
      `SELECT ${flipbookColumns}, (${total}) AS total, (${stamp}) AS stamp, ${sort.key} AS sort_key,
         ${versionColumns('v', 'v_')}
       FROM (SELECT flipbook_id FROM flipbooks WHERE ${where.join(' AND ')}
             ORDER BY ${sort.column} ${dir}, flipbook_id ${dir}
             LIMIT ${param(q.perPage + lead)} OFFSET ${param(start - from - lead)}) page
       JOIN flipbooks f USING (flipbook_id)
       LEFT JOIN versions v ON v.version_id = f.active_version_id
       ORDER BY f.${sort.column} ${dir}, f.flipbook_id ${dir}`,
    ),
    params,
  );
  const page = rows.slice(lead);
  const found: [number, Mark][] = [];
  const before = lead ? rows[0] : undefined;
  if (before) found.push([start, { key: before.sort_key, id: before.flipbook_id }]);
  const last = page.at(-1);
  if (last) found.push([start + page.length, { key: last.sort_key, id: last.flipbook_id }]);
  const first = rows[0];
  if (first) return { rows: page, total: first.total, stamp: first.stamp, marks: found };
  // Past the end: nothing carried the total and the stamp; read them on their own.
  const alone = await db.query<{ total: number; stamp: string | null }>(
    `SELECT (${total}) AS total, (${stamp}) AS stamp`,
    status === null ? [workspaceId] : [workspaceId, q.status],
  );
  return {
    rows: page,
    total: alone.rows[0]?.total ?? 0,
    stamp: alone.rows[0]?.stamp ?? null,
    marks: found,
  };
};

/**
 * With a search: the trigram index finds the candidates and the ILIKE decides. The matches' ids,
 * in order, are read once and remembered (searchResults.ts); a page is then its rows by id, as
 * long as the workspace's stamp is the one they were read at. A search with more matches than
 * are remembered is counted (in the same scan as its page) each time.
 */
const searchPage = async (db: Db, workspaceId: string, q: ListQuery, searches: SearchResults) => {
  const sort = SORT[q.sort];
  const search = JSON.stringify([workspaceId, q.sort, q.dir, q.status, q.search]);
  const start = (q.page - 1) * q.perPage;
  const known = searches.get(search);
  if (known) {
    const page = await rowsById(
      db,
      workspaceId,
      known.ids.slice(start, start + q.perPage),
      sort.stamp,
    );
    if (page.stamp === known.stamp) return { rows: page.rows, total: known.ids.length };
    searches.forget(search);
  }
  const params: unknown[] = [workspaceId];
  const param = (value: unknown) => `$${params.push(value)}`;
  const where = ['workspace_id = $1'];
  if (q.status !== null) where.push(`status = ${param(q.status)}`);
  where.push(`title ILIKE ${param(likePattern(q.search ?? ''))}`);
  const filter = where.join(' AND ');
  const order = `${sort.column} ${q.dir === 'asc' ? 'ASC' : 'DESC'}, flipbook_id ${q.dir === 'asc' ? 'ASC' : 'DESC'}`;
  const { rows: found } = await db.query<{ stamp: string | null; ids: string[] }>(
    `SELECT (SELECT ${sort.stamp} FROM flipbook_counts WHERE workspace_id = $1) AS stamp,
       ARRAY(SELECT flipbook_id::text FROM flipbooks WHERE ${filter} ORDER BY ${order}
             LIMIT ${MAX_REMEMBERED_MATCHES + 1}) AS ids`,
    params,
  );
  const matches = found[0];
  if (matches?.stamp && matches.ids.length <= MAX_REMEMBERED_MATCHES) {
    const page = await rowsById(
      db,
      workspaceId,
      matches.ids.slice(start, start + q.perPage),
      sort.stamp,
    );
    // (a change committed in between: the two reads disagree, and the search is counted below)
    if (page.stamp === matches.stamp) {
      searches.set(search, matches.stamp, matches.ids);
      return { rows: page.rows, total: matches.ids.length };
    }
  }
  const limit = param(q.perPage);
  const offset = param(start);
  const { rows } = await db.query<ListedRow & { total: number }>(
    `SELECT ${flipbookColumns}, page.total, ${versionColumns('v', 'v_')}
     FROM (SELECT flipbook_id, count(*) OVER ()::int AS total FROM flipbooks WHERE ${filter}
           ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}) page
     JOIN flipbooks f USING (flipbook_id)
     LEFT JOIN versions v ON v.version_id = f.active_version_id
     ORDER BY f.${order.replaceAll(', flipbook_id', ', f.flipbook_id')}`,
    params,
  );
  // A page past the end has no rows to carry the total; count on its own.
  const total =
    rows[0]?.total ??
    (
      await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM flipbooks WHERE ${filter}`,
        params.slice(0, -2),
      )
    ).rows[0]?.n;
  return { rows, total: total ?? 0 };
};

/** The rows of these flipbooks, in this order, with the workspace's stamp read alongside. */
const rowsById = async (db: Db, workspaceId: string, ids: string[], stampColumn: string) => {
  const stamp = `SELECT ${stampColumn} FROM flipbook_counts WHERE workspace_id = $1`;
  if (ids.length === 0) {
    const { rows } = await db.query<{ stamp: string | null }>(
      prepared(`SELECT (${stamp}) AS stamp`),
      [workspaceId],
    );
    return { rows: [], stamp: rows[0]?.stamp ?? null };
  }
  const { rows } = await db.query<ListedRow & { stamp: string | null }>(
    prepared(
      `SELECT ${flipbookColumns}, (${stamp}) AS stamp, ${versionColumns('v', 'v_')}
       FROM unnest($2::uuid[]) WITH ORDINALITY AS page (flipbook_id, n)
       JOIN flipbooks f USING (flipbook_id)
       LEFT JOIN versions v ON v.version_id = f.active_version_id
       WHERE f.workspace_id = $1
       ORDER BY page.n`,
    ),
    [workspaceId, ids],
  );
  // a flipbook gone since would show as a missing row; its removal changed the stamp anyway
  return { rows, stamp: rows.length === ids.length ? (rows[0]?.stamp ?? null) : null };
};
