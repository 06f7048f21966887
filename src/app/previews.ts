// A flipbook's previews (beyond the spec; docs/ci.md): a PDF published under a name to a slug,
// processed but never live by itself, at an unguessable URL, until it is promoted (that very
// version goes live: no new upload, no new render) or deleted. The upload is a fourth thin
// caller of the one pipeline (./uploadPipeline.ts); the rest are commands on the flipbook.
import { randomUUID } from 'node:crypto';
import type { Preview, PreviewCompare, PreviewCreated } from '../contract/previews.ts';
import { NotFound } from '../domain/errors.ts';
import type { FlipbookCommand } from '../domain/flipbook/decide.ts';
import { checkPreviewName } from '../domain/flipbook/previews.ts';
import * as fields from '../domain/flipbookFields.ts';
import type { Comparison } from '../domain/pageAlignment.ts';
import { previewFigures } from '../queries/analyticsReports.ts';
import { findFlipbookBySlug } from '../readTables/flipbooks.ts';
import { countPages } from '../readTables/pages.ts';
import { findPreview, type PreviewRow, previewsOf } from '../readTables/previews.ts';
import { findVersion } from '../readTables/versions.ts';
import type { ApiDeps } from './apiDeps.ts';
import type { Caller } from './caller.ts';
import { runFlipbookCommand } from './commands.ts';
import { type EventMetadata, type ShownMetadata, showMetadata } from './eventContext.ts';
import type { UploadOptions } from './idempotentUploads.ts';
import type { ReceivedUpload } from './received.ts';
import { slugTarget } from './slugTarget.ts';
import { runUpload } from './uploadPipeline.ts';
import { creation, firstVersion, type NewBook, newBookFields } from './uploads.ts';
import { removeVersionFiles } from './versionFiles.ts';

/** The workspace's flipbook with this slug, or a 404 in the words of the other slug routes. */
const bookAt = async ({ store }: ApiDeps, caller: Caller, slugText: string) => {
  const book = await findFlipbookBySlug(store.db, caller.workspaceId, fields.slug(slugText));
  if (!book) throw new NotFound('Flipbook not found');
  return book;
};

/**
 * POST /flipbooks/by-slug/{slug}/previews/{name}: the preview made, or its version replaced (a
 * new push to the pull request); a slug with no flipbook yet gets one with no live version.
 */
export const publishPreview = async (
  deps: ApiDeps,
  caller: Caller,
  slugText: string,
  nameText: string,
  upload: ReceivedUpload,
  options: UploadOptions = {},
): Promise<PreviewCreated> => {
  const { store } = deps;
  const slug = fields.slug(slugText);
  const name = checkPreviewName(nameText);
  let book: NewBook;
  return runUpload(deps, caller, upload, options, {
    operation: 'preview',
    target: `${slug}/${name}`,
    remake: async (again) => ({
      name,
      flipbook_id: again.prior.flipbook_id,
      version_id: again.prior.version_id,
      slug,
      created: firstVersion(again),
      status: 'pending',
      preview_url: deps.urls.preview(again.prior.version_id),
      ...again.facts,
    }),
    before: async () => {
      book = newBookFields(upload, false);
    },
    decide: async (file) => {
      // A preview is a version while it lives: it counts as one, and a new flipbook as one.
      const existing = await slugTarget(deps, caller, slug, 'preview a change to it');
      const versionId = randomUUID();
      const flipbookId = existing?.flipbook_id ?? randomUUID();
      const before = existing ? await findPreview(store.db, flipbookId, name) : null;
      const replaced = before
        ? await findVersion(store.db, caller.workspaceId, flipbookId, before.version_id)
        : null;
      const title = book.title ?? fields.defaultTitle(file.name);
      return {
        flipbookId,
        versionId,
        created: !existing,
        replaced,
        command: existing
          ? (file, at): FlipbookCommand => ({
              type: 'PublishPreview',
              data: { name, versionId, file, now: at },
            })
          : creation(caller, book, { flipbookId, versionId }, title, slug, name),
      };
    },
    // The replaced version's files go after its deletion is recorded, as a deleted version's.
    after: async ({ replaced }) => {
      if (replaced) await removeVersionFiles(store, deps.blobs, replaced.version_id, replaced);
    },
    answer: (decided, facts) => ({
      name,
      flipbook_id: decided.flipbookId,
      version_id: decided.versionId,
      slug,
      created: decided.created,
      status: 'pending',
      preview_url: deps.urls.preview(decided.versionId),
      ...facts,
    }),
  });
};

/** A preview as the API shows it: its version's progress, its URL, its comparison once made. */
const presentPreview = async (deps: ApiDeps, caller: Caller, row: PreviewRow): Promise<Preview> => {
  const version = await findVersion(
    deps.store.db,
    caller.workspaceId,
    row.flipbook_id,
    row.version_id,
  );
  const status = version?.status ?? 'error';
  const pages = version?.page_count ?? 0;
  return {
    name: row.name,
    flipbook_id: row.flipbook_id,
    version_id: row.version_id,
    status,
    pages: status === 'pending' ? 0 : pages,
    pages_done:
      status === 'done'
        ? pages
        : status === 'processing'
          ? await countPages(deps.store.db, row.version_id)
          : 0,
    ...(status === 'error' ? { error_reason: version?.error ?? 'Processing failed' } : {}),
    preview_url: deps.urls.preview(row.version_id),
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
    compare: row.compared ? await presentCompare(deps, row.version_id) : null,
    reading: await previewFigures(deps.store.db, row.version_id),
  };
};

/**
 * The comparison as the API shows it: its file (the counts in the read table say it is made),
 * with the addresses of each changed page's thumbnails and compare view at the preview's URL.
 */
export const presentCompare = async (
  deps: Pick<ApiDeps, 'blobs' | 'urls'>,
  versionId: string,
): Promise<PreviewCompare> => {
  const text = await deps.blobs.readComparison(versionId);
  if (text === null) return null;
  const c = JSON.parse(text) as Comparison;
  const url = deps.urls.preview(versionId);
  const file = (position: number, name: string) => `${url}/pages/${versionId}/${position}/${name}`;
  return {
    against_version_id: c.againstVersionId,
    pages_before: c.pagesBefore,
    pages_after: c.pagesAfter,
    changed: c.changed.map(({ before, after, regions }) => ({
      before,
      after,
      regions,
      compare_url: `${url}#compare=${after}`,
      before_image: file(after, 'before-min.jpg'),
      after_image: file(after, 'min.jpg'),
      diff_image: file(after, 'diff.jpg'),
    })),
    inserted: c.inserted,
    removed: c.removed,
    moved: c.moved ?? [],
    unchanged: c.unchanged,
    ...(c.failure ? { failure: c.failure } : {}),
  };
};

/** A preview as the dashboard lists it: the API's answer, and who pushed its version. */
export type PreviewLine = { preview: Preview; pushedBy: ShownMetadata['actor'] };

/**
 * A flipbook's previews with who last pushed each (the event's actor, which the API's answer
 * leaves out: a pipeline knows who it is; a person in the dashboard asks).
 */
export const previewLines = async (
  deps: ApiDeps,
  caller: Caller,
  slug: string,
): Promise<PreviewLine[]> => {
  const book = await bookAt(deps, caller, slug);
  const rows = await previewsOf(deps.store.db, book.flipbook_id);
  return Promise.all(
    rows.map(async (row) => ({
      preview: await presentPreview(deps, caller, row),
      pushedBy: showMetadata({ actor: row.updated_by }).actor,
    })),
  );
};

export const listPreviews = async (deps: ApiDeps, caller: Caller, slug: string) => ({
  previews: (await previewLines(deps, caller, slug)).map((line) => line.preview),
});

const previewAt = async (deps: ApiDeps, caller: Caller, slug: string, name: string) => {
  const book = await bookAt(deps, caller, slug);
  const row = await findPreview(deps.store.db, book.flipbook_id, checkPreviewName(name));
  if (!row) throw new NotFound('Preview not found');
  return row;
};

export const showPreview = async (deps: ApiDeps, caller: Caller, slug: string, name: string) =>
  presentPreview(deps, caller, await previewAt(deps, caller, slug, name));

/** Makes exactly the reviewed version the live one; the preview is then gone. */
export const promotePreview = async (deps: ApiDeps, caller: Caller, slug: string, name: string) => {
  const row = await previewAt(deps, caller, slug, name);
  await runFlipbookCommand(
    deps.store,
    row.flipbook_id,
    { type: 'PromotePreview', data: { name: row.name, now: deps.clock.now() } },
    caller.metadata,
  );
  return {
    success: true as const,
    flipbook_id: row.flipbook_id,
    active_version_id: row.version_id,
  };
};

/** The preview and its version go; its URL answers 404 from the event's commit on. */
export const deletePreview = async (deps: ApiDeps, caller: Caller, slug: string, name: string) =>
  removePreview(deps, await previewAt(deps, caller, slug, name), caller.metadata);

/**
 * Deletes a preview and then its version's files (as a deleted version's: after the event); by
 * its owner, or swept as too old (`expired`, ./previewSweep.ts).
 */
export const removePreview = async (
  deps: Pick<ApiDeps, 'store' | 'blobs' | 'clock'>,
  row: PreviewRow,
  metadata: EventMetadata,
  expired = false,
) => {
  const version = await findVersion(
    deps.store.db,
    row.workspace_id,
    row.flipbook_id,
    row.version_id,
  );
  await runFlipbookCommand(
    deps.store,
    row.flipbook_id,
    {
      type: 'DeletePreview',
      // swept: only the version judged old (a push since made the preview new again)
      data: {
        name: row.name,
        expired,
        ...(expired ? { versionId: row.version_id } : {}),
        now: deps.clock.now(),
      },
    },
    metadata,
  );
  if (version) await removeVersionFiles(deps.store, deps.blobs, row.version_id, version);
};
