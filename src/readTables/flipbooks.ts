// Read table `flipbooks`: one row per flipbook, with its active version for list queries.
import type { Visibility } from '../domain/flipbook/access.ts';
import { defaultTitleOf } from '../domain/flipbookFields.ts';
import { type FlipbookStatus, noteListChange, VERSION_EVENTS } from './flipbookCounts.ts';
import { queryRow } from './queryRows.ts';
import type { Db, ReadTable } from './readTable.ts';
import { utc } from './sql.ts';
import type { VersionRow } from './versions.ts';

/** The active version of a listed flipbook, when it has one. */
export const activeVersionOf = (row: Record<string, unknown>): VersionRow | null => {
  if (row.v_version_id == null) return null;
  const version: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row))
    if (key.startsWith('v_')) version[key.slice(2)] = value;
  return version as VersionRow;
};

/** A change to the rows an UPDATE returned, noted in their workspace's list stamps. */
const noted = async (db: Db, rows: { workspace_id: string }[], reordered: boolean) => {
  for (const row of rows) await noteListChange(db, row.workspace_id, { reordered });
};

export const flipbooks: ReadTable = {
  table: 'flipbooks',
  ddl: `CREATE TABLE IF NOT EXISTS flipbooks (
    flipbook_id UUID PRIMARY KEY,
    workspace_id UUID NOT NULL,
    title TEXT NOT NULL,
    -- the title is still the file name's (the reader shows the PDF's own); NULL only between an
    -- old FlipbookCreated (without titleFromFile) and its version 1, appended together
    title_from_file BOOLEAN,
    slug TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    -- 'ltr' or 'rtl'; NULL: auto (the PDF's own)
    direction TEXT,
    status TEXT NOT NULL DEFAULT 'published',
    active_version_id UUID,
    download_allowed BOOLEAN NOT NULL DEFAULT TRUE,
    -- who may read it: 'public', 'workspace' or 'links' (src/domain/flipbook/access.ts)
    visibility TEXT NOT NULL DEFAULT 'public',
    -- the sites that may frame its reader; empty: its visibility's default
    embed_origins TEXT[] NOT NULL DEFAULT '{}',
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    -- the title as the list sorts it: a column (not an expression index) so that a page can be
    -- found from the index alone
    title_key TEXT GENERATED ALWAYS AS (lower(title)) STORED
  );
  -- The list's orders, each with its tie-breaker, per workspace and per workspace and status: a
  -- page is read off one index (backwards for desc), never a sort of the workspace's rows.
  CREATE INDEX IF NOT EXISTS flipbooks_by_created ON flipbooks (workspace_id, created_at, flipbook_id);
  CREATE INDEX IF NOT EXISTS flipbooks_by_updated ON flipbooks (workspace_id, updated_at, flipbook_id);
  CREATE INDEX IF NOT EXISTS flipbooks_by_title ON flipbooks (workspace_id, title_key, flipbook_id);
  CREATE INDEX IF NOT EXISTS flipbooks_status_by_created
    ON flipbooks (workspace_id, status, created_at, flipbook_id);
  CREATE INDEX IF NOT EXISTS flipbooks_status_by_updated
    ON flipbooks (workspace_id, status, updated_at, flipbook_id);
  CREATE INDEX IF NOT EXISTS flipbooks_status_by_title
    ON flipbooks (workspace_id, status, title_key, flipbook_id);
  -- Substring search (ILIKE '%...%'): trigrams find the candidates, the ILIKE itself decides.
  CREATE EXTENSION IF NOT EXISTS pg_trgm;
  CREATE INDEX IF NOT EXISTS flipbooks_title_trigrams ON flipbooks USING gin (title gin_trgm_ops);
  CREATE INDEX IF NOT EXISTS flipbooks_workspace_slug ON flipbooks (workspace_id, slug)`,
  handles: [
    'FlipbookCreated',
    'FlipbookEdited',
    'FlipbookArchived',
    'FlipbookRestored',
    'FlipbookDeleted',
    'FlipbookDownloadChanged',
    'FlipbookVisibilityChanged',
    'FlipbookEmbedsChanged',
    ...VERSION_EVENTS,
  ],
  apply: async (db, event) => {
    if (event.type === 'FlipbookCreated') {
      const { flipbookId, workspaceId, title, slug, description, occurredAt } = event.data;
      const { rowCount } = await db.query(
        `INSERT INTO flipbooks (flipbook_id, workspace_id, title, title_from_file, slug,
           description, direction, visibility, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $9, $8, $8) ON CONFLICT (flipbook_id) DO NOTHING`,
        [
          flipbookId,
          workspaceId,
          title,
          event.data.titleFromFile ?? null,
          slug,
          description,
          event.data.direction ?? null,
          occurredAt,
          event.data.visibility ?? 'public',
        ],
      );
      if (rowCount) await noteListChange(db, workspaceId, { published: 1, reordered: true });
      return;
    }
    if (event.type === 'FlipbookEdited') {
      const { flipbookId, title, slug, description, direction, occurredAt } = event.data;
      // Only the fields the event names change (null: keep); a title given is a chosen one.
      const { rows } = await db.query<{ workspace_id: string }>(
        `UPDATE flipbooks SET title = coalesce($2, title),
           title_from_file = CASE WHEN $2::text IS NULL THEN title_from_file ELSE FALSE END,
           slug = coalesce($3, slug), description = coalesce($4, description),
           direction = CASE WHEN NOT $5 THEN direction ELSE $6 END,
           updated_at = GREATEST(updated_at, $7)
         WHERE flipbook_id = $1 RETURNING workspace_id`,
        [
          flipbookId,
          title ?? null,
          slug ?? null,
          description ?? null,
          direction !== undefined,
          direction === undefined || direction === 'auto' ? null : direction,
          occurredAt,
        ],
      );
      await noted(db, rows, title !== undefined);
      return;
    }
    if (event.type === 'VersionUploaded' && event.data.number === 1) {
      // Upcast of a FlipbookCreated from before `titleFromFile` (appended with this event): its
      // title was the file name's if it is what the file name makes of it today.
      await db.query(
        `UPDATE flipbooks SET title_from_file = coalesce(title = $2::text, FALSE)
         WHERE flipbook_id = $1 AND title_from_file IS NULL`,
        [event.data.flipbookId, defaultTitleOf(event.data.file.name)],
      );
    }
    if (event.type === 'FlipbookArchived' || event.type === 'FlipbookRestored') {
      const status: FlipbookStatus = event.type === 'FlipbookArchived' ? 'archived' : 'published';
      // The status it had, read under the row's lock, so the counts move only on a real change.
      const { rows } = await db.query<{ workspace_id: string; was: FlipbookStatus }>(
        `UPDATE flipbooks f SET status = $2, updated_at = GREATEST(f.updated_at, $3)
         FROM (SELECT flipbook_id, status FROM flipbooks WHERE flipbook_id = $1 FOR UPDATE) old
         WHERE f.flipbook_id = old.flipbook_id RETURNING f.workspace_id, old.status AS was`,
        [event.data.flipbookId, status, event.data.occurredAt],
      );
      const row = rows[0];
      if (row && row.was !== status) {
        await noteListChange(db, row.workspace_id, { [row.was]: -1, [status]: 1, reordered: true });
      } else {
        await noted(db, rows, false);
      }
      return;
    }
    if (event.type === 'FlipbookDeleted') {
      const { rows } = await db.query<{ workspace_id: string; status: FlipbookStatus }>(
        'DELETE FROM flipbooks WHERE flipbook_id = $1 RETURNING workspace_id, status',
        [event.data.flipbookId],
      );
      const row = rows[0];
      if (row) await noteListChange(db, row.workspace_id, { [row.status]: -1, reordered: true });
      return;
    }
    // Below, only updated_at and the like change: flipbookCounts.ts stamps those (last, see there).
    // One column each, set as the event says.
    const setting =
      event.type === 'FlipbookDownloadChanged'
        ? (['download_allowed', event.data.allowed, event.data] as const)
        : event.type === 'FlipbookVisibilityChanged'
          ? (['visibility', event.data.visibility, event.data] as const)
          : event.type === 'FlipbookEmbedsChanged'
            ? (['embed_origins', event.data.origins, event.data] as const)
            : null;
    if (setting) {
      await db.query(
        `UPDATE flipbooks SET ${setting[0]} = $2, updated_at = GREATEST(updated_at, $3) WHERE flipbook_id = $1`,
        [setting[2].flipbookId, setting[1], setting[2].occurredAt],
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
  /** null: auto */
  direction: 'ltr' | 'rtl' | null;
  status: 'published' | 'archived';
  active_version_id: string | null;
  visibility: Visibility;
  embed_origins: string[];
  /** readers may download it as a PDF (a share link may still say no) */
  download_allowed: boolean;
  created_at: string;
  updated_at: string;
};

export const flipbookColumns = `f.flipbook_id, f.workspace_id, f.title, f.slug, f.description, f.direction,
  f.status, f.active_version_id, f.visibility, f.embed_origins, f.download_allowed, ${utc('f.created_at', 'created_at')}, ${utc('f.updated_at', 'updated_at')}`;

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

/** A flipbook, only if it belongs to the workspace: another workspace's id is simply not found. */
export const findFlipbook = async (db: Db, workspaceId: string, flipbookId: string) =>
  queryRow<FlipbookRow>(
    db,
    `SELECT ${flipbookColumns} FROM flipbooks f WHERE f.flipbook_id = $1 AND f.workspace_id = $2`,
    [flipbookId, workspaceId],
  );

/** The flipbook with this slug in the workspace (the oldest, for slugs given before they were unique). */
export const findFlipbookBySlug = async (db: Db, workspaceId: string, slug: string) =>
  queryRow<FlipbookRow>(
    db,
    `SELECT ${flipbookColumns} FROM flipbooks f WHERE f.workspace_id = $1 AND f.slug = $2
       ORDER BY f.created_at, f.flipbook_id LIMIT 1`,
    [workspaceId, slug],
  );

/** Whether another flipbook of the workspace has this slug. */
export const slugTaken = async (db: Db, workspaceId: string, slug: string, except?: string) =>
  (
    await db.query(
      `SELECT 1 FROM flipbooks WHERE workspace_id = $1 AND slug = $2
         AND ($3::uuid IS NULL OR flipbook_id <> $3::uuid) LIMIT 1`,
      [workspaceId, slug, except ?? null],
    )
  ).rows.length > 0;

/** The workspace's slugs that are `base` or `base-<anything>`: what a new slug must avoid. */
export const slugsLike = async (db: Db, workspaceId: string, base: string) =>
  new Set(
    (
      await db.query<{ slug: string }>(
        `SELECT slug FROM flipbooks WHERE workspace_id = $1
           AND (slug = $2 OR starts_with(slug, $2 || '-'))`,
        [workspaceId, base],
      )
    ).rows.map((r) => r.slug),
  );
