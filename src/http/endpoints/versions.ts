// The version endpoints: upload one (to a flipbook, or to a slug), activate, poll, delete.
import { activateVersion, deleteVersion, versionStatus } from '../../app/flipbooks.ts';
import { addVersion, publishToSlug } from '../../app/uploads.ts';
import { DeleteResponse } from '../../contract/common.ts';
import { CreateFlipbookFields, PublishedToSlug } from '../../contract/flipbooks.ts';
import {
  Activated,
  CreatedVersion,
  CreateVersionFields,
  VersionStatus,
} from '../../contract/versions.ts';
import { error } from '../endpoint.ts';
import {
  apiEndpoint,
  badIds,
  busy,
  FlipbookParams,
  flipbookNotFound,
  full,
  malformedUpload,
  plans,
  SlugPath,
  uploadRefused,
  VersionParams,
  versionNotFound,
} from './declare.ts';
import { handleUpload } from './uploads.ts';

export const VERSION_ENDPOINTS = [
  apiEndpoint({
    method: 'post',
    path: '/flipbooks/:id/versions',
    operationId: 'createVersion',
    tag: 'versions',
    summary: 'Upload a new version of a flipbook',
    description:
      'Adds a version with the next number (status `pending`). With `activate` true (the default) it becomes the active version once processed. Returns at once; poll the version status.',
    // (a bad id is refused before a byte of the upload is read)
    params: FlipbookParams,
    body: { upload: CreateVersionFields },
    ok: { status: 201, description: 'Version created, pending', schema: CreatedVersion },
    errors: {
      400: error(
        `\`Invalid flipbook ID\` (refused before the upload is read), \`file is required\`, \`Invalid activate: use true/false, 1/0, yes/no or on/off\`, ${malformedUpload}`,
      ),
      404: flipbookNotFound,
      422: error(
        `A business rule refused the upload: ${uploadRefused}, \`Version limit reached: …\` (${plans((l) => l.maxVersionsPerFlipbook)} versions per flipbook)`,
      ),
      503: busy,
      507: full,
    },
    handle: (input, deps) =>
      handleUpload(
        input,
        deps,
        { adds: 'version', flipbookId: input.params.id },
        (upload, options) => addVersion(deps, input.caller, input.params.id, upload, options),
      ),
  }),

  // One URL per document, however often it is published.
  apiEndpoint({
    method: 'post',
    path: '/flipbooks/by-slug/:slug/versions',
    operationId: 'publishToSlug',
    tag: 'versions',
    summary: 'Publish a PDF to a slug (beyond the spec)',
    description:
      'One URL per document, however often it is published: the workspace’s flipbook with this slug gets a new version, made active once processed; when there is none, a flipbook is made with this slug (its version 1, as `POST /flipbooks` would, with the `title`, `description` and `direction` fields). Decided atomically: two publishes of one new slug at once make one flipbook and two versions. Returns at once; poll the version status.',
    params: SlugPath,
    body: { upload: CreateFlipbookFields },
    ok: {
      status: 201,
      description: 'A version was made (and the flipbook, when `created`)',
      schema: PublishedToSlug,
    },
    errors: {
      400: error(
        `\`Invalid slug: …\` (refused before the upload is read), \`file is required\`, a bad field as for \`POST /flipbooks\`, ${malformedUpload}`,
      ),
      422: error(
        `A business rule refused the upload: ${uploadRefused}, \`The flipbook <slug> is archived: unarchive it …\`, \`Flipbook limit reached: …\` or \`Version limit reached: …\``,
      ),
      503: busy,
      507: full,
    },
    handle: (input, deps) =>
      handleUpload(input, deps, { adds: 'any', slug: input.params.slug }, (upload, options) =>
        publishToSlug(deps, input.caller, input.params.slug, upload, options),
      ),
  }),

  apiEndpoint({
    method: 'post',
    path: '/flipbooks/:id/versions/:vid/activate',
    operationId: 'activateVersion',
    tag: 'versions',
    summary: 'Activate a version',
    description:
      'Makes the version the active one; the previously active version is deactivated. Only a `done` version can be activated; activating the active version again succeeds and changes nothing. No request body.',
    params: VersionParams,
    ok: { status: 200, description: 'The version is active', schema: Activated },
    errors: {
      400: badIds,
      404: versionNotFound,
      422: error(
        'The version cannot be activated: `Only a processed version can be activated; this version is <status>…`',
      ),
      503: busy,
    },
    handle: ({ caller, params }, deps) => activateVersion(deps, caller, params.id, params.vid),
  }),

  apiEndpoint({
    method: 'get',
    path: '/flipbooks/:id/versions/:vid/status',
    operationId: 'getVersionStatus',
    tag: 'versions',
    summary: 'Processing status of a version',
    description:
      'Poll this until `status` is `done` (or `error`, with `error_reason` saying why). `pages` is 0 while the version is `pending`.',
    params: VersionParams,
    ok: { status: 200, description: 'The version’s status', schema: VersionStatus },
    errors: { 400: badIds, 404: versionNotFound },
    handle: ({ caller, params }, deps) => versionStatus(deps, caller, params.id, params.vid),
  }),

  apiEndpoint({
    method: 'delete',
    path: '/flipbooks/:id/versions/:vid',
    operationId: 'deleteVersion',
    tag: 'versions',
    summary: 'Delete an inactive version',
    description:
      'Removes the version with its pages. The active version cannot be deleted: activate another one first.',
    params: VersionParams,
    ok: { status: 200, description: 'The version is deleted', schema: DeleteResponse },
    errors: {
      400: badIds,
      404: versionNotFound,
      422: error('`An active version cannot be deleted; activate another version first`'),
      503: busy,
    },
    handle: ({ caller, params }, deps) => deleteVersion(deps, caller, params.id, params.vid),
  }),
];
