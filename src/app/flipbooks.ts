// The Client API's flipbook reads and version operations, one function each: options in, plain
// results out (the uploads are ./uploads.ts). Every one is scoped to the caller's workspace:
// another workspace's flipbook is simply not found.

import type { DeleteResponse } from '../contract/common.ts';
import type { Flipbook, FlipbookList } from '../contract/flipbooks.ts';
import type { Activated, VersionStatus } from '../contract/versions.ts';
import { NotFound, RuleBroken } from '../domain/errors.ts';
import { listFlipbooks as queryFlipbooks } from '../queries/flipbookList.ts';
import {
  activeVersionOf,
  findFlipbook,
  findFlipbookBySlug,
  type ListQuery,
} from '../readTables/flipbooks.ts';
import { jobUnderWay } from '../readTables/jobs.ts';
import { countPages, listPages } from '../readTables/pages.ts';
import type { Db } from '../readTables/readTable.ts';
import { findVersion, flipbooksWithOnlyFailures, listVersions } from '../readTables/versions.ts';
import { findWorkspaceByName } from '../readTables/workspaces.ts';
import type { Store } from '../store/store.ts';
import type { ApiDeps } from './apiDeps.ts';
import type { Caller } from './caller.ts';
import { runFlipbookCommand } from './commands.ts';
import { everyVersionFailed, presentFlipbook, presentPage, presentStatus } from './present.ts';
import type { Urls } from './urls.ts';
import { removeVersionFiles } from './versionFiles.ts';

export const listFlipbooks = async (
  { store, urls }: ApiDeps,
  caller: Caller,
  query: ListQuery,
): Promise<FlipbookList> => {
  const { rows, total } = await queryFlipbooks(store.db, caller.workspaceId, query);
  const failed = await failedOf(store.db, rows);
  return {
    flipbooks: rows.map((row) => {
      const active = activeVersionOf(row);
      return presentFlipbook(urls, row, active ? [active] : [], failed.has(row.flipbook_id));
    }),
    page: query.page,
    per_page: query.perPage,
    total_pages: Math.ceil(total / query.perPage),
  };
};

/** Those of a page of the list that have nothing readable and nothing on its way. */
const failedOf = (db: Db, rows: Awaited<ReturnType<typeof queryFlipbooks>>['rows']) =>
  // Only those without an active version can be: one query for them, none for a page without.
  flipbooksWithOnlyFailures(
    db,
    rows.filter((row) => activeVersionOf(row) === null).map((row) => String(row.flipbook_id)),
  );

/** The list for people (the dashboard's grid): the same query, with each cover and page count. */
export const listFlipbookCards = async (
  { store, urls }: ApiDeps,
  caller: Caller,
  query: ListQuery,
) => {
  const { rows, total } = await queryFlipbooks(store.db, caller.workspaceId, query);
  const failed = await failedOf(store.db, rows);
  return {
    cards: rows.map((row) => {
      const active = activeVersionOf(row);
      const isFailed = failed.has(row.flipbook_id);
      return {
        flipbook: presentFlipbook(urls, row, active ? [active] : [], isFailed),
        /** no version could be processed: not published, whatever its status says */
        failed: isFailed,
        active: active
          ? {
              id: active.version_id,
              status: active.status,
              pageCount: active.page_count,
            }
          : null,
      };
    }),
    totalPages: Math.ceil(total / query.perPage),
  };
};

export const getFlipbook = ({ store, urls }: ApiDeps, caller: Caller, flipbookId: string) =>
  showFlipbook(store.db, urls, caller.workspaceId, flipbookId);

/** A flipbook with its versions and its active version's pages, from these tables (live or past). */
export const showFlipbook = async (
  db: Db,
  urls: Urls,
  workspaceId: string,
  flipbookId: string,
): Promise<Flipbook> => {
  const flipbook = await findFlipbook(db, workspaceId, flipbookId);
  if (!flipbook) throw new NotFound('Flipbook not found');
  const versions = await listVersions(db, flipbookId);
  const active = flipbook.active_version_id;
  const pages = active ? await listPages(db, active) : [];
  // A non-public book's images are the daemon's, which checks who asks (the CDN would not).
  const imageUrls = flipbook.visibility === 'public' ? urls : urls.onDaemon();
  return {
    ...presentFlipbook(urls, flipbook, versions, everyVersionFailed(versions)),
    pages: pages.map((p) => presentPage(imageUrls, active as string, p)),
  };
};

export const activateVersion = async (
  { store, clock }: ApiDeps,
  caller: Caller,
  flipbookId: string,
  versionId: string,
): Promise<Activated> => {
  await onVersion({ store, clock }, caller, flipbookId, versionId, 'ActivateVersion');
  return { success: true, active_version_id: versionId };
};

export const versionStatus = async (
  { store }: ApiDeps,
  caller: Caller,
  flipbookId: string,
  versionId: string,
): Promise<VersionStatus> => {
  const version = await requireVersion(store, caller, flipbookId, versionId);
  const ready = version.status === 'processing' ? await countPages(store.db, versionId) : 0;
  // An upload that is not a PDF, its PDF not made yet, its job held by a worker: converting.
  const converting =
    version.status === 'pending' &&
    version.pdf_checksum === null &&
    (await jobUnderWay(store.db, versionId));
  return presentStatus(version, ready, converting);
};

export const deleteVersion = async (
  { store, blobs, clock }: ApiDeps,
  caller: Caller,
  flipbookId: string,
  versionId: string,
): Promise<DeleteResponse> => {
  const version = await onVersion({ store, clock }, caller, flipbookId, versionId, 'DeleteVersion');
  // The event first, then the files: a crash in between leaves files nobody can reach, never a
  // live version without its files. A running render is told to stop at the event's commit.
  await removeVersionFiles(store, blobs, versionId, version);
  return { success: true };
};

/** A command on one version of the caller's (activate, delete): the version, once decided. */
const onVersion = async (
  { store, clock }: Pick<ApiDeps, 'store' | 'clock'>,
  caller: Caller,
  flipbookId: string,
  versionId: string,
  type: 'ActivateVersion' | 'DeleteVersion',
) => {
  const version = await requireVersion(store, caller, flipbookId, versionId);
  await runFlipbookCommand(
    store,
    flipbookId,
    { type, data: { versionId, now: clock.now() } },
    caller.metadata,
  );
  return version;
};

const requireVersion = async (
  store: Store,
  caller: Caller,
  flipbookId: string,
  versionId: string,
) => {
  const version = await findVersion(store.db, caller.workspaceId, flipbookId, versionId);
  if (!version) throw new NotFound('Version not found');
  return version;
};

export const slugInUse = (slug: string) =>
  new RuleBroken(`Slug "${slug}" is already used by another flipbook in this workspace`);

/**
 * The flipbook at a readable address (/w/<workspace>/<slug>): its id, or null when the workspace
 * or the slug is unknown (the reader then says so, as for any other unknown book).
 */
export const bookAtAddress = async (db: Db, workspaceName: string, slug: string) => {
  const workspace = await findWorkspaceByName(db, workspaceName);
  const found = workspace ? await findFlipbookBySlug(db, workspace.id, slug) : null;
  return found ? found.flipbook_id : null;
};

/** A workspace's flipbook's title, or undefined when it has no such flipbook. */
export const flipbookTitle = async (db: Db, workspaceId: string, flipbookId: string) =>
  (await findFlipbook(db, workspaceId, flipbookId))?.title;
