// The event feed and webhooks (beyond the spec; docs/webhooks.md): GET /events, and POST/GET
// /webhooks, GET/DELETE /webhooks/:webhookId, POST .../enable and .../test, GET .../deliveries.
import { readEventFeed } from '../../app/eventFeed.ts';
import {
  addWebhook,
  enableWebhook,
  getWebhook,
  listWorkspaceWebhooks,
  removeWebhook,
  testWebhook,
  webhookDeliveries,
} from '../../app/webhooks.ts';
import type { Failure } from '../../contract/validate.ts';
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
} from '../../contract/webhooks.ts';
import { InvalidInput } from '../../domain/errors.ts';
import { PUBLIC_EVENT_TYPES } from '../../domain/publicEventTypes.ts';
import { MAX_ENDPOINTS } from '../../domain/workspace/webhooks.ts';
import { MAX_EDIT_BYTES } from '../editBody.ts';
import { error } from '../endpoint.ts';
import { apiEndpoint, type EndpointDeps, WebhookParams } from './declare.ts';

const MAX_SEQ = 9_223_372_036_854_775_807n;
const INVALID_AFTER = 'Invalid after: use the `next` of a previous page, 0 or now';

/** The first refusal of a POST /webhooks body, in words naming the field. */
/** A field's refusal in the house's words (as PATCH's), not Ajv's. */
const fieldRefusal = (field: string, failure: Failure) => {
  const limit = (failure.params as { limit?: number }).limit;
  switch (failure.keyword) {
    case 'type':
      return `Invalid ${field}: must be a string`;
    case 'maxLength':
      return `Invalid ${field}: at most ${limit} characters`;
    case 'minLength':
      return field === 'url' ? 'url is required' : `Invalid ${field}: must not be empty`;
    default:
      return `Invalid ${field}: ${failure.message ?? 'not allowed'}`;
  }
};

const readCreate = (value: unknown, failures: Failure[]) => {
  const first = failures[0];
  if (first) {
    if (first.instancePath === '' && first.keyword === 'type') {
      throw new InvalidInput(
        'The body must be a JSON object with url, and optionally events and description',
      );
    }
    if (first.keyword === 'additionalProperties') {
      const key = (first.params as { additionalProperty: string }).additionalProperty;
      throw new InvalidInput(
        `Unknown field ${JSON.stringify(key).slice(0, 100)}: use url, events, description`,
      );
    }
    const body = value as { url?: unknown };
    if (first.keyword === 'required' || body.url === null)
      throw new InvalidInput('url is required');
    const field = first.instancePath.split('/')[1] ?? 'body';
    if (field === 'events') {
      throw new InvalidInput(
        `Invalid events: a non-empty list of ${PUBLIC_EVENT_TYPES.join(', ')}`,
      );
    }
    throw new InvalidInput(fieldRefusal(field, first));
  }
  return value as { url: string; events?: string[]; description?: string };
};

const webhookNotFound = error('`No webhook with id <id>` (also another workspace’s webhook)');

export const WEBHOOK_ENDPOINTS = [
  apiEndpoint({
    method: 'get',
    path: '/events',
    operationId: 'listEvents',
    tag: 'webhooks',
    summary: 'The workspace’s event feed (beyond the spec)',
    description:
      'The workspace’s public events in the order they happened, after a cursor: pass each answer’s `next` as `after`. With `wait`, an answer with no event waits up to that many seconds for one (long polling). Types and their `data` are a stable contract (docs/webhooks.md).',
    query: EventFeedQuery,
    queryInvalid: { after: INVALID_AFTER },
    ok: {
      status: 200,
      description: 'The events after the cursor (none when there are none yet)',
      schema: EventFeed,
    },
    errors: {
      400: error(
        '`Invalid after: use the `next` of a previous page, 0 or now`, or an invalid `limit` or `wait` (e.g. `Invalid limit: must be an integer from 1 to 100`)',
      ),
    },
    handle: async ({ res, caller, query }, deps) => {
      // (a seq is a PostgreSQL bigint: 19 digits may still be past its largest value)
      if (query.after !== 'now' && BigInt(query.after) > MAX_SEQ) {
        throw new InvalidInput(INVALID_AFTER);
      }
      // A client that hangs up stops the wait (no query every 250 ms for nobody), also one gone
      // before the wait began.
      const options = { after: query.after, limit: query.limit, waitS: query.wait };
      return readEventFeed(deps.store, caller, options, () => res.destroyed);
    },
  }),

  apiEndpoint({
    method: 'post',
    path: '/webhooks',
    operationId: 'createWebhook',
    tag: 'webhooks',
    summary: 'Add a webhook (beyond the spec; Team plan)',
    description:
      'Deliveries of the workspace’s events are POSTed to `url`, signed as Standard Webhooks define (`webhook-id`, `webhook-timestamp`, `webhook-signature`). The answer holds the signing `secret`, shown this once.',
    body: { json: CreateWebhookBody, limit: MAX_EDIT_BYTES, what: 'a webhook', read: readCreate },
    ok: { status: 201, description: 'The webhook, with its secret', schema: CreatedWebhook },
    errors: {
      400: error(
        '`url is required`, `Invalid events: ...`, `A webhook url must start with https:// or http://`, `Unknown field "<name>": use url, events, description`, `Malformed JSON body`',
      ),
      413: error(`\`Request body too large: a webhook is at most ${MAX_EDIT_BYTES / 1024} KB\``),
      422: error(
        `\`Webhooks are available on the Team plan only; ...\`, \`A workspace has at most ${MAX_ENDPOINTS} webhooks: ...\`, or \`<host> resolves to <address>, a private or local address; ...\``,
      ),
    },
    handle: ({ caller, body }, deps) => addWebhook(webhookDeps(deps), caller, body),
  }),

  apiEndpoint({
    method: 'get',
    path: '/webhooks',
    operationId: 'listWebhooks',
    tag: 'webhooks',
    summary: 'The workspace’s webhooks (beyond the spec)',
    description: 'Every webhook of the workspace, oldest first; secrets are never shown again.',
    ok: {
      status: 200,
      description: 'Every webhook, oldest first, without secrets',
      schema: WebhookList,
    },
    handle: ({ caller }, deps) => listWorkspaceWebhooks(deps.store, caller),
  }),

  apiEndpoint({
    method: 'get',
    path: '/webhooks/:webhookId',
    operationId: 'getWebhook',
    tag: 'webhooks',
    summary: 'One webhook (beyond the spec)',
    description:
      'Its url, event filter and status (`disabled_reason` says why the service turned it off).',
    params: WebhookParams,
    ok: { status: 200, description: 'The webhook', schema: Webhook },
    errors: { 404: webhookNotFound },
    handle: ({ caller, params }, deps) => getWebhook(deps.store, caller, params.webhookId),
  }),

  apiEndpoint({
    method: 'delete',
    path: '/webhooks/:webhookId',
    operationId: 'deleteWebhook',
    tag: 'webhooks',
    summary: 'Remove a webhook (beyond the spec)',
    description: 'Nothing more is sent to it; deliveries still queued are cancelled.',
    params: WebhookParams,
    ok: { status: 200, description: 'Removed', schema: WebhookRemoved },
    errors: { 404: webhookNotFound },
    handle: async ({ caller, params }, deps) => {
      await removeWebhook(webhookDeps(deps), caller, params.webhookId);
      return { id: params.webhookId, deleted: true as const };
    },
  }),

  apiEndpoint({
    method: 'post',
    path: '/webhooks/:webhookId/enable',
    operationId: 'enableWebhook',
    tag: 'webhooks',
    summary: 'Turn a disabled webhook back on (beyond the spec)',
    description:
      'After a 410 or a day of failed deliveries the service disables a webhook; this turns it back on (events from then on are delivered).',
    params: WebhookParams,
    ok: { status: 200, description: 'The webhook, enabled', schema: Webhook },
    errors: { 404: webhookNotFound },
    handle: ({ caller, params }, deps) =>
      enableWebhook(webhookDeps(deps), caller, params.webhookId),
  }),

  apiEndpoint({
    method: 'post',
    path: '/webhooks/:webhookId/test',
    operationId: 'testWebhook',
    tag: 'webhooks',
    summary: 'Send a webhook.test delivery (beyond the spec)',
    description:
      'Queues a `webhook.test` delivery (`data`: `{"webhook_id"}`), sent and retried like any other; its deliveries list shows how it went.',
    params: WebhookParams,
    ok: { status: 202, description: 'Queued', schema: TestQueued },
    errors: {
      400: error('`This webhook is disabled: enable it before testing it`'),
      404: webhookNotFound,
    },
    handle: ({ caller, params }, deps) => testWebhook(webhookDeps(deps), caller, params.webhookId),
  }),

  apiEndpoint({
    method: 'get',
    path: '/webhooks/:webhookId/deliveries',
    operationId: 'listWebhookDeliveries',
    tag: 'webhooks',
    summary: 'A webhook’s latest 50 deliveries, newest first (beyond the spec)',
    description:
      'Each delivery’s status, attempts, last HTTP status or error, and when it is tried next.',
    params: WebhookParams,
    ok: { status: 200, description: 'Its deliveries', schema: DeliveryList },
    errors: { 404: webhookNotFound },
    handle: ({ caller, params }, deps) => webhookDeliveries(deps.store, caller, params.webhookId),
  }),
];

const webhookDeps = (deps: EndpointDeps) => ({ ...deps, allowPrivate: deps.webhookAllowPrivate });
