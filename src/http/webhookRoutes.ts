// The event feed and webhooks (beyond the spec; docs/webhooks.md, docs/api.md): GET /events, and
// POST/GET /webhooks, GET/DELETE /webhooks/:id, POST /webhooks/:id/enable and /test, GET
// /webhooks/:id/deliveries. Same authentication, rate limit and error shape as every route.
import type { ServerResponse } from 'node:http';
import type { Caller } from '../app/caller.ts';
import { readEventFeed } from '../app/eventFeed.ts';
import {
  addWebhook,
  enableWebhook,
  getWebhook,
  listWorkspaceWebhooks,
  removeWebhook,
  testWebhook,
  type WebhookDeps,
  webhookDeliveries,
} from '../app/webhooks.ts';
import { validator } from '../contract/validate.ts';
import {
  CreateWebhookBody,
  FEED_DEFAULT_LIMIT,
  FEED_MAX_LIMIT,
  FEED_MAX_WAIT_S,
} from '../contract/webhooks.ts';
import { AppError, InvalidInput } from '../domain/errors.ts';
import { PUBLIC_EVENT_TYPES } from '../domain/publicEvents.ts';
import { readText } from './editBody.ts';
import { sendJson } from './respond.ts';
import type { Request, Routes } from './server.ts';

const MAX_SEQ = 9_223_372_036_854_775_807n;

type Authed = (
  handler: (req: Request, res: ServerResponse, caller: Caller) => Promise<void>,
) => (req: Request, res: ServerResponse) => Promise<void>;

const checkCreate = validator(CreateWebhookBody);

/** The body of POST /webhooks, or the first refusal in words naming the field. */
const readCreate = async (req: Request) => {
  if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '')) {
    throw new InvalidInput('The body must be JSON (Content-Type: application/json)');
  }
  let value: unknown;
  try {
    value = JSON.parse(await readText(req, 'a webhook'));
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new InvalidInput('Malformed JSON body');
  }
  const failures = checkCreate(value);
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
    if (first.keyword === 'required') throw new InvalidInput('url is required');
    const field = first.instancePath.split('/')[1] ?? 'body';
    if (field === 'events') {
      throw new InvalidInput(
        `Invalid events: a non-empty list of ${PUBLIC_EVENT_TYPES.join(', ')}`,
      );
    }
    throw new InvalidInput(`Invalid ${field}: ${first.message ?? 'not allowed'}`);
  }
  return value as { url: string; events?: string[]; description?: string };
};

const integer = (
  params: URLSearchParams,
  name: string,
  fallback: number,
  max: number,
  min: number,
) => {
  const raw = params.get(name);
  if (raw === null) return fallback;
  const value = /^\d{1,6}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= min && value <= max)) {
    throw new InvalidInput(`Invalid ${name}: must be an integer from ${min} to ${max}`);
  }
  return value;
};

export const mountWebhookRoutes = (routes: Routes, authed: Authed, deps: WebhookDeps) => {
  routes.get(
    '/api/v1/events',
    authed(async (req, res, caller) => {
      const params = new URL(req.url ?? '/', 'http://x').searchParams;
      const after = params.get('after') ?? '0';
      // (a seq is a PostgreSQL bigint: 19 digits may still be past its largest value)
      if (
        !/^(0|[1-9][0-9]{0,18}|now)$/.test(after) ||
        (after !== 'now' && BigInt(after) > MAX_SEQ)
      ) {
        throw new InvalidInput('Invalid after: use the `next` of a previous page, 0 or now');
      }
      const limit = integer(params, 'limit', FEED_DEFAULT_LIMIT, FEED_MAX_LIMIT, 1);
      const waitS = integer(params, 'wait', 0, FEED_MAX_WAIT_S, 0);
      // A client that hangs up stops the wait (no query every 250 ms for nobody).
      let gone = false;
      res.on('close', () => {
        gone = true;
      });
      const feed = await readEventFeed(deps.store, caller, { after, limit, waitS }, () => gone);
      if (!gone) sendJson(res, 200, feed);
    }),
  );

  routes.post(
    '/api/v1/webhooks',
    authed(async (req, res, caller) => {
      sendJson(res, 201, await addWebhook(deps, caller, await readCreate(req)));
    }),
  );
  routes.get(
    '/api/v1/webhooks',
    authed(async (_req, res, caller) => {
      sendJson(res, 200, await listWorkspaceWebhooks(deps.store, caller));
    }),
  );
  routes.get(
    '/api/v1/webhooks/:webhookId',
    authed(async (req, res, caller) => {
      sendJson(res, 200, await getWebhook(deps.store, caller, req.params.webhookId ?? ''));
    }),
  );
  routes.delete(
    '/api/v1/webhooks/:webhookId',
    authed(async (req, res, caller) => {
      const id = req.params.webhookId ?? '';
      await removeWebhook(deps, caller, id);
      sendJson(res, 200, { id: id.toLowerCase(), deleted: true });
    }),
  );
  routes.post(
    '/api/v1/webhooks/:webhookId/enable',
    authed(async (req, res, caller) => {
      sendJson(res, 200, await enableWebhook(deps, caller, req.params.webhookId ?? ''));
    }),
  );
  routes.post(
    '/api/v1/webhooks/:webhookId/test',
    authed(async (req, res, caller) => {
      sendJson(res, 202, await testWebhook(deps, caller, req.params.webhookId ?? ''));
    }),
  );
  routes.get(
    '/api/v1/webhooks/:webhookId/deliveries',
    authed(async (req, res, caller) => {
      sendJson(res, 200, await webhookDeliveries(deps.store, caller, req.params.webhookId ?? ''));
    }),
  );
};
