// Where an upload to a slug goes (a publish to it, a preview of it): decided under the workspace's
// lock by the uploads that take a slug (./uploads.ts, ./previews.ts).
import { RuleBroken } from '../domain/errors.ts';
import { checkFlipbookCount, checkVersionCount } from '../domain/plans.ts';
import { countWorkspaceFlipbooks } from '../readTables/flipbookCounts.ts';
import { findFlipbookBySlug } from '../readTables/flipbooks.ts';
import { countVersions } from '../readTables/versions.ts';
import type { ApiDeps } from './apiDeps.ts';
import type { Caller } from './caller.ts';

/**
 * Under the workspace's lock, where an upload to a slug goes: the workspace's flipbook with that
 * slug (refused while archived, in words saying what to do first) or none (a new flipbook), with
 * the plan's count that the upload adds to checked.
 */
export const slugTarget = async (
  { store }: ApiDeps,
  caller: Caller,
  slug: string,
  toDo: string,
) => {
  const existing = await findFlipbookBySlug(store.db, caller.workspaceId, slug);
  if (existing?.status === 'archived') {
    throw new RuleBroken(
      `The flipbook ${slug} is archived: unarchive it (flipbook unarchive ${existing.flipbook_id}) to ${toDo}`,
    );
  }
  if (existing) {
    checkVersionCount(caller.plan, await countVersions(store.db, existing.flipbook_id));
  } else {
    checkFlipbookCount(caller.plan, await countWorkspaceFlipbooks(store.db, caller.workspaceId));
  }
  return existing;
};
