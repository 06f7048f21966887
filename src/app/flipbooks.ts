// The Client API's use cases, one function each: options in, plain results out. Every one is
// scoped to the caller's workspace: another workspace's flipbook is simply not found.
import { randomUUID } from 'node:crypto';
import { countWorkspaceFlipbooks } from '../../projections/flipbookCounts.ts';
import { listFlipbooks as queryFlipbooks } from '../../projections/flipbookList.ts';
import {
  activeVersionOf,
  findFlipbook,
  findFlipbookBySlug,
  type ListQuery,
  slugsLike,
  slugTaken,
} from '../../projections/flipbooks.ts';
import type { IdempotentUpload } from '../../projections/idempotentUploads.ts';
import { countPages, listPages } from '../../projections/pages.ts';
import type { Db } from '../../projections/readTable.ts';
import {
  countVersions,
  findVersion,
  flipbooksWithOnlyFailures,
  listVersions,
} from '../../projections/versions.ts';
import type { DeleteResponse } from '../contract/common.ts';
import type { Created, Flipbook, FlipbookList, PublishedToSlug } from '../contract/flipbooks.ts';
import type { Activated, CreatedVersion, VersionStatus } from '../contract/versions.ts';
import { parseActivateFlag } from '../domain/activateFlag.ts';
import { NotFound, RuleBroken } from '../domain/errors.ts';
import { visibility } from '../domain/flipbook/access.ts';
import type { FlipbookCommand } from '../domain/flipbook/decide.ts';
import * as fields from '../domain/flipbookFields.ts';
import { checkFlipbookCount, checkVersionCount } from '../domain/plans.ts';
import { slugify } from '../domain/slug.ts';
import type { Store } from '../store/store.ts';
import type { ApiDeps } from './apiDeps.ts';
import type { Caller } from './caller.ts';
import { runFlipbookCommand } from './commands.ts';
import { estimateSeconds } from './estimate.ts';
import type { UploadOptions } from './idempotentUploads.ts';
import { everyVersionFailed, presentFlipbook, presentPage, presentStatus } from './present.ts';
import type { ReceivedUpload } from './received.ts';
import { runUpload } from './uploadPipeline.ts';
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

/**
 * The fields of an upload that makes a flipbook, each checked by the domain's rules in the order
 * the form has them (the first bad one is the one named); the slug only when the form gives it.
 */
const newBookFields = ({ fields: given }: ReceivedUpload, withSlug: boolean) => {
  const title = cleanTitle(given.title);
  const description = given.description === undefined ? '' : fields.description(given.description);
  const askedSlug = withSlug && given.slug !== undefined ? fields.slug(given.slug) : null;
  const direction = given.direction === undefined ? 'auto' : fields.direction(given.direction);
  const readers =
    given.visibility === undefined ? 'public' : visibility(given.visibility.trim().toLowerCase());
  return { title, description, askedSlug, direction, readers };
};

export const createFlipbook = (
  deps: ApiDeps,
  caller: Caller,
  upload: ReceivedUpload,
  options: UploadOptions = {},
): Promise<Created> => {
  const { store } = deps;
  const countBooks = async () =>
    checkFlipbookCount(caller.plan, await countWorkspaceFlipbooks(store.db, caller.workspaceId));
  // Read once the key is known not to be a replay (a replay answers whatever the form says).
  let book: ReturnType<typeof newBookFields>;
  return runUpload(deps, caller, upload, options, {
    operation: 'create',
    target: null,
    remake: (prior) => remadeCreated(store.db, caller, prior),
    before: async () => {
      book = newBookFields(upload, true);
      await countBooks();
    },
    decide: async (file) => {
      const { title, description, askedSlug, direction, readers } = book;
      // Simultaneous creates see each other's flipbooks here: exactly the limit succeed.
      await countBooks();
      // Slugs are unique in a workspace: one asked for must be free; one made from the title
      // takes the first free of title, title-2, title-3...
      if (askedSlug && (await slugTaken(store.db, caller.workspaceId, askedSlug))) {
        throw slugInUse(askedSlug);
      }
      const finalTitle = title ?? fields.defaultTitle(file.name);
      const base = slugify(finalTitle);
      const slug =
        askedSlug ?? fields.freeSlug(base, await slugsLike(store.db, caller.workspaceId, base));
      const flipbookId = randomUUID();
      const versionId = randomUUID();
      return {
        flipbookId,
        versionId,
        title: finalTitle,
        command: (uploaded, at) => ({
          type: 'CreateFlipbook',
          data: {
            flipbookId,
            workspaceId: caller.workspaceId,
            title: finalTitle,
            titleFromFile: title === null,
            slug,
            description,
            direction,
            visibility: readers,
            versionId,
            file: uploaded,
            now: at,
          },
        }),
      };
    },
    answer: (decided, { file, at, estimatedSeconds }) => ({
      flipbook_id: decided.flipbookId,
      version_id: decided.versionId,
      title: decided.title,
      status: 'pending',
      file_size: file.size,
      estimated_seconds: estimatedSeconds,
      created_at_unix: Math.floor(at.getTime() / 1000),
    }),
  });
};

export const addVersion = async (
  deps: ApiDeps,
  caller: Caller,
  flipbookId: string,
  upload: ReceivedUpload,
  options: UploadOptions = {},
): Promise<CreatedVersion> => {
  const { store } = deps;
  const countVersionsOf = async () =>
    checkVersionCount(caller.plan, await countVersions(store.db, flipbookId));
  let activateOnDone = true;
  return runUpload(deps, caller, upload, options, {
    operation: 'version',
    target: flipbookId,
    remake: (prior) => remadeVersion(store.db, caller, prior),
    before: async () => {
      if (!(await findFlipbook(store.db, caller.workspaceId, flipbookId))) {
        throw new NotFound('Flipbook not found');
      }
      activateOnDone = parseActivateFlag(upload.fields.activate);
      await countVersionsOf();
    },
    decide: async () => {
      await countVersionsOf();
      const versionId = randomUUID();
      return {
        flipbookId,
        versionId,
        command: (file, at) => ({
          type: 'UploadVersion',
          data: { versionId, file, activateOnDone, now: at },
        }),
      };
    },
    answer: (decided, { file, at, estimatedSeconds }) => ({
      version_id: decided.versionId,
      version_status: 'pending',
      activate_on_done: activateOnDone,
      file_size: file.size,
      estimated_seconds: estimatedSeconds,
      created_at_unix: Math.floor(at.getTime() / 1000),
    }),
  });
};

/**
 * Publishes to a slug (beyond the spec; docs/api.md): the workspace's flipbook with that slug
 * gets a new version, made active once processed, or, when it has none, a new flipbook is made
 * with that slug. Decided under the workspace's lock, so two pipelines publishing one new slug
 * at once end with one flipbook and two versions: the reader's URL never changes.
 */
export const publishToSlug = async (
  deps: ApiDeps,
  caller: Caller,
  slugText: string,
  upload: ReceivedUpload,
  options: UploadOptions = {},
): Promise<PublishedToSlug> => {
  const { store } = deps;
  const slug = fields.slug(slugText);
  let book: ReturnType<typeof newBookFields>;
  return runUpload(deps, caller, upload, options, {
    operation: 'slug',
    target: slug,
    remake: async (prior) => {
      const created = await remadeCreated(store.db, caller, prior);
      const version = await findVersion(
        store.db,
        caller.workspaceId,
        prior.flipbook_id,
        prior.version_id,
      );
      return {
        ...created,
        slug,
        created: (version?.number ?? 1) === 1,
        activate_on_done: true,
      };
    },
    before: async () => {
      book = newBookFields(upload, false);
    },
    decide: async (file) => {
      const { title, description, direction, readers } = book;
      const existing = await findFlipbookBySlug(store.db, caller.workspaceId, slug);
      if (existing?.status === 'archived') {
        throw new RuleBroken(
          `The flipbook ${slug} is archived: unarchive it (flipbook unarchive ${existing.flipbook_id}) to publish to it`,
        );
      }
      if (existing) {
        checkVersionCount(caller.plan, await countVersions(store.db, existing.flipbook_id));
      } else {
        checkFlipbookCount(
          caller.plan,
          await countWorkspaceFlipbooks(store.db, caller.workspaceId),
        );
      }
      const versionId = randomUUID();
      const flipbookId = existing?.flipbook_id ?? randomUUID();
      const finalTitle = existing?.title ?? title ?? fields.defaultTitle(file.name);
      return {
        flipbookId,
        versionId,
        created: !existing,
        title: finalTitle,
        command: (uploaded, at): FlipbookCommand =>
          existing
            ? {
                type: 'UploadVersion',
                data: { versionId, file: uploaded, activateOnDone: true, now: at },
              }
            : {
                type: 'CreateFlipbook',
                data: {
                  flipbookId,
                  workspaceId: caller.workspaceId,
                  title: finalTitle,
                  titleFromFile: title === null,
                  slug,
                  description,
                  direction,
                  visibility: readers,
                  versionId,
                  file: uploaded,
                  now: at,
                },
              },
      };
    },
    answer: (decided, { file, at, estimatedSeconds }) => ({
      flipbook_id: decided.flipbookId,
      version_id: decided.versionId,
      slug,
      created: decided.created,
      title: decided.title,
      status: 'pending',
      activate_on_done: true,
      file_size: file.size,
      estimated_seconds: estimatedSeconds,
      created_at_unix: Math.floor(at.getTime() / 1000),
    }),
  });
};

/** A create's answer, made again from the read tables (its own was lost with a crash). */
const remadeCreated = async (db: Db, caller: Caller, prior: IdempotentUpload): Promise<Created> => {
  const version = await findVersion(db, caller.workspaceId, prior.flipbook_id, prior.version_id);
  const book = await findFlipbook(db, caller.workspaceId, prior.flipbook_id);
  return {
    flipbook_id: prior.flipbook_id,
    version_id: prior.version_id,
    title: book?.title ?? '',
    status: 'pending',
    file_size: Number(version?.file_size ?? 0),
    estimated_seconds: await estimateSeconds(db, null),
    created_at_unix: Math.floor(Date.parse(prior.created_at) / 1000),
  };
};

/** A new version's answer, made again from the read tables. */
const remadeVersion = async (
  db: Db,
  caller: Caller,
  prior: IdempotentUpload,
): Promise<CreatedVersion> => {
  const version = await findVersion(db, caller.workspaceId, prior.flipbook_id, prior.version_id);
  return {
    version_id: prior.version_id,
    version_status: 'pending',
    activate_on_done: version?.activate_on_done ?? true,
    file_size: Number(version?.file_size ?? 0),
    estimated_seconds: await estimateSeconds(db, null),
    created_at_unix: Math.floor(Date.parse(prior.created_at) / 1000),
  };
};

export const activateVersion = async (
  { store, clock }: ApiDeps,
  caller: Caller,
  flipbookId: string,
  versionId: string,
): Promise<Activated> => {
  await requireVersion(store, caller, flipbookId, versionId);
  await runFlipbookCommand(
    store,
    flipbookId,
    {
      type: 'ActivateVersion',
      data: { versionId, now: clock.now() },
    },
    caller.metadata,
  );
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
  return presentStatus(version, ready);
};

export const deleteVersion = async (
  { store, blobs, clock }: ApiDeps,
  caller: Caller,
  flipbookId: string,
  versionId: string,
): Promise<DeleteResponse> => {
  const version = await requireVersion(store, caller, flipbookId, versionId);
  await runFlipbookCommand(
    store,
    flipbookId,
    {
      type: 'DeleteVersion',
      data: { versionId, now: clock.now() },
    },
    caller.metadata,
  );
  // The event first, then the files: a crash in between leaves files nobody can reach, never a
  // live version without its files. A running render is told to stop at the event's commit.
  await removeVersionFiles(store, blobs, versionId, version.checksum);
  return { success: true };
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

/** The title field, trimmed; absent or blank means "use the file name". */
const cleanTitle = (raw: string | undefined) => {
  if (!raw?.trim()) return null;
  return fields.title(raw);
};
