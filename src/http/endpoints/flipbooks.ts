// The flipbook endpoints: list, create (an upload), get (also as it was at a moment), edit,
// delete, and its audit trail.
import { flipbookTrail } from '../../app/eventLog.ts';
import { getFlipbook, listFlipbooks } from '../../app/flipbooks.ts';
import { getFlipbookAsOf } from '../../app/history.ts';
import { deleteFlipbook, editFlipbook } from '../../app/manageFlipbooks.ts';
import { createFlipbook } from '../../app/uploads.ts';
import { DeleteResponse } from '../../contract/common.ts';
import { AtQuery, EventList, EventsQuery } from '../../contract/events.ts';
import {
  Created,
  CreateFlipbookFields,
  Flipbook,
  FlipbookEdits,
  FlipbookList,
  ListFlipbooksQuery,
} from '../../contract/flipbooks.ts';
import { AppError, InvalidInput } from '../../domain/errors.ts';
import { editsFrom, MAX_EDIT_BYTES } from '../editBody.ts';
import { error } from '../endpoint.ts';
import { toListQuery } from '../listQuery.ts';
import { asUnavailable } from '../unavailable.ts';
import {
  apiEndpoint,
  busy,
  FlipbookParams,
  flipbookNotFound,
  full,
  malformedUpload,
  nul,
  plans,
  slugTaken,
  uploadRefused,
} from './declare.ts';
import { handleUpload } from './uploads.ts';

const INVALID_AT = 'Invalid at: give one RFC 3339 date-time, e.g. 2026-11-23T12:00:00Z';

export const FLIPBOOK_ENDPOINTS = [
  apiEndpoint({
    method: 'get',
    path: '/flipbooks',
    operationId: 'listFlipbooks',
    tag: 'flipbooks',
    summary: 'List flipbooks',
    description:
      'The flipbooks of the key’s workspace, a page at a time. Each carries only its active version (none before one is active) and no pages. Every parameter may be given once; unknown parameters are ignored.',
    query: ListFlipbooksQuery,
    ok: { status: 200, description: 'One page of flipbooks', schema: FlipbookList },
    errors: {
      400: error(
        `An invalid query parameter, named in the message (e.g. \`Invalid per_page: must be an integer from 1 to 100\`, \`Invalid sort: give it once\`, ${nul('search')}), or \`Workspace not found\``,
      ),
      500: error(
        "`Failed to list flipbooks` (the spec's text); a database that is unavailable is a 503, as on every route",
      ),
    },
    handle: ({ caller, query }, deps) =>
      listFlipbooks(deps, caller, toListQuery(query)).catch((cause: unknown) => {
        // The spec's own text for this endpoint's 500; the cause goes to the log. A database
        // that is unavailable is a 503, as on every endpoint (docs/api.md).
        if (cause instanceof AppError || asUnavailable(cause)) throw cause;
        deps.log.error({ err: cause }, 'listing flipbooks failed');
        throw new AppError(500, 'Failed to list flipbooks');
      }),
  }),

  apiEndpoint({
    method: 'post',
    path: '/flipbooks',
    operationId: 'createFlipbook',
    tag: 'flipbooks',
    summary: 'Create a flipbook by uploading a PDF',
    description:
      'Creates the flipbook and its version 1 (status `pending`, activated automatically once processed). Returns at once; poll the version status.',
    body: { upload: CreateFlipbookFields },
    ok: { status: 201, description: 'Flipbook created; its version 1 is pending', schema: Created },
    errors: {
      400: error(
        `\`file is required\` (no multipart body or no \`file\` part), \`Invalid title: at most 255 characters\`, ${nul('title')}, \`Invalid slug: …\`, \`Invalid description: …\`, \`Invalid direction: must be "ltr", "rtl" or "auto"\`, ${malformedUpload}`,
      ),
      422: error(
        `A business rule refused the upload: ${uploadRefused}, \`Flipbook limit reached: …\` (${plans((l) => l.maxFlipbooks)} flipbooks), ${slugTaken}`,
      ),
      507: full,
    },
    handle: (input, deps) =>
      handleUpload(input, deps, { adds: 'flipbook' }, (upload, options) =>
        createFlipbook(deps, input.caller, upload, options),
      ),
  }),

  apiEndpoint({
    method: 'get',
    path: '/flipbooks/:id',
    operationId: 'getFlipbook',
    tag: 'flipbooks',
    summary: 'Get a flipbook',
    description:
      'The flipbook with all its versions (newest first) and the pages of its active version (none before one is active). With `at`, the flipbook as it was at that moment (beyond the spec).',
    params: FlipbookParams,
    query: AtQuery,
    queryInvalid: { at: INVALID_AT },
    ok: {
      status: 200,
      description: 'The flipbook (as it was at `at`, when given)',
      schema: Flipbook,
    },
    errors: {
      400: error(
        '`Invalid flipbook ID`, `Invalid at: give one RFC 3339 date-time, e.g. 2026-11-23T12:00:00Z`, or `Workspace not found`',
      ),
      404: error(
        '`Flipbook not found` (also for a flipbook of another workspace, and with `at` before the flipbook was created)',
      ),
    },
    handle: ({ caller, params, query }, deps) => {
      if (query.at === undefined) return getFlipbook(deps, caller, params.id);
      // (the format holds a leap second or an offset Date cannot read)
      const at = new Date(query.at);
      if (Number.isNaN(at.getTime())) throw new InvalidInput(INVALID_AT);
      return getFlipbookAsOf(deps, caller, params.id, at);
    },
  }),

  apiEndpoint({
    method: 'patch',
    path: '/flipbooks/:id',
    operationId: 'editFlipbook',
    tag: 'flipbooks',
    summary: 'Edit a flipbook (beyond the spec)',
    description:
      'Changes any of its title, slug, description, reading direction, status and downloads in one change; fields not sent stay as they are. Archiving takes the reader off the web (its URL says the flipbook is not available) and keeps the flipbook listed under `status=archived`; publishing it again brings the same URL back.',
    params: FlipbookParams,
    body: { json: FlipbookEdits, limit: MAX_EDIT_BYTES, what: 'an edit', read: editsFrom },
    ok: { status: 200, description: 'The flipbook as edited', schema: Flipbook },
    errors: {
      400: error(
        '`Invalid flipbook ID`; a body that is not a JSON object (`The body must be JSON (Content-Type: application/json)`, `Malformed JSON body`); `Unknown field "<name>": …`; a bad field, named (e.g. `Invalid title: it must not be blank`, `Invalid slug: …`, `Invalid status: must be "published" or "archived"`, `Invalid allow_download: must be true or false`, `Invalid direction: must be "ltr", "rtl" or "auto"`); or `Workspace not found`',
      ),
      404: flipbookNotFound,
      413: error(`\`Request body too large: an edit is at most ${MAX_EDIT_BYTES / 1024} KB\``),
      422: error(`The slug is taken in the workspace: ${slugTaken}`),
      503: busy,
    },
    handle: ({ caller, params, body }, deps) => editFlipbook(deps, caller, params.id, body),
  }),

  apiEndpoint({
    method: 'delete',
    path: '/flipbooks/:id',
    operationId: 'deleteFlipbook',
    tag: 'flipbooks',
    summary: 'Delete a flipbook (beyond the spec)',
    description:
      'Deletes the flipbook for good: its versions, pages and originals (unless another flipbook shares them) are removed, processing stops, and its quota is freed. Afterwards every endpoint and file URL of it is a 404. Its events stay: the audit trail ends with the deletion and who asked for it.',
    params: FlipbookParams,
    ok: { status: 200, description: 'The flipbook is deleted', schema: DeleteResponse },
    errors: {
      400: error('`Invalid flipbook ID`, or `Workspace not found`'),
      404: error(
        '`Flipbook not found` (also for an already deleted flipbook, or one of another workspace)',
      ),
      503: busy,
    },
    handle: ({ caller, params }, deps) => deleteFlipbook(deps, caller, params.id),
  }),

  apiEndpoint({
    method: 'get',
    path: '/flipbooks/:id/events',
    operationId: 'listFlipbookEvents',
    tag: 'audit',
    summary: 'The flipbook’s audit trail (beyond the spec)',
    description:
      'Every event of the flipbook in the order it happened, a page at a time: what happened (`type`, `data`), when (`at`) and who did it, from where, in which request (`metadata`). Events of a deleted version stay. Internal details (hashes of API keys, file paths) never appear.',
    params: FlipbookParams,
    query: EventsQuery,
    ok: {
      status: 200,
      description: 'One page of the flipbook’s events, oldest first',
      schema: EventList,
    },
    errors: {
      400: error(
        '`Invalid flipbook ID`, an invalid `page` or `per_page` (e.g. `Invalid per_page: must be an integer from 1 to 100`), or `Workspace not found`',
      ),
      404: flipbookNotFound,
    },
    handle: ({ caller, params, query }, deps) =>
      flipbookTrail(deps.store, caller.workspaceId, params.id, query.page, query.per_page),
  }),
];
