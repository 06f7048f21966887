// Workspace administration: create and list. Used by the admin CLI.
import { randomUUID } from 'node:crypto';
import { Conflict, InvalidInput, NotFound } from '../domain/errors.ts';
import { ANALYTICS_DAYS, PLANS, type Plan } from '../domain/workspace/workspace.ts';
import type { Db } from '../readTables/readTable.ts';
import {
  findWorkspaceById,
  findWorkspaceByName,
  listWorkspaces as queryWorkspaces,
} from '../readTables/workspaces.ts';
import { isUniqueViolation } from '../store/handleCommand.ts';
import type { Store } from '../store/store.ts';
import { runWorkspaceCommand } from './commands.ts';
import type { EventMetadata } from './eventContext.ts';

const MAX_NAME = 100;

export const createWorkspace = async (
  store: Store,
  input: { name: string; plan: string },
  metadata: EventMetadata,
  now: Date,
) => {
  const name = input.name.trim();
  if (name.length === 0 || name.length > MAX_NAME) {
    throw new InvalidInput(`Workspace name must be 1 to ${MAX_NAME} characters`);
  }
  const plan = parsePlan(input.plan);
  if (await findWorkspaceByName(store.db, name)) {
    throw new Conflict(`A workspace named "${name}" already exists`);
  }
  const workspaceId = randomUUID();
  try {
    await runWorkspaceCommand(
      store,
      workspaceId,
      { type: 'CreateWorkspace', data: { workspaceId, name, plan, now } },
      metadata,
    );
  } catch (error) {
    // Two creators raced past the check above; the unique name in the read table refused one.
    if (isUniqueViolation(error)) throw new Conflict(`A workspace named "${name}" already exists`);
    throw error;
  }
  return { id: workspaceId, name, plan };
};

export const changePlan = async (
  store: Store,
  input: { name: string; plan: string },
  metadata: EventMetadata,
  now: Date,
) => {
  const workspace = await requireWorkspace(store, input.name);
  const plan = parsePlan(input.plan);
  await runWorkspaceCommand(
    store,
    workspace.id,
    { type: 'ChangePlan', data: { plan, now } },
    metadata,
  );
  return { id: workspace.id, name: workspace.name, plan };
};

const parsePlan = (plan: string): Plan => {
  if (!PLANS.includes(plan as Plan)) {
    throw new InvalidInput(`Unknown plan "${plan}": use one of ${PLANS.join(', ')}`);
  }
  return plan as Plan;
};

export const listWorkspaces = (store: Store) => queryWorkspaces(store.db);

export const requireWorkspace = async (store: Store, name: string) => {
  const workspace = await findWorkspaceByName(store.db, name);
  if (!workspace) throw new NotFound(`No workspace named "${name}"`);
  return workspace;
};

/**
 * Reader analytics for a workspace: on or off, and how many days of daily figures are kept
 * (docs/privacy.md). Off stops counting at once; figures already kept stay until their days pass.
 */
export const setAnalytics = async (
  store: Store,
  workspaceId: string,
  input: { enabled: boolean; retentionDays: number },
  metadata: EventMetadata,
  now: Date,
) => {
  await runWorkspaceCommand(
    store,
    workspaceId,
    { type: 'SetAnalytics', data: { ...input, now } },
    metadata,
  );
};

/** Whether a workspace counts readers, and for how many days it keeps the figures. */
export const analyticsSettings = async (db: Db, workspaceId: string) => {
  const row = await findWorkspaceById(db, workspaceId);
  return {
    enabled: row?.analytics_enabled ?? true,
    retentionDays: row?.analytics_days ?? ANALYTICS_DAYS,
  };
};
