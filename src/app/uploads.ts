// The three uploads of the Client API (and the dashboard's): a new flipbook, a new version, a
// publish to a slug. Each is a thin caller of the one pipeline (./uploadPipeline.ts): its target,
// its checks, where the version goes and its answer.
import { randomUUID } from 'node:crypto';
import type { Created, PublishedToSlug } from '../contract/flipbooks.ts';
import type { CreatedVersion } from '../contract/versions.ts';
import { parseActivateFlag } from '../domain/activateFlag.ts';
import { NotFound } from '../domain/errors.ts';
import { visibility } from '../domain/flipbook/access.ts';
import type { FlipbookCommand } from '../domain/flipbook/decide.ts';
import type { UploadedFile } from '../domain/flipbook/flipbook.ts';
import * as fields from '../domain/flipbookFields.ts';
import { checkFlipbookCount, checkVersionCount } from '../domain/plans.ts';
import { slugify } from '../domain/slug.ts';
import { countWorkspaceFlipbooks } from '../readTables/flipbookCounts.ts';
import { findFlipbook, slugsLike, slugTaken } from '../readTables/flipbooks.ts';
import type { Db } from '../readTables/readTable.ts';
import { countVersions } from '../readTables/versions.ts';
import type { ApiDeps } from './apiDeps.ts';
import type { Caller } from './caller.ts';
import { slugInUse } from './flipbooks.ts';
import type { UploadOptions } from './idempotentUploads.ts';
import type { ReceivedUpload } from './received.ts';
import { slugTarget } from './slugTarget.ts';
import { type Prior, runUpload } from './uploadPipeline.ts';

/**
 * The fields of an upload that makes a flipbook, each checked by the domain's rules in the order
 * the form has them (the first bad one is the one named); the slug only when the form gives it.
 */
export const newBookFields = ({ fields: given }: ReceivedUpload, withSlug: boolean) => {
  const title = cleanTitle(given.title);
  const description = given.description === undefined ? '' : fields.description(given.description);
  const askedSlug = withSlug && given.slug !== undefined ? fields.slug(given.slug) : null;
  const direction = given.direction === undefined ? 'auto' : fields.direction(given.direction);
  const readers =
    given.visibility === undefined ? 'public' : visibility(given.visibility.trim().toLowerCase());
  return { title, description, askedSlug, direction, readers };
};

export type NewBook = ReturnType<typeof newBookFields>;

/** A new flipbook's command: the form's fields, with the title and slug decided for it. */
export const creation =
  (
    caller: Caller,
    book: NewBook,
    ids: { flipbookId: string; versionId: string },
    title: string,
    slug: string,
    /** version 1 is this preview's: the flipbook has no live version until a publish */
    preview?: string,
  ) =>
  (file: UploadedFile, at: Date): FlipbookCommand => ({
    type: 'CreateFlipbook',
    data: {
      ...ids,
      workspaceId: caller.workspaceId,
      title,
      titleFromFile: book.title === null,
      slug,
      description: book.description,
      direction: book.direction,
      visibility: book.readers,
      ...(preview === undefined ? {} : { preview }),
      file,
      now: at,
    },
  });

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
  let book: NewBook;
  return runUpload(deps, caller, upload, options, {
    operation: 'create',
    target: null,
    remake: async (again) => ({
      flipbook_id: again.prior.flipbook_id,
      version_id: again.prior.version_id,
      title: await titleOf(store.db, caller, again),
      status: 'pending',
      ...again.facts,
    }),
    before: async () => {
      book = newBookFields(upload, true);
      await countBooks();
    },
    decide: async (file) => {
      const { title, askedSlug } = book;
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
        command: creation(caller, book, { flipbookId, versionId }, finalTitle, slug),
      };
    },
    answer: (decided, facts) => ({
      flipbook_id: decided.flipbookId,
      version_id: decided.versionId,
      title: decided.title,
      status: 'pending',
      ...facts,
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
    remake: async ({ prior, version, facts }) => ({
      version_id: prior.version_id,
      version_status: 'pending',
      activate_on_done: version?.activate_on_done ?? true,
      ...facts,
    }),
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
    answer: (decided, facts) => ({
      version_id: decided.versionId,
      version_status: 'pending',
      activate_on_done: activateOnDone,
      ...facts,
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
  let book: NewBook;
  return runUpload(deps, caller, upload, options, {
    operation: 'slug',
    target: slug,
    remake: async (again) => ({
      flipbook_id: again.prior.flipbook_id,
      version_id: again.prior.version_id,
      slug,
      created: firstVersion(again),
      title: await titleOf(store.db, caller, again),
      status: 'pending',
      activate_on_done: true,
      ...again.facts,
    }),
    before: async () => {
      book = newBookFields(upload, false);
    },
    decide: async (file) => {
      const { title } = book;
      const existing = await slugTarget(deps, caller, slug, 'publish to it');
      const versionId = randomUUID();
      const flipbookId = existing?.flipbook_id ?? randomUUID();
      const finalTitle = existing?.title ?? title ?? fields.defaultTitle(file.name);
      return {
        flipbookId,
        versionId,
        created: !existing,
        title: finalTitle,
        command: existing
          ? (file, at): FlipbookCommand => ({
              type: 'UploadVersion',
              data: { versionId, file, activateOnDone: true, now: at },
            })
          : creation(caller, book, { flipbookId, versionId }, finalTitle, slug),
      };
    },
    answer: (decided, facts) => ({
      flipbook_id: decided.flipbookId,
      version_id: decided.versionId,
      slug,
      created: decided.created,
      title: decided.title,
      status: 'pending',
      activate_on_done: true,
      ...facts,
    }),
  });
};

/** The title of the flipbook a replayed upload went to, for its answer made again. */
const titleOf = async (db: Db, caller: Caller, { prior }: Prior) =>
  (await findFlipbook(db, caller.workspaceId, prior.flipbook_id))?.title ?? '';

/** Whether a replayed upload to a slug made its flipbook (its version was the first). */
export const firstVersion = ({ version }: Prior) => (version?.number ?? 1) === 1;

/** The title field, trimmed; absent or blank means "use the file name". */
const cleanTitle = (raw: string | undefined) => {
  if (!raw?.trim()) return null;
  return fields.title(raw);
};
