// Read table `workspaces`: one row per workspace; the unique name is how the admin CLI finds one.
import { ANALYTICS_DAYS, type Plan } from '../src/domain/workspace/workspace.ts';
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
    analytics_days INTEGER NOT NULL DEFAULT ${ANALYTICS_DAYS}
  )`,
  handles: ['WorkspaceCreated', 'WorkspacePlanChanged', 'WorkspaceAnalyticsChanged'],
  apply: async (db, event) => {
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
  (await db.query<WorkspaceRow>(`SELECT ${columns} FROM workspaces ORDER BY name`)).rows;

export const findWorkspaceByName = async (db: Db, name: string) =>
  (await db.query<WorkspaceRow>(`SELECT ${columns} FROM workspaces WHERE name = $1`, [name]))
    .rows[0] ?? null;

export const findWorkspaceById = async (db: Db, id: string) =>
  (await db.query<WorkspaceRow>(`SELECT ${columns} FROM workspaces WHERE workspace_id = $1`, [id]))
    .rows[0] ?? null;
