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
import type { BlobStore } from '../blobs/blobStore.ts';
import type { DeleteResponse } from '../contract/common.ts';
import type { Created, Flipbook, FlipbookList, PublishedToSlug } from '../contract/flipbooks.ts';
import type { Activated, CreatedVersion, VersionStatus } from '../contract/versions.ts';
import { parseActivateFlag } from '../domain/activateFlag.ts';
import { NotFound, RuleBroken } from '../domain/errors.ts';
import { visibility } from '../domain/flipbook/access.ts';
import * as fields from '../domain/flipbookFields.ts';
import { checkFlipbookCount, checkVersionCount } from '../domain/plans.ts';
import { slugify } from '../domain/slug.ts';
import type { Store } from '../store/store.ts';
import { acceptPdf } from './acceptUpload.ts';
import type { Caller } from './caller.ts';
import type { Clock } from './clock.ts';
import { runFlipbookCommand } from './commands.ts';
import { estimateSeconds } from './estimate.ts';
import {
  idempotencyOf,
  keepAnswer,
  priorAnswer,
  type UploadOptions,
  withKey,
} from './idempotentUploads.ts';
import { everyVersionFailed, presentFlipbook, presentPage, presentStatus } from './present.ts';
import type { ReceivedUpload } from './received.ts';
import type { Urls } from './urls.ts';
import { removeVersionFiles, withStoredOriginal } from './versionFiles.ts';

/** What the flipbook use cases stand on; the clock dates every event they record. */
export type ApiDeps = { store: Store; blobs: BlobStore; urls: Urls; clock: Clock };

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

export const createFlipbook = async (
  deps: ApiDeps,
  caller: Caller,
  upload: ReceivedUpload,
  options: UploadOptions = {},
): Promise<Created> => {
  const { store } = deps;
  const idempotency = idempotencyOf(options, deps.clock.now(), 'create', null, upload);
  const remake = (prior: IdempotentUpload) => remadeCreated(store.db, caller, prior);
  const first = await priorAnswer(store.db, caller, idempotency, remake);
  if (first) return replayed(options, first);
  const { title, description, askedSlug, direction, readers } = newBookFields(upload, true);
  // A quick refusal before the slow inspection; the count that decides is taken under the lock.
  checkFlipbookCount(caller.plan, await countWorkspaceFlipbooks(store.db, caller.workspaceId));
  const { file, pages, ref } = await acceptPdf(caller.plan, upload.file);
  const flipbookId = randomUUID();
  const versionId = randomUUID();
  const finalTitle = title ?? fields.defaultTitle(file.name);
  let slug = '';
  // Count, commit and append under the workspace's lock, so simultaneous creates (in this
  // process or any other on the database) see each other's flipbooks: exactly the limit succeed.
  // The same key sent twice at once: the second finds the first's upload under the lock.
  const done = await withStoredOriginal(store, deps.blobs, file.checksum, (stored) =>
    store.locks.workspace(caller.workspaceId, async () => {
      const again = await priorAnswer(store.db, caller, idempotency, remake);
      if (again) return { kind: 'again' as const, answer: again };
      checkFlipbookCount(caller.plan, await countWorkspaceFlipbooks(store.db, caller.workspaceId));
      // Slugs are unique in a workspace: one asked for must be free; one made from the title
      // takes the first free of title, title-2, title-3...
      if (askedSlug && (await slugTaken(store.db, caller.workspaceId, askedSlug))) {
        throw slugInUse(askedSlug);
      }
      const base = slugify(finalTitle);
      slug =
        askedSlug ?? fields.freeSlug(base, await slugsLike(store.db, caller.workspaceId, base));
      await deps.blobs.commitOriginal(ref, file.checksum);
      stored();
      const at = deps.clock.now();
      await runFlipbookCommand(
        store,
        flipbookId,
        {
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
            file,
            now: at,
          },
        },
        withKey(caller.metadata, idempotency),
      );
      return { kind: 'made' as const, at };
    }),
  );
  if (done.kind === 'again') return replayed(options, done.answer);
  const answer: Created = {
    flipbook_id: flipbookId,
    version_id: versionId,
    title: finalTitle,
    status: 'pending',
    file_size: file.size,
    estimated_seconds: await estimateSeconds(store.db, pages),
    created_at_unix: Math.floor(done.at.getTime() / 1000),
  };
  await keepAnswer(store.db, caller, idempotency, versionId, answer);
  return answer;
};

export const addVersion = async (
  deps: ApiDeps,
  caller: Caller,
  flipbookId: string,
  upload: ReceivedUpload,
  options: UploadOptions = {},
): Promise<CreatedVersion> => {
  const { store } = deps;
  const idempotency = idempotencyOf(options, deps.clock.now(), 'version', flipbookId, upload);
  const remake = (prior: IdempotentUpload) => remadeVersion(store.db, caller, prior);
  const first = await priorAnswer(store.db, caller, idempotency, remake);
  if (first) return replayed(options, first);
  if (!(await findFlipbook(store.db, caller.workspaceId, flipbookId))) {
    throw new NotFound('Flipbook not found');
  }
  const activateOnDone = parseActivateFlag(upload.fields.activate);
  // A quick refusal before the slow inspection; the count that decides is taken under the lock.
  checkVersionCount(caller.plan, await countVersions(store.db, flipbookId));
  const { file, pages, ref } = await acceptPdf(caller.plan, upload.file);
  const versionId = randomUUID();
  // The workspace's lock (not the flipbook's): one lock guards every quota of the workspace.
  const done = await withStoredOriginal(store, deps.blobs, file.checksum, (stored) =>
    store.locks.workspace(caller.workspaceId, async () => {
      const again = await priorAnswer(store.db, caller, idempotency, remake);
      if (again) return { kind: 'again' as const, answer: again };
      checkVersionCount(caller.plan, await countVersions(store.db, flipbookId));
      await deps.blobs.commitOriginal(ref, file.checksum);
      stored();
      const at = deps.clock.now();
      await runFlipbookCommand(
        store,
        flipbookId,
        {
          type: 'UploadVersion',
          data: { versionId, file, activateOnDone, now: at },
        },
        withKey(caller.metadata, idempotency),
      );
      return { kind: 'made' as const, at };
    }),
  );
  if (done.kind === 'again') return replayed(options, done.answer);
  const answer: CreatedVersion = {
    version_id: versionId,
    version_status: 'pending',
    activate_on_done: activateOnDone,
    file_size: file.size,
    estimated_seconds: await estimateSeconds(store.db, pages),
    created_at_unix: Math.floor(done.at.getTime() / 1000),
  };
  await keepAnswer(store.db, caller, idempotency, versionId, answer);
  return answer;
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
  const idempotency = idempotencyOf(options, deps.clock.now(), 'slug', slug, upload);
  const remake = async (prior: IdempotentUpload): Promise<PublishedToSlug> => {
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
  };
  const first = await priorAnswer(store.db, caller, idempotency, remake);
  if (first) return replayed(options, first);
  const { title, description, direction, readers } = newBookFields(upload, false);
  const { file, pages, ref } = await acceptPdf(caller.plan, upload.file);
  const done = await withStoredOriginal(store, deps.blobs, file.checksum, (stored) =>
    store.locks.workspace(caller.workspaceId, async () => {
      const again = await priorAnswer(store.db, caller, idempotency, remake);
      if (again) return { kind: 'again' as const, answer: again };
      const existing = await findFlipbookBySlug(store.db, caller.workspaceId, slug);
      if (existing?.status === 'archived') {
        throw new RuleBroken(
          `The flipbook ${slug} is archived: unarchive it (flipbook unarchive ${existing.flipbook_id}) to publish to it`,
        );
      }
      if (existing)
        checkVersionCount(caller.plan, await countVersions(store.db, existing.flipbook_id));
      else {
        checkFlipbookCount(
          caller.plan,
          await countWorkspaceFlipbooks(store.db, caller.workspaceId),
        );
      }
      await deps.blobs.commitOriginal(ref, file.checksum);
      stored();
      const at = deps.clock.now();
      const versionId = randomUUID();
      const flipbookId = existing?.flipbook_id ?? randomUUID();
      const metadata = withKey(caller.metadata, idempotency);
      const finalTitle = existing?.title ?? title ?? fields.defaultTitle(file.name);
      await runFlipbookCommand(
        store,
        flipbookId,
        existing
          ? { type: 'UploadVersion', data: { versionId, file, activateOnDone: true, now: at } }
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
                file,
                now: at,
              },
            },
        metadata,
      );
      return {
        kind: 'made' as const,
        at,
        versionId,
        flipbookId,
        created: !existing,
        title: finalTitle,
      };
    }),
  );
  if (done.kind === 'again') return replayed(options, done.answer);
  const answer: PublishedToSlug = {
    flipbook_id: done.flipbookId,
    version_id: done.versionId,
    slug,
    created: done.created,
    title: done.title,
    status: 'pending',
    activate_on_done: true,
    file_size: file.size,
    estimated_seconds: await estimateSeconds(store.db, pages),
    created_at_unix: Math.floor(done.at.getTime() / 1000),
  };
  await keepAnswer(store.db, caller, idempotency, done.versionId, answer);
  return answer;
};

const replayed = <T>(options: UploadOptions, answer: T): T => {
  options.replayed?.();
  return answer;
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
