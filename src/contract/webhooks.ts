// The workspace event feed and webhooks (beyond the spec; docs/webhooks.md): the shapes the API
// answers with and takes, one definition each.
import { type Static, Type } from '@sinclair/typebox';
import { PUBLIC_EVENT_TYPES } from '../domain/publicEventTypes.ts';
import { MAX_DESCRIPTION, MAX_URL } from '../domain/workspace/webhooks.ts';
import { Closed, Count, DateTime, Defaulted, Named, StringEnum, Uuid } from './common.ts';

export const FEED_MAX_LIMIT = 100;
export const FEED_DEFAULT_LIMIT = 50;
export const FEED_MAX_WAIT_S = 30;

export const PublicEventType = StringEnum(PUBLIC_EVENT_TYPES, {
  description: 'A public event type (docs/webhooks.md documents each one’s `data`)',
});

export const FeedEvent = Named(
  'FeedEvent',
  {
    id: Uuid('The event’s id: the same in the feed and in the audit trail'),
    type: PublicEventType,
    at: DateTime('When it happened'),
    data: Type.Record(Type.String(), Type.Unknown(), {
      description: 'What happened: fixed fields per type (docs/webhooks.md)',
    }),
  },
  { description: 'One public event of the workspace' },
);

export const EventFeed = Named(
  'EventFeed',
  {
    events: Type.Array(FeedEvent, { description: 'In the order they happened' }),
    next: Type.String({
      description:
        'The cursor to pass as `after` for the events after these (the same one when there were none)',
    }),
  },
  { description: 'A page of the workspace’s event feed' },
);
export type EventFeed = Static<typeof EventFeed>;

export const EventFeedQuery = Closed({
  after: Defaulted(
    Type.String({
      pattern: '^(0|[1-9][0-9]{0,18}|now)$',
      default: '0',
      description:
        '`next` of the previous page; `0` (the default) for the oldest event, `now` for only events to come',
    }),
  ),
  limit: Defaulted(
    Type.Integer({ minimum: 1, maximum: FEED_MAX_LIMIT, default: FEED_DEFAULT_LIMIT }),
  ),
  wait: Defaulted(
    Type.Integer({
      minimum: 0,
      maximum: FEED_MAX_WAIT_S,
      default: 0,
      description: 'Seconds to wait for an event when there is none yet (long polling)',
    }),
  ),
});

export const Webhook = Named(
  'Webhook',
  {
    id: Uuid('The webhook’s id'),
    url: Type.String({ description: 'Where deliveries are POSTed' }),
    events: Type.Union([Type.Array(PublicEventType), Type.Null()], {
      description: 'The event types it receives; null for every type',
    }),
    description: Type.String(),
    status: StringEnum(['enabled', 'disabled']),
    disabled_reason: Type.Union([StringEnum(['gone', 'failing']), Type.Null()], {
      description:
        '`gone`: the receiver answered 410; `failing`: a delivery failed every retry (about a day); null when enabled or disabled by a person',
    }),
    created_at: DateTime('When it was added'),
  },
  { description: 'A webhook endpoint of the workspace' },
);

export const CreatedWebhook = Named(
  'CreatedWebhook',
  {
    ...Webhook.properties,
    secret: Type.String({
      pattern: '^whsec_[A-Za-z0-9+/=]+$',
      description: 'The signing secret, shown this once (Standard Webhooks’ `whsec_` form)',
    }),
  },
  { description: 'A webhook just added, with its secret' },
);

export const WebhookList = Named('WebhookList', { webhooks: Type.Array(Webhook) });

export const CreateWebhookBody = Closed({
  url: Type.String({ minLength: 1, maxLength: MAX_URL, description: 'An http(s) URL' }),
  events: Type.Optional(
    Type.Array(PublicEventType, {
      minItems: 1,
      description: 'Only these event types (default: every type)',
    }),
  ),
  description: Type.Optional(Type.String({ maxLength: MAX_DESCRIPTION })),
});

export const Delivery = Named(
  'WebhookDelivery',
  {
    id: Uuid('The delivery’s id; its `webhook-id` header is `msg_` and these hex digits'),
    type: Type.String({ description: 'The event type, or `webhook.test`' }),
    status: StringEnum(['pending', 'delivered', 'failed', 'cancelled']),
    attempts: Count('Attempts so far'),
    last_status: Type.Union([Type.Integer(), Type.Null()], {
      description: 'The HTTP status of the last attempt; null if none answered',
    }),
    last_error: Type.Union([Type.String(), Type.Null()]),
    created_at: DateTime('When it was queued'),
    last_attempt_at: Type.Union([DateTime('The last attempt'), Type.Null()]),
    next_attempt_at: Type.Union([DateTime('The next attempt, while pending'), Type.Null()]),
    delivered_at: Type.Union([DateTime('When a 2xx answered'), Type.Null()]),
  },
  { description: 'One delivery of one event to one webhook' },
);

export const DeliveryList = Named('WebhookDeliveryList', { deliveries: Type.Array(Delivery) });

export const WebhookRemoved = Named('WebhookRemoved', {
  id: Uuid('The removed webhook’s id'),
  deleted: Type.Literal(true),
});

export const TestQueued = Named('WebhookTestQueued', {
  delivery_id: Uuid('The test delivery’s id'),
});

/** The path of every endpoint under /webhooks/{webhookId}. */
export const WebhookIdParams = Type.Object({ webhookId: Uuid('Webhook id (any letter case)') });
