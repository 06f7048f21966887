// The route table the OpenAPI document is generated from (src/http/openapi.ts): for each route
// src/http/api.ts mounts, its summary, parameters, body and answers. Shapes are the contract's
// schemas (src/contract/); the words here are only what the schemas cannot say: which errors a
// route gives and why. Every route also gets the answers all routes share (401, 413, 429, 500, 503).
import type { TObject, TSchema } from '@sinclair/typebox';
import { DeleteResponse, ErrorBody } from '../contract/common.ts';
import { AtQuery, EventList, EventsQuery } from '../contract/events.ts';
import {
  Created,
  CreateFlipbookFields,
  Flipbook,
  FlipbookEdits,
  FlipbookList,
  ListFlipbooksQuery,
  PublishedToSlug,
} from '../contract/flipbooks.ts';
import {
  Activated,
  CreatedVersion,
  CreateVersionFields,
  VersionStatus,
} from '../contract/versions.ts';
import {
  CreatedWebhook,
  CreateWebhookBody,
  DeliveryList,
  EventFeed,
  EventFeedQuery,
  TestQueued,
  Webhook,
  WebhookList,
  WebhookRemoved,
} from '../contract/webhooks.ts';
import { PLAN_LIMITS } from '../domain/plans.ts';
import { MAX_ENDPOINTS } from '../domain/workspace/webhooks.ts';
import { MAX_EDIT_BYTES } from './editBody.ts';

export type Method = 'get' | 'post' | 'patch' | 'delete';

/** One answer: a success with its schema, or an error (always the Error body) and why. */
export type Answer =
  | { description: string; schema: TSchema }
  | { description: string; error: true; retryAfter?: true }
  | { ref: SharedAnswer };

/** Answers described once, in the document's components. */
export type SharedAnswer =
  | 'Unauthorized'
  | 'BodyTooLarge'
  | 'UploadTooLarge'
  | 'TooManyRequests'
  | 'InsufficientStorage'
  | 'InternalError'
  | 'Unavailable';

export type Route = {
  method: Method;
  /** relative to /api/v1, with OpenAPI's {placeholders} (id: a flipbook, vid: a version) */
  path: string;
  operationId: string;
  tag: 'flipbooks' | 'versions' | 'audit' | 'webhooks' | 'meta';
  summary: string;
  description?: string;
  query?: TObject;
  /** a JSON body (its schema), or a multipart upload (its text fields besides `file`) */
  body?: { json: TObject } | { upload: TObject };
  /** no API key needed */
  public?: true;
  responses: Record<number, Answer>;
};

const ok = (description: string, schema: TSchema): Answer => ({ description, schema });
const error = (description: string): Answer => ({ description, error: true });
/** src/store/handleCommand.ts's StoreBusy: conflicts with other processes outlasted the retries. */
const busy: Answer = {
  description:
    '`The server is busy with concurrent changes to this resource; try again`: other processes kept changing the flipbook at the same moment for several seconds (conflicts are retried inside the server first; it never answers 409). Also, as on every route, `The database is unavailable right now; try again shortly` while the database is down or restarting',
  error: true,
  retryAfter: true,
};
const full: Answer = { ref: 'InsufficientStorage' };

const plans = (pick: (limits: (typeof PLAN_LIMITS)['free']) => number, unit = '') =>
  Object.entries(PLAN_LIMITS)
    .map(([plan, limits]) => `${plan} ${pick(limits)}${unit}`)
    .join(', ');
const MB = 1024 * 1024;

const nul = (field: string) => `\`Invalid ${field}: it contains a NUL character\``;
const malformedUpload =
  'a malformed multipart body, more than one file, more than 20 fields, a field over 64 KB, ' +
  '`Invalid Idempotency-Key: …` (refused before the upload is read), ' +
  'or `Workspace not found` (the key outlived its workspace)';
const uploadRefused =
  '`Idempotency-Key already used for another request in the last 24 hours: …`, ' +
  '`The file is empty`, `File is not a PDF: it has no %PDF- header`, `File is not a readable PDF: <reason>`, ' +
  `\`File too large for the <plan> plan: …\` (${plans((l) => l.maxUploadBytes / MB, ' MB')}), ` +
  `\`Too many pages for the <plan> plan: …\` (${plans((l) => l.maxPagesPerVersion)} pages per document)`;
const slugTaken = '`Slug "<slug>" is already used by another flipbook in this workspace`';
const flipbookNotFound = error('`Flipbook not found` (also for a flipbook of another workspace)');
const versionNotFound = error(
  '`Version not found` (also for a deleted version, or one of another flipbook or workspace)',
);
const badIds = error('`Invalid IDs`, or `Workspace not found`');

export const ROUTES: Route[] = [
  {
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    tag: 'meta',
    summary: 'This OpenAPI document',
    description: 'Public: no API key is needed. Still counted by the rate limit.',
    public: true,
    responses: {},
  },
  {
    method: 'get',
    path: '/flipbooks',
    operationId: 'listFlipbooks',
    tag: 'flipbooks',
    summary: 'List flipbooks',
    description:
      'The flipbooks of the key’s workspace, a page at a time. Each carries only its active version (none before one is active) and no pages. Every parameter may be given once; unknown parameters are ignored.',
    query: ListFlipbooksQuery,
    responses: {
      200: ok('One page of flipbooks', FlipbookList),
      400: error(
        `An invalid query parameter, named in the message (e.g. \`Invalid per_page: must be an integer from 1 to 100\`, \`Invalid sort: give it once\`, ${nul('search')}), or \`Workspace not found\``,
      ),
      500: error(
        "`Failed to list flipbooks` (the spec's text); a database that is unavailable is a 503, as on every route",
      ),
    },
  },
  {
    method: 'post',
    path: '/flipbooks',
    operationId: 'createFlipbook',
    tag: 'flipbooks',
    summary: 'Create a flipbook by uploading a PDF',
    description:
      'Creates the flipbook and its version 1 (status `pending`, activated automatically once processed). Returns at once; poll the version status.',
    body: { upload: CreateFlipbookFields },
    responses: {
      201: ok('Flipbook created; its version 1 is pending', Created),
      400: error(
        `\`file is required\` (no multipart body or no \`file\` part), \`Invalid title: at most 255 characters\`, ${nul('title')}, \`Invalid slug: …\`, \`Invalid description: …\`, \`Invalid direction: must be "ltr", "rtl" or "auto"\`, ${malformedUpload}`,
      ),
      422: error(
        `A business rule refused the upload: ${uploadRefused}, \`Flipbook limit reached: …\` (${plans((l) => l.maxFlipbooks)} flipbooks), ${slugTaken}`,
      ),
      507: full,
    },
  },
  {
    method: 'get',
    path: '/flipbooks/{id}',
    operationId: 'getFlipbook',
    tag: 'flipbooks',
    summary: 'Get a flipbook',
    description:
      'The flipbook with all its versions (newest first) and the pages of its active version (none before one is active). With `at`, the flipbook as it was at that moment (beyond the spec).',
    query: AtQuery,
    responses: {
      200: ok('The flipbook (as it was at `at`, when given)', Flipbook),
      400: error(
        '`Invalid flipbook ID`, `Invalid at: give one RFC 3339 date-time, e.g. 2026-11-23T12:00:00Z`, or `Workspace not found`',
      ),
      404: error(
        '`Flipbook not found` (also for a flipbook of another workspace, and with `at` before the flipbook was created)',
      ),
    },
  },
  {
    method: 'patch',
    path: '/flipbooks/{id}',
    operationId: 'editFlipbook',
    tag: 'flipbooks',
    summary: 'Edit a flipbook (beyond the spec)',
    description:
      'Changes any of its title, slug, description, reading direction, status and downloads in one change; fields not sent stay as they are. Archiving takes the reader off the web (its URL says the flipbook is not available) and keeps the flipbook listed under `status=archived`; publishing it again brings the same URL back.',
    body: { json: FlipbookEdits },
    responses: {
      200: ok('The flipbook as edited', Flipbook),
      400: error(
        '`Invalid flipbook ID`; a body that is not a JSON object (`The body must be JSON (Content-Type: application/json)`, `Malformed JSON body`); `Unknown field "<name>": …`; a bad field, named (e.g. `Invalid title: it must not be blank`, `Invalid slug: …`, `Invalid status: must be "published" or "archived"`, `Invalid allow_download: must be true or false`, `Invalid direction: must be "ltr", "rtl" or "auto"`); or `Workspace not found`',
      ),
      404: flipbookNotFound,
      413: error(`\`Request body too large: an edit is at most ${MAX_EDIT_BYTES / 1024} KB\``),
      422: error(`The slug is taken in the workspace: ${slugTaken}`),
      503: busy,
    },
  },
  {
    method: 'delete',
    path: '/flipbooks/{id}',
    operationId: 'deleteFlipbook',
    tag: 'flipbooks',
    summary: 'Delete a flipbook (beyond the spec)',
    description:
      'Deletes the flipbook for good: its versions, pages and originals (unless another flipbook shares them) are removed, processing stops, and its quota is freed. Afterwards every endpoint and file URL of it is a 404. Its events stay: the audit trail ends with the deletion and who asked for it.',
    responses: {
      200: ok('The flipbook is deleted', DeleteResponse),
      400: error('`Invalid flipbook ID`, or `Workspace not found`'),
      404: error(
        '`Flipbook not found` (also for an already deleted flipbook, or one of another workspace)',
      ),
      503: busy,
    },
  },
  {
    method: 'get',
    path: '/flipbooks/{id}/events',
    operationId: 'listFlipbookEvents',
    tag: 'audit',
    summary: 'The flipbook’s audit trail (beyond the spec)',
    description:
      'Every event of the flipbook in the order it happened, a page at a time: what happened (`type`, `data`), when (`at`) and who did it, from where, in which request (`metadata`). Events of a deleted version stay. Internal details (hashes of API keys, file paths) never appear.',
    query: EventsQuery,
    responses: {
      200: ok('One page of the flipbook’s events, oldest first', EventList),
      400: error(
        '`Invalid flipbook ID`, an invalid `page` or `per_page` (e.g. `Invalid per_page: must be an integer from 1 to 100`), or `Workspace not found`',
      ),
      404: flipbookNotFound,
    },
  },
  {
    method: 'post',
    path: '/flipbooks/{id}/versions',
    operationId: 'createVersion',
    tag: 'versions',
    summary: 'Upload a new version of a flipbook',
    description:
      'Adds a version with the next number (status `pending`). With `activate` true (the default) it becomes the active version once processed. Returns at once; poll the version status.',
    body: { upload: CreateVersionFields },
    responses: {
      201: ok('Version created, pending', CreatedVersion),
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
  },
  {
    method: 'post',
    path: '/flipbooks/by-slug/{slug}/versions',
    operationId: 'publishToSlug',
    tag: 'versions',
    summary: 'Publish a PDF to a slug (beyond the spec)',
    description:
      'One URL per document, however often it is published: the workspace’s flipbook with this slug gets a new version, made active once processed; when there is none, a flipbook is made with this slug (its version 1, as `POST /flipbooks` would, with the `title`, `description` and `direction` fields). Decided atomically: two publishes of one new slug at once make one flipbook and two versions. Returns at once; poll the version status.',
    body: { upload: CreateFlipbookFields },
    responses: {
      201: ok('A version was made (and the flipbook, when `created`)', PublishedToSlug),
      400: error(
        `\`Invalid slug: …\` (refused before the upload is read), \`file is required\`, a bad field as for \`POST /flipbooks\`, ${malformedUpload}`,
      ),
      422: error(
        `A business rule refused the upload: ${uploadRefused}, \`The flipbook <slug> is archived: unarchive it …\`, \`Flipbook limit reached: …\` or \`Version limit reached: …\``,
      ),
      503: busy,
      507: full,
    },
  },
  {
    method: 'post',
    path: '/flipbooks/{id}/versions/{vid}/activate',
    operationId: 'activateVersion',
    tag: 'versions',
    summary: 'Activate a version',
    description:
      'Makes the version the active one; the previously active version is deactivated. Only a `done` version can be activated; activating the active version again succeeds and changes nothing. No request body.',
    responses: {
      200: ok('The version is active', Activated),
      400: badIds,
      404: versionNotFound,
      422: error(
        'The version cannot be activated: `Only a processed version can be activated; this version is <status>…`',
      ),
      503: busy,
    },
  },
  {
    method: 'get',
    path: '/flipbooks/{id}/versions/{vid}/status',
    operationId: 'getVersionStatus',
    tag: 'versions',
    summary: 'Processing status of a version',
    description:
      'Poll this until `status` is `done` (or `error`, with `error_reason` saying why). `pages` is 0 while the version is `pending`.',
    responses: {
      200: ok('The version’s status', VersionStatus),
      400: badIds,
      404: versionNotFound,
    },
  },
  {
    method: 'delete',
    path: '/flipbooks/{id}/versions/{vid}',
    operationId: 'deleteVersion',
    tag: 'versions',
    summary: 'Delete an inactive version',
    description:
      'Removes the version with its pages. The active version cannot be deleted: activate another one first.',
    responses: {
      200: ok('The version is deleted', DeleteResponse),
      400: badIds,
      404: versionNotFound,
      422: error('`An active version cannot be deleted; activate another version first`'),
      503: busy,
    },
  },
  ...WEBHOOK_ROUTES(),
];

/** Every schema the document names, besides those the routes reach. */
export const EXTRA_SCHEMAS: TSchema[] = [ErrorBody];

/** The event feed and webhooks (beyond the spec; docs/webhooks.md). */
function WEBHOOK_ROUTES(): Route[] {
  const webhookNotFound = error('`No webhook with id <id>` (also another workspace’s webhook)');
  return [
    {
      method: 'get',
      path: '/events',
      operationId: 'listEvents',
      tag: 'webhooks',
      summary: 'The workspace’s event feed (beyond the spec)',
      description:
        'The workspace’s public events in the order they happened, after a cursor: pass each answer’s `next` as `after`. With `wait`, an answer with no event waits up to that many seconds for one (long polling). Types and their `data` are a stable contract (docs/webhooks.md).',
      query: EventFeedQuery,
      responses: {
        200: ok('The events after the cursor (none when there are none yet)', EventFeed),
        400: error(
          '`Invalid after: use the `next` of a previous page, 0 or now`, or an invalid `limit` or `wait` (e.g. `Invalid limit: must be an integer from 1 to 100`)',
        ),
      },
    },
    {
      method: 'post',
      path: '/webhooks',
      operationId: 'createWebhook',
      tag: 'webhooks',
      summary: 'Add a webhook (beyond the spec; Team plan)',
      description:
        'Deliveries of the workspace’s events are POSTed to `url`, signed as Standard Webhooks define (`webhook-id`, `webhook-timestamp`, `webhook-signature`). The answer holds the signing `secret`, shown this once.',
      body: { json: CreateWebhookBody },
      responses: {
        201: ok('The webhook, with its secret', CreatedWebhook),
        400: error(
          '`url is required`, `Invalid events: ...`, `A webhook url must start with https:// or http://`, `Unknown field "<name>": use url, events, description`, `Malformed JSON body`',
        ),
        422: error(
          `\`Webhooks are available on the Team plan only; ...\`, \`A workspace has at most ${MAX_ENDPOINTS} webhooks: ...\`, or \`<host> resolves to <address>, a private or local address; ...\``,
        ),
      },
    },
    {
      method: 'get',
      path: '/webhooks',
      operationId: 'listWebhooks',
      tag: 'webhooks',
      summary: 'The workspace’s webhooks (beyond the spec)',
      description: 'Every webhook of the workspace, oldest first; secrets are never shown again.',
      responses: { 200: ok('Every webhook, oldest first, without secrets', WebhookList) },
    },
    {
      method: 'get',
      path: '/webhooks/{webhookId}',
      operationId: 'getWebhook',
      tag: 'webhooks',
      summary: 'One webhook (beyond the spec)',
      description:
        'Its url, event filter and status (`disabled_reason` says why the service turned it off).',
      responses: { 200: ok('The webhook', Webhook), 404: webhookNotFound },
    },
    {
      method: 'delete',
      path: '/webhooks/{webhookId}',
      operationId: 'deleteWebhook',
      tag: 'webhooks',
      summary: 'Remove a webhook (beyond the spec)',
      description: 'Nothing more is sent to it; deliveries still queued are cancelled.',
      responses: { 200: ok('Removed', WebhookRemoved), 404: webhookNotFound },
    },
    {
      method: 'post',
      path: '/webhooks/{webhookId}/enable',
      operationId: 'enableWebhook',
      tag: 'webhooks',
      summary: 'Turn a disabled webhook back on (beyond the spec)',
      description:
        'After a 410 or a day of failed deliveries the service disables a webhook; this turns it back on (events from then on are delivered).',
      responses: { 200: ok('The webhook, enabled', Webhook), 404: webhookNotFound },
    },
    {
      method: 'post',
      path: '/webhooks/{webhookId}/test',
      operationId: 'testWebhook',
      tag: 'webhooks',
      summary: 'Send a webhook.test delivery (beyond the spec)',
      description:
        'Queues a `webhook.test` delivery (`data`: `{"webhook_id"}`), sent and retried like any other; its deliveries list shows how it went.',
      responses: {
        202: ok('Queued', TestQueued),
        400: error('`This webhook is disabled: enable it before testing it`'),
        404: webhookNotFound,
      },
    },
    {
      method: 'get',
      path: '/webhooks/{webhookId}/deliveries',
      operationId: 'listWebhookDeliveries',
      tag: 'webhooks',
      summary: 'A webhook’s latest 50 deliveries, newest first (beyond the spec)',
      description:
        'Each delivery’s status, attempts, last HTTP status or error, and when it is tried next.',
      responses: { 200: ok('Its deliveries', DeliveryList), 404: webhookNotFound },
    },
  ];
}
