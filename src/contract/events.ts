// The audit trail (beyond the spec): GET /flipbooks/:id/events, a page at a time, each event with
// who did it (docs/audit.md). The shapes src/app/eventLog.ts and src/app/eventContext.ts produce.
import { type Static, Type } from '@sinclair/typebox';
import { FLIPBOOK_EVENT_TYPES } from '../domain/eventTypes.ts';
import { Closed, Count, Named, Paging, StringEnum, Uuid } from './common.ts';

const nullable = (description: string, options: { maxLength?: number } = {}) =>
  Type.Union([Type.String(options), Type.Null()], { description });

export const Actor = Type.Union(
  [
    Closed(
      {
        type: Type.Literal('api_key'),
        id: Uuid('The API key’s id'),
        name: nullable('The key’s label, if it has one'),
      },
      { description: 'An API request, by the key’s id and label' },
    ),
    Closed(
      {
        type: Type.Literal('user'),
        id: Uuid('The person’s user id'),
        email: Type.String({ description: 'Their email address, as they sign in' }),
      },
      { description: 'A person signed in to the dashboard' },
    ),
    Closed(
      { type: StringEnum(['admin', 'worker']), id: Type.String({ minLength: 1 }) },
      {
        description:
          'An admin command: `--as NAME`, or the operating-system user who ran it; processing: the worker as host:pid',
      },
    ),
    Closed(
      { type: StringEnum(['system', 'unknown']) },
      {
        description:
          '`system`: the service itself; `unknown`: recorded before the audit trail existed',
      },
    ),
  ],
  { title: 'Actor', description: 'Who did it' },
);

export const EventMetadata = Named(
  'EventMetadata',
  {
    actor: Actor,
    request_id: nullable('The `X-Request-Id` of the HTTP request that caused it; null otherwise'),
    client_ip: nullable(
      'The client’s IP address (the rate limit’s proxy rules); null when not recorded (the operator can turn it off)',
    ),
    user_agent: nullable('The client’s User-Agent, truncated; null when not recorded', {
      maxLength: 256,
    }),
    correlation_id: nullable(
      'The story it belongs to: the request id that started it (processing events carry the upload’s)',
    ),
    causation_id: nullable(
      'The id of the event that caused it (processing events: the version’s `VersionUploaded`)',
    ),
  },
  {
    description:
      'Who did it, from where, in which story. Events recorded before the audit trail existed show `actor` `{"type": "unknown"}` and null fields',
  },
);

export const Event = Named(
  'Event',
  {
    id: Uuid('The event’s id: what a later event’s `causation_id` names'),
    stream: Type.String({
      pattern: '^(flipbook|workspace)-[0-9a-f-]{36}$',
      description: 'The stream it belongs to: `flipbook-<flipbook id>`',
    }),
    position: Count('Its position in the stream, from 1, without gaps', 1),
    at: Type.String({
      format: 'date-time',
      description: 'When it happened: RFC 3339 in UTC with milliseconds',
    }),
    type: Type.String({
      examples: FLIPBOOK_EVENT_TYPES,
      description: 'What happened (past tense); new types may appear',
    }),
    data: Type.Unsafe<Record<string, unknown>>({
      type: 'object',
      description:
        'The event’s fields, as recorded (camelCase, e.g. `versionId`, `occurredAt`); they depend on `type`. Hashes of API keys are never shown',
    }),
    metadata: EventMetadata,
  },
  { description: 'One event of the log, as recorded' },
);
export type Event = Static<typeof Event>;

export const EventList = Named('EventList', {
  events: Type.Array(Event, { maxItems: 100 }),
  page: Count('The page returned', 1),
  per_page: Type.Integer({ minimum: 1, maximum: 100, description: 'Events per page' }),
  total_pages: Count('Number of pages of events'),
});
export type EventList = Static<typeof EventList>;

/** GET /flipbooks/:id/events: the paging src/http/listQuery.ts enforces. */
export const EventsQuery = Closed(Paging(50, 'Events per page'));

/** GET /flipbooks/:id?at=: the flipbook as it was at that moment. */
export const AtQuery = Closed({
  at: Type.Optional(
    Type.String({
      format: 'date-time',
      examples: ['2026-11-23T12:00:00Z'],
      description:
        'Beyond the spec: answer the flipbook as it was at this moment, RFC 3339 with its offset (e.g. `2026-11-23T12:00:00Z`): its title, the versions it had then with their status, and which one was active. The pages are those of the version active then; a version whose files were deleted since still lists its pages, but their image URLs are no longer served (404). `created_at`/`updated_at` are as they were; `url` is today’s reader URL, which shows the flipbook as it is now',
    }),
  ),
});
