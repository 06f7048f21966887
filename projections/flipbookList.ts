// The list of a workspace's flipbooks (GET /api/v1/flipbooks and the dashboard's grid): one page
// and the total, built for the filters given (no `$n IS NULL OR ...`, which would hide the indexes
// from the planner). Only the page's rows are read in full and joined to their active versions.
// docs/architecture.md, "The list at scale", has the plans and the measurements.
import { createHash } from 'node:crypto';
import { countSql } from './flipbookCounts.ts';
import { type FlipbookRow, flipbookColumns, type ListQuery, type SortField } from './flipbooks.ts';
import { createListMarks, type ListMarks, type Mark } from './listMarks.ts';
import type { Db, Prepared } from './readTable.ts';
import { versionColumns } from './versions.ts';

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
 * or not, from a remembered row or not). Planning them cost about as much as running them, and
 * whatever the values, the plan is the same: the page off the sort's index, in order, then 20
 * primary-key reads. (A search is planned each time: its plan depends on the pattern.)
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

/** This process's page ends (see listMarks.ts). */
const processMarks = createListMarks();

export const listFlipbooks = (
  db: Db,
  workspaceId: string,
  q: ListQuery,
  marks: ListMarks = processMarks,
): Promise<{ rows: ListedRow[]; total: number }> =>
  q.search === null ? orderedPage(db, workspaceId, q, marks) : searchPage(db, workspaceId, q);

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
 * With a search: the trigram index finds the candidates, the ILIKE decides, and the matches (only
 * they) are counted in the same scan.
 */
const searchPage = async (db: Db, workspaceId: string, q: ListQuery) => {
  const { column } = SORT[q.sort];
  const params: unknown[] = [workspaceId];
  const param = (value: unknown) => `$${params.push(value)}`;
  const where = ['workspace_id = $1'];
  if (q.status !== null) where.push(`status = ${param(q.status)}`);
  where.push(`title ILIKE ${param(likePattern(q.search ?? ''))}`);
  const filter = where.join(' AND ');
  const dir = q.dir === 'asc' ? 'ASC' : 'DESC';
  const limit = param(q.perPage);
  const offset = param((q.page - 1) * q.perPage);
  const { rows } = await db.query<ListedRow & { total: number }>(
    `SELECT ${flipbookColumns}, page.total, ${versionColumns('v', 'v_')}
     FROM (SELECT flipbook_id, count(*) OVER ()::int AS total FROM flipbooks WHERE ${filter}
           ORDER BY ${column} ${dir}, flipbook_id ${dir} LIMIT ${limit} OFFSET ${offset}) page
     JOIN flipbooks f USING (flipbook_id)
     LEFT JOIN versions v ON v.version_id = f.active_version_id
     ORDER BY f.${column} ${dir}, f.flipbook_id ${dir}`,
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
