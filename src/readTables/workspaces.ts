// Read table `workspaces`: one row per workspace; the unique name is how the admin CLI finds one.
import { ANALYTICS_DAYS, type Plan } from '../domain/workspace/workspace.ts';
import { queryRow, queryRows } from './queryRows.ts';
import type { Db, ReadTable } from './readTable.ts';
import { utc } from './sql.ts';

export const workspaces: ReadTable = {
  table: 'workspaces',
  ddl: `CREATE TABLE IF NOT EXISTS workspaces (
    workspace_id UUID PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    plan TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    analytics_enabled BOOLEAN NOT NULL DEFAULT TRUE,
    analytics_days INTEGER NOT NULL DEFAULT ${ANALYTICS_DAYS},
    brand_accent TEXT,
    brand_background TEXT,
    brand_logo BYTEA,
    brand_logo_width INTEGER,
    brand_logo_height INTEGER,
    -- a hash of the branding: the name its stylesheet and logo are served under (immutable)
    brand_key TEXT
  );
  CREATE INDEX IF NOT EXISTS workspaces_brand_key ON workspaces (brand_key)`,
  handles: [
    'WorkspaceCreated',
    'WorkspacePlanChanged',
    'WorkspaceAnalyticsChanged',
    'WorkspaceBrandingChanged',
  ],
  apply: async (db, event) => {
    if (event.type === 'WorkspaceBrandingChanged') {
      const { workspaceId, accent, background, logo } = event.data;
      const keepLogo = logo === undefined;
      await db.query(
        `UPDATE workspaces SET brand_accent = $2, brand_background = $3,
           brand_logo = CASE WHEN $4 THEN brand_logo ELSE decode($5, 'base64') END,
           brand_logo_width = CASE WHEN $4 THEN brand_logo_width ELSE $6 END,
           brand_logo_height = CASE WHEN $4 THEN brand_logo_height ELSE $7 END
         WHERE workspace_id = $1`,
        [
          workspaceId,
          accent,
          background,
          keepLogo,
          logo?.data ?? null,
          logo?.width ?? null,
          logo?.height ?? null,
        ],
      );
      await db.query(
        `UPDATE workspaces SET brand_key = CASE
           WHEN brand_accent IS NULL AND brand_background IS NULL AND brand_logo IS NULL THEN NULL
           ELSE substr(encode(sha256(convert_to(concat_ws('|', brand_accent, brand_background), 'UTF8')
             || coalesce(brand_logo, ''::bytea)), 'hex'), 1, 20) END
         WHERE workspace_id = $1`,
        [workspaceId],
      );
      return;
    }
    if (event.type === 'WorkspaceAnalyticsChanged') {
      const { workspaceId, enabled, retentionDays } = event.data;
      await db.query(
        'UPDATE workspaces SET analytics_enabled = $2, analytics_days = $3 WHERE workspace_id = $1',
        [workspaceId, enabled, retentionDays],
      );
      return;
    }
    if (event.type === 'WorkspacePlanChanged') {
      await db.query('UPDATE workspaces SET plan = $2 WHERE workspace_id = $1', [
        event.data.workspaceId,
        event.data.plan,
      ]);
      return;
    }
    if (event.type !== 'WorkspaceCreated') return;
    const { workspaceId, name, plan, occurredAt } = event.data;
    // No ON CONFLICT on name: a duplicate name must fail the append (names are unique).
    await db.query(
      `INSERT INTO workspaces (workspace_id, name, plan, created_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (workspace_id) DO NOTHING`,
      [workspaceId, name, plan, occurredAt],
    );
  },
};

export type WorkspaceRow = {
  id: string;
  name: string;
  plan: Plan;
  created_at: string;
  analytics_enabled: boolean;
  analytics_days: number;
};

const columns = `workspace_id AS id, name, plan, ${utc('created_at')}, analytics_enabled, analytics_days`;

export const listWorkspaces = async (db: Db) =>
  queryRows<WorkspaceRow>(db, `SELECT ${columns} FROM workspaces ORDER BY name`);

export const findWorkspaceByName = async (db: Db, name: string) =>
  queryRow<WorkspaceRow>(db, `SELECT ${columns} FROM workspaces WHERE name = $1`, [name]);

export const findWorkspaceById = async (db: Db, id: string) =>
  queryRow<WorkspaceRow>(db, `SELECT ${columns} FROM workspaces WHERE workspace_id = $1`, [id]);

/** A workspace's branding as the reader shows it; null when it has none. */
export type BrandRow = {
  key: string;
  accent: string | null;
  background: string | null;
  logo: Buffer | null;
  logo_width: number | null;
  logo_height: number | null;
};

const brandColumns = `brand_key AS key, brand_accent AS accent, brand_background AS background,
  brand_logo AS logo, brand_logo_width AS logo_width, brand_logo_height AS logo_height`;

export const findBrandOf = async (db: Db, workspaceId: string) =>
  queryRow<BrandRow>(
    db,
    `SELECT ${brandColumns} FROM workspaces WHERE workspace_id = $1 AND brand_key IS NOT NULL`,
    [workspaceId],
  );

/** The branding served under `key` (any workspace's: the key is a hash of what it holds). */
export const findBrandByKey = async (db: Db, key: string) =>
  queryRow<BrandRow>(db, `SELECT ${brandColumns} FROM workspaces WHERE brand_key = $1 LIMIT 1`, [
    key,
  ]);
