// A workspace's webhook endpoints, decided on the workspace's stream: added on the Team plan
// (at most MAX_ENDPOINTS live ones), removed, disabled by the service when deliveries keep failing
// or the receiver answers 410 Gone, enabled again by a person. The secret that signs deliveries is
// not in any event (events are exported and kept forever): the use case keeps it in its own table.
import type { Event } from '@event-driven-io/emmett';
import { InvalidInput, NotFound, RuleBroken } from '../errors.ts';
import { plainName } from '../flipbookFields.ts';
import { PUBLIC_EVENT_TYPES, type PublicEventType } from '../publicEventTypes.ts';
import { requireWorkspace } from './requireWorkspace.ts';
import { workspaceEventData } from './workspaceEventData.ts';

export const MAX_ENDPOINTS = 10;
export const MAX_URL = 2000;
export const MAX_DESCRIPTION = 500;

export type WebhookEndpointAdded = Event<
  'WebhookEndpointAdded',
  {
    workspaceId: string;
    webhookId: string;
    url: string;
    /** the public event types it receives; null: every type */
    events: PublicEventType[] | null;
    description: string;
    occurredAt: string;
  }
>;
export type WebhookEndpointRemoved = Event<
  'WebhookEndpointRemoved',
  { workspaceId: string; webhookId: string; occurredAt: string }
>;
/** `gone`: the receiver answered 410; `failing`: a delivery failed every retry, for about a day. */
export type WebhookEndpointDisabled = Event<
  'WebhookEndpointDisabled',
  { workspaceId: string; webhookId: string; reason: 'gone' | 'failing'; occurredAt: string }
>;
export type WebhookEndpointEnabled = Event<
  'WebhookEndpointEnabled',
  { workspaceId: string; webhookId: string; occurredAt: string }
>;

export type WebhookEvent =
  | WebhookEndpointAdded
  | WebhookEndpointRemoved
  | WebhookEndpointDisabled
  | WebhookEndpointEnabled;

export type EndpointState = { enabled: boolean; removed: boolean };

export type AddWebhook = {
  type: 'AddWebhook';
  data: {
    webhookId: string;
    url: string;
    events: string[] | null;
    description: string;
    now: Date;
  };
};
export type RemoveWebhook = { type: 'RemoveWebhook'; data: { webhookId: string; now: Date } };
export type DisableWebhook = {
  type: 'DisableWebhook';
  data: { webhookId: string; reason: 'gone' | 'failing'; now: Date };
};
export type EnableWebhook = { type: 'EnableWebhook'; data: { webhookId: string; now: Date } };
export type WebhookCommand = AddWebhook | RemoveWebhook | DisableWebhook | EnableWebhook;

/**
 * What webhooks' decisions read of a workspace: ./workspace.ts's state is one (kept structural,
 * so the aggregate that holds the endpoints and this file do not import each other).
 */
type Workspace =
  | { status: 'none' }
  | {
      status: 'created';
      workspaceId: string;
      name: string;
      plan: string;
      webhooks?: Record<string, EndpointState>;
    };
type Created = Extract<Workspace, { status: 'created' }>;

const endpointsOf = (state: Created) => state.webhooks ?? {};
const live = (state: Created, webhookId: string) => {
  const endpoint = endpointsOf(state)[webhookId];
  if (!endpoint || endpoint.removed) throw new NotFound(`No webhook with id ${webhookId}`);
  return endpoint;
};

/** A receiver's address: absolute http(s), no user:password in it, no fragment. */
export const checkWebhookUrl = (raw: string) => {
  if (typeof raw !== 'string' || raw.trim() === '')
    throw new InvalidInput('Give the webhook a url');
  if (raw.length > MAX_URL)
    throw new InvalidInput(`A webhook url has at most ${MAX_URL} characters`);
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new InvalidInput(`Not a valid url: ${raw.slice(0, 200)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new InvalidInput('A webhook url must start with https:// or http://');
  }
  if (url.username || url.password) {
    throw new InvalidInput('A webhook url must not hold a user name or password');
  }
  url.hash = '';
  return url.toString();
};

/** Storable text without control characters or direction controls (line breaks become spaces). */
const webhookDescription = (raw: string) => {
  if (raw.trim() === '') return '';
  const value = plainName('description', raw.replace(/[\r\n\t]+/g, ' '));
  if ([...value].length > MAX_DESCRIPTION) {
    throw new InvalidInput(`Invalid description: at most ${MAX_DESCRIPTION} characters`);
  }
  return value;
};

export const checkEventFilter = (events: string[] | null): PublicEventType[] | null => {
  if (events === null) return null;
  if (!Array.isArray(events) || events.length === 0) {
    throw new InvalidInput('events: give at least one event type, or leave it out for every type');
  }
  const unknown = events.filter((e) => !(PUBLIC_EVENT_TYPES as readonly string[]).includes(e));
  if (unknown.length > 0) {
    throw new InvalidInput(
      `Unknown event type ${JSON.stringify(unknown[0])}: one of ${PUBLIC_EVENT_TYPES.join(', ')}`,
    );
  }
  return [...new Set(events)] as PublicEventType[];
};

const addWebhook = ({ data }: AddWebhook, state: Workspace): WebhookEvent[] => {
  const ws = requireWorkspace(state);
  if (endpointsOf(ws)[data.webhookId]) return [];
  if (ws.plan !== 'team') {
    throw new RuleBroken(
      `Webhooks are available on the Team plan only; workspace "${ws.name}" is on the ${ws.plan} plan`,
    );
  }
  const liveCount = Object.values(endpointsOf(ws)).filter((e) => !e.removed).length;
  if (liveCount >= MAX_ENDPOINTS) {
    throw new RuleBroken(
      `A workspace has at most ${MAX_ENDPOINTS} webhooks: remove one before adding another`,
    );
  }
  const description = webhookDescription(data.description);
  return [
    {
      type: 'WebhookEndpointAdded',
      data: workspaceEventData(ws, data.now, {
        webhookId: data.webhookId,
        url: checkWebhookUrl(data.url),
        events: checkEventFilter(data.events),
        description,
      }),
    },
  ];
};

const removeWebhook = ({ data }: RemoveWebhook, state: Workspace): WebhookEvent[] => {
  const ws = requireWorkspace(state);
  live(ws, data.webhookId);
  return [
    {
      type: 'WebhookEndpointRemoved',
      data: workspaceEventData(ws, data.now, { webhookId: data.webhookId }),
    },
  ];
};

const disableWebhook = ({ data }: DisableWebhook, state: Workspace): WebhookEvent[] => {
  const ws = requireWorkspace(state);
  if (!live(ws, data.webhookId).enabled) return [];
  return [
    {
      type: 'WebhookEndpointDisabled',
      data: workspaceEventData(ws, data.now, { webhookId: data.webhookId, reason: data.reason }),
    },
  ];
};

const enableWebhook = ({ data }: EnableWebhook, state: Workspace): WebhookEvent[] => {
  const ws = requireWorkspace(state);
  if (live(ws, data.webhookId).enabled) return [];
  return [
    {
      type: 'WebhookEndpointEnabled',
      data: workspaceEventData(ws, data.now, { webhookId: data.webhookId }),
    },
  ];
};

export const decideWebhooks = (command: WebhookCommand, state: Workspace): WebhookEvent[] => {
  switch (command.type) {
    case 'AddWebhook':
      return addWebhook(command, state);
    case 'RemoveWebhook':
      return removeWebhook(command, state);
    case 'DisableWebhook':
      return disableWebhook(command, state);
    case 'EnableWebhook':
      return enableWebhook(command, state);
  }
};

export const evolveWebhooks = (
  endpoints: Record<string, EndpointState>,
  event: WebhookEvent,
): Record<string, EndpointState> => {
  const id = event.data.webhookId;
  const current = endpoints[id];
  switch (event.type) {
    case 'WebhookEndpointAdded':
      return { ...endpoints, [id]: { enabled: true, removed: false } };
    case 'WebhookEndpointRemoved':
      return current ? { ...endpoints, [id]: { ...current, removed: true } } : endpoints;
    case 'WebhookEndpointDisabled':
      return current ? { ...endpoints, [id]: { ...current, enabled: false } } : endpoints;
    case 'WebhookEndpointEnabled':
      return current ? { ...endpoints, [id]: { ...current, enabled: true } } : endpoints;
  }
};
