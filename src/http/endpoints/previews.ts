// The preview endpoints (beyond the spec; docs/ci.md): publish a change under a name, read it and
// its comparison, list them, promote exactly the reviewed version, delete.
import { Type } from '@sinclair/typebox';
import {
  deletePreview,
  listPreviews,
  promotePreview,
  publishPreview,
  showPreview,
} from '../../app/previews.ts';
import { CreateFlipbookFields } from '../../contract/flipbooks.ts';
import {
  Preview,
  PreviewCreated,
  PreviewList,
  PreviewParams,
  Promoted,
} from '../../contract/previews.ts';
import { InvalidInput } from '../../domain/errors.ts';
import { MAX_PREVIEWS, PREVIEW_NAME_RULE } from '../../domain/flipbook/previews.ts';
import * as fields from '../../domain/flipbookFields.ts';
import { error } from '../endpoint.ts';
import {
  apiEndpoint,
  busy,
  full,
  malformedUpload,
  plans,
  SlugPath,
  uploadRefused,
} from './declare.ts';
import { handleUpload } from './uploads.ts';

/** The slug first, in its own words, then the name. */
const NamePath = {
  schema: PreviewParams,
  invalid: (params: Record<string, string>): never => {
    fields.slug(params.slug ?? '');
    throw new InvalidInput(PREVIEW_NAME_RULE);
  },
};
const badPath = error(`\`Invalid slug: …\`, or \`${PREVIEW_NAME_RULE}\``);
const notFound = error('`Flipbook not found` (no flipbook with this slug), or `Preview not found`');
const PREVIEWS = '/flipbooks/by-slug/:slug/previews';

export const PREVIEW_ENDPOINTS = [
  apiEndpoint({
    method: 'post',
    path: `${PREVIEWS}/:name`,
    operationId: 'publishPreview',
    tag: 'previews',
    summary: 'Publish a preview of a change under a name',
    description: `A version of the slug's flipbook that is processed but never activated by itself, read at \`preview_url\` (an unguessable address that needs no sign-in, never indexed or cached publicly). A name published again (a new push) gets the new version; the one it replaces is deleted. A slug with no flipbook yet gets one with no live version until its first publish or promotion (its reader answers 404 until then). Once processed, the preview is compared with the live version (\`GET\` it). At most ${MAX_PREVIEWS} previews a flipbook. Returns at once; poll the preview.`,
    params: NamePath,
    body: { upload: CreateFlipbookFields },
    ok: { status: 201, description: 'The preview’s new version, pending', schema: PreviewCreated },
    errors: {
      400: error(
        `\`Invalid slug: …\` or \`${PREVIEW_NAME_RULE}\` (refused before the upload is read), \`file is required\`, a bad field as for \`POST /flipbooks\`, ${malformedUpload}`,
      ),
      409: error(
        `\`This flipbook has ${MAX_PREVIEWS} previews, the most it may have; delete one first\``,
      ),
      422: error(
        `A business rule refused the upload: ${uploadRefused}, \`The flipbook <slug> is archived: …\`, \`Flipbook limit reached: …\` or \`Version limit reached: …\` (${plans((l) => l.maxVersionsPerFlipbook)} versions per flipbook, a preview's included)`,
      ),
      503: busy,
      507: full,
    },
    handle: (input, deps) =>
      handleUpload(input, deps, { adds: 'any', slug: input.params.slug }, (upload, options) =>
        publishPreview(deps, input.caller, input.params.slug, input.params.name, upload, options),
      ),
  }),

  apiEndpoint({
    method: 'get',
    path: PREVIEWS,
    operationId: 'listPreviews',
    tag: 'previews',
    summary: 'List a flipbook’s previews',
    description:
      'Every preview of the slug’s flipbook, the latest pushed first, each as `GET .../previews/{name}` answers it.',
    params: SlugPath,
    ok: { status: 200, description: 'Its previews, the latest pushed first', schema: PreviewList },
    errors: { 400: error('`Invalid slug: …`'), 404: error('`Flipbook not found`') },
    handle: ({ caller, params }, deps) => listPreviews(deps, caller, params.slug),
  }),

  apiEndpoint({
    method: 'get',
    path: `${PREVIEWS}/:name`,
    operationId: 'getPreview',
    tag: 'previews',
    summary: 'A preview: its status, its address, and its comparison once made',
    description:
      'Poll this until `status` is `done` (or `error`); `compare` is null until the comparison with the live version is made.',
    params: NamePath,
    ok: { status: 200, description: 'The preview', schema: Preview },
    errors: { 400: badPath, 404: notFound },
    handle: ({ caller, params }, deps) => showPreview(deps, caller, params.slug, params.name),
  }),

  apiEndpoint({
    method: 'post',
    path: `${PREVIEWS}/:name/promote`,
    operationId: 'promotePreview',
    tag: 'previews',
    summary: 'Make exactly the previewed version the live one',
    description:
      'Activates the preview’s version: no new upload, no new render, what was reviewed is what readers get. The preview is then gone (its address answers 404). No request body.',
    params: NamePath,
    ok: { status: 200, description: 'The preview’s version is active', schema: Promoted },
    errors: {
      400: badPath,
      404: notFound,
      409: error(
        '`Preview <name> is <status>: only a processed preview can be promoted…` (pending, processing or failed)',
      ),
      503: busy,
    },
    handle: ({ caller, params }, deps) => promotePreview(deps, caller, params.slug, params.name),
  }),

  apiEndpoint({
    method: 'delete',
    path: `${PREVIEWS}/:name`,
    operationId: 'deletePreview',
    tag: 'previews',
    summary: 'Delete a preview',
    description:
      'The preview, its version and its files go; its address answers 404 from then on, on every daemon.',
    params: NamePath,
    ok: { status: 204, description: 'Deleted', schema: Type.Void() },
    errors: { 400: badPath, 404: notFound, 503: busy },
    handle: ({ caller, params }, deps) => deletePreview(deps, caller, params.slug, params.name),
  }),
];
