// A document's pages against its workspace's plan, where processing first knows them: a converted
// upload's (a 300-slide deck on a 200-page plan fails in the words a PDF gets at upload).
import { checkPageCount } from '../domain/plans.ts';
import { RenderFailure, type TooManyPages } from '../pdf/renderFailure.ts';
import { findWorkspaceById } from '../readTables/workspaces.ts';
import type { Store } from '../store/store.ts';

/** The workspace's plan takes this many pages, or a RenderFailure says it does not. */
export const withinPlan = async (db: Store['db'], workspaceId: string, pages: number) => {
  const workspace = await findWorkspaceById(db, workspaceId);
  if (!workspace) return;
  try {
    checkPageCount(workspace.plan, pages);
  } catch (error) {
    throw new RenderFailure((error as Error).message);
  }
};

/**
 * Over what this service renders (--max-pages, met before the plan is asked): the plan's words
 * instead, when its limit is what was passed.
 */
export const inPlanWords = async (db: Store['db'], workspaceId: string, error: TooManyPages) => {
  await withinPlan(db, workspaceId, error.pages).catch((refusal: RenderFailure) => {
    error.message = refusal.message;
  });
};
