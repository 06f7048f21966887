// Managing a flipbook after its creation (beyond the spec; docs/api.md): edit its title, slug,
// description, reading direction, status and downloads in one change, and delete it for good.
// Every change is an event with its actor; workspace isolation as everywhere (another
// workspace's id is not found).

import type { DeleteResponse } from '../contract/common.ts';
import type { Flipbook, FlipbookEdits } from '../contract/flipbooks.ts';
import { NotFound } from '../domain/errors.ts';
import { findFlipbook, slugTaken } from '../readTables/flipbooks.ts';
import { listVersions } from '../readTables/versions.ts';
import type { ApiDeps } from './apiDeps.ts';
import type { Caller } from './caller.ts';
import { runFlipbookCommand } from './commands.ts';
import { showFlipbook, slugInUse } from './flipbooks.ts';
import { removeVersionFiles } from './versionFiles.ts';

export const editFlipbook = async (
  deps: ApiDeps,
  caller: Caller,
  flipbookId: string,
  /** the contract's PATCH body, each field already valid on its own (see flipbookFields.ts) */
  edits: FlipbookEdits,
): Promise<Flipbook> => {
  const { store } = deps;
  if (!(await findFlipbook(store.db, caller.workspaceId, flipbookId))) {
    throw new NotFound('Flipbook not found');
  }
  const change = async () => {
    await runFlipbookCommand(
      store,
      flipbookId,
      {
        type: 'EditFlipbook',
        data: {
          title: edits.title,
          slug: edits.slug,
          description: edits.description,
          direction: edits.direction,
          archived: edits.status === undefined ? undefined : edits.status === 'archived',
          downloadAllowed: edits.allow_download,
          visibility: edits.visibility,
          embedOrigins: edits.embed_origins,
          now: deps.clock.now(),
        },
      },
      caller.metadata,
    );
  };
  if (edits.slug === undefined) await change();
  else {
    // Unique in the workspace: checked and taken under the workspace's lock, like quotas.
    const slug = edits.slug;
    await store.locks.workspace(caller.workspaceId, async () => {
      if (await slugTaken(store.db, caller.workspaceId, slug, flipbookId)) throw slugInUse(slug);
      await change();
    });
  }
  return showFlipbook(store.db, deps.urls, caller.workspaceId, flipbookId);
};

export const deleteFlipbook = async (
  deps: ApiDeps,
  caller: Caller,
  flipbookId: string,
): Promise<DeleteResponse> => {
  const { store, blobs } = deps;
  if (!(await findFlipbook(store.db, caller.workspaceId, flipbookId))) {
    throw new NotFound('Flipbook not found');
  }
  // The event first (its projections drop the rows and stop running renders at commit), then
  // the files; under the workspace's lock, so a quota count never sees it half gone. The versions
  // are listed under the lock too: an upload appends its version under the same lock, so none
  // can slip in between the list and the deletion and keep its original.
  const versions = await store.locks.workspace(caller.workspaceId, async () => {
    const listed = await listVersions(store.db, flipbookId);
    await runFlipbookCommand(
      store,
      flipbookId,
      { type: 'DeleteFlipbook', data: { now: deps.clock.now() } },
      caller.metadata,
    );
    return listed;
  });
  // The deletion is recorded: files are best effort. Once the database stops answering, the
  // originals are left to the sweep (each would wait out its own timeout), the pages still go.
  let originals = true;
  for (const version of versions) {
    const dropped = await removeVersionFiles(store, blobs, version.version_id, version, originals);
    if (dropped === 'left') originals = false;
  }
  return { success: true };
};
