// Read table `flipbooks`: one row per flipbook, with its active version for list queries.
import type { Db, ReadTable } from './readTable.ts';
import { utc } from './sql.ts';
import { type VersionRow, versionColumns } from './versions.ts';

/** The active version of a listed flipbook, when it has one. */
export const activeVersionOf = (row: Record<string, unknown>): VersionRow | null => {
  if (row.v_version_id == null) return null;
  const version: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row))
    if (key.startsWith('v_')) version[key.slice(2)] = value;
  return version as VersionRow;
};

export const flipbooks: ReadTable = {
  table: 'flipbooks',
  ddl: `CREATE TABLE IF NOT EXISTS flipbooks (
    flipbook_id UUID PRIMARY KEY,
    workspace_id UUID NOT NULL,
    title TEXT NOT NULL,
    slug TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL DEFAULT 'published',
    active_version_id UUID,
    download_allowed BOOLEAN NOT NULL DEFAULT TRUE,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
  );
  CREATE INDEX IF NOT EXISTS flipbooks_workspace_created ON flipbooks (workspace_id, created_at)`,
  handles: [
    'FlipbookCreated',
    'FlipbookDownloadChanged',
    'VersionUploaded',
    'VersionProcessed',
    'VersionProcessingFailed',
    'VersionActivated',
    'VersionDeleted',
  ],
  apply: async (db, event) => {
    if (event.type === 'FlipbookCreated') {
      const { flipbookId, workspaceId, title, slug, description, occurredAt } = event.data;
      await db.query(
        `INSERT INTO flipbooks (flipbook_id, workspace_id, title, slug, description, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $6) ON CONFLICT (flipbook_id) DO NOTHING`,
        [flipbookId, workspaceId, title, slug, description, occurredAt],
      );
      return;
    }
    if (event.type === 'FlipbookDownloadChanged') {
      await db.query(
        'UPDATE flipbooks SET download_allowed = $2, updated_at = GREATEST(updated_at, $3) WHERE flipbook_id = $1',
        [event.data.flipbookId, event.data.allowed, event.data.occurredAt],
      );
      return;
    }
    if (!('flipbookId' in event.data)) return;
    const activate = event.type === 'VersionActivated';
    await db.query(
      `UPDATE flipbooks SET updated_at = GREATEST(updated_at, $2),
         active_version_id = CASE WHEN $3 THEN $4::uuid ELSE active_version_id END
       WHERE flipbook_id = $1`,
      [
        event.data.flipbookId,
        event.data.occurredAt,
        activate,
        activate ? event.data.versionId : null,
      ],
    );
  },
};

export type FlipbookRow = {
  flipbook_id: string;
  workspace_id: string;
  title: string;
  slug: string;
  description: string;
  status: 'published' | 'archived';
  active_version_id: string | null;
  created_at: string;
  updated_at: string;
};

const flipbookColumns = `f.flipbook_id, f.workspace_id, f.title, f.slug, f.description, f.status,
  f.active_version_id, ${utc('f.created_at', 'created_at')}, ${utc('f.updated_at', 'updated_at')}`;

export const SORT_FIELDS = ['created_at', 'updated_at', 'title'] as const;
export type SortField = (typeof SORT_FIELDS)[number];

export type ListQuery = {
  page: number;
  perPage: number;
  search: string | null;
  status: 'published' | 'archived' | null;
  sort: SortField;
  dir: 'asc' | 'desc';
};

/** `%` and `_` in a search are the characters themselves, not LIKE wildcards. */
const likePattern = (search: string) => `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

// Sort keys come from a fixed list, never from the request text itself.
const ORDER: Record<SortField, string> = {
  created_at: 'f.created_at',
  updated_at: 'f.updated_at',
  title: 'lower(f.title)',
};

export const listFlipbooks = async (db: Db, workspaceId: string, q: ListQuery) => {
  const direction = q.dir === 'asc' ? 'ASC' : 'DESC';
  const { rows } = await db.query<
    FlipbookRow & { total: number; [active: `v_${string}`]: unknown }
  >(
    `SELECT ${flipbookColumns}, count(*) OVER ()::int AS total, ${versionColumns('v', 'v_')}
     FROM flipbooks f LEFT JOIN versions v ON v.version_id = f.active_version_id
     WHERE f.workspace_id = $1
       AND ($2::text IS NULL OR f.title ILIKE $2 ESCAPE '\\')
       AND ($3::text IS NULL OR f.status = $3)
     ORDER BY ${ORDER[q.sort]} ${direction}, f.flipbook_id ${direction}
     LIMIT $4 OFFSET $5`,
    [
      workspaceId,
      q.search === null ? null : likePattern(q.search),
      q.status,
      q.perPage,
      (q.page - 1) * q.perPage,
    ],
  );
  let total = rows[0]?.total;
  if (total === undefined) {
    // A page past the end has no rows to carry the total; count on its own.
    total = await countFlipbooks(db, workspaceId, q);
  }
  return { rows, total };
};

const countFlipbooks = async (
  db: Db,
  workspaceId: string,
  q: Pick<ListQuery, 'search' | 'status'>,
) =>
  Number(
    (
      await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM flipbooks f WHERE f.workspace_id = $1
         AND ($2::text IS NULL OR f.title ILIKE $2 ESCAPE '\\') AND ($3::text IS NULL OR f.status = $3)`,
        [workspaceId, q.search === null ? null : likePattern(q.search), q.status],
      )
    ).rows[0]?.n ?? 0,
  );

export const countWorkspaceFlipbooks = (db: Db, workspaceId: string) =>
  countFlipbooks(db, workspaceId, { search: null, status: null });

/** A flipbook, only if it belongs to the workspace: another workspace's id is simply not found. */
export const findFlipbook = async (db: Db, workspaceId: string, flipbookId: string) =>
  (
    await db.query<FlipbookRow>(
      `SELECT ${flipbookColumns} FROM flipbooks f WHERE f.flipbook_id = $1 AND f.workspace_id = $2`,
      [flipbookId, workspaceId],
    )
  ).rows[0] ?? null;
