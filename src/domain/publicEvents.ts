// The workspace's public events: what the event feed (GET /api/v1/events) and webhooks tell the
// outside world, derived from the stored events on read. A public type and its `data` are a
// stable contract (docs/webhooks.md): internal fields (checksums, page lists, attempts' details,
// anything of the store) never leave, and a stored event's shape may change without changing
// what is published (this function is where old and new shapes meet).
import type { AnyEvent } from './eventTypes.ts';

export const PUBLIC_EVENT_TYPES = [
  'flipbook.created',
  'flipbook.updated',
  'flipbook.archived',
  'flipbook.unarchived',
  'flipbook.download_changed',
  'flipbook.deleted',
  'version.uploaded',
  'version.processing',
  'version.done',
  'version.failed',
  'version.activated',
  'version.deleted',
  'webhook.created',
  'webhook.deleted',
  'webhook.disabled',
  'webhook.enabled',
] as const;
export type PublicEventType = (typeof PUBLIC_EVENT_TYPES)[number];

export type PublicEvent = { type: PublicEventType; data: Record<string, unknown> };

/** The stored event types that have a public face (the feed's index holds only these). */
export const PUBLISHED_STORED_TYPES: AnyEvent['type'][] = [
  'FlipbookCreated',
  'FlipbookEdited',
  'FlipbookArchived',
  'FlipbookRestored',
  'FlipbookDownloadChanged',
  'FlipbookDeleted',
  'VersionUploaded',
  'VersionProcessingStarted',
  'VersionProcessed',
  'VersionProcessingFailed',
  'VersionActivated',
  'VersionDeleted',
  'WebhookEndpointAdded',
  'WebhookEndpointRemoved',
  'WebhookEndpointDisabled',
  'WebhookEndpointEnabled',
];

const pick = <K extends string>(data: Record<string, unknown>, keys: Record<K, string>) => {
  const out: Record<string, unknown> = {};
  for (const [to, from] of Object.entries(keys) as [K, string][]) {
    if (data[from] !== undefined) out[to] = data[from];
  }
  return out;
};

const ofFlipbook = { flipbook_id: 'flipbookId' };
const ofVersion = { flipbook_id: 'flipbookId', version_id: 'versionId' };

/** The public face of a stored event; null for events that have none (sign-ins, keys...). */
export const publicEvent = (type: string, data: Record<string, unknown>): PublicEvent | null => {
  switch (type) {
    case 'FlipbookCreated':
      return {
        type: 'flipbook.created',
        data: pick(data, {
          ...ofFlipbook,
          title: 'title',
          slug: 'slug',
          description: 'description',
        }),
      };
    case 'FlipbookEdited':
      return {
        type: 'flipbook.updated',
        data: {
          ...pick(data, ofFlipbook),
          // only the fields that changed
          changes: pick(data, {
            title: 'title',
            slug: 'slug',
            description: 'description',
            direction: 'direction',
          }),
        },
      };
    case 'FlipbookArchived':
      return { type: 'flipbook.archived', data: pick(data, ofFlipbook) };
    case 'FlipbookRestored':
      return { type: 'flipbook.unarchived', data: pick(data, ofFlipbook) };
    case 'FlipbookDownloadChanged':
      return {
        type: 'flipbook.download_changed',
        data: { ...pick(data, ofFlipbook), allow_download: data.allowed === true },
      };
    case 'FlipbookDeleted':
      return { type: 'flipbook.deleted', data: pick(data, ofFlipbook) };
    case 'VersionUploaded': {
      const file = (data.file ?? {}) as Record<string, unknown>;
      return {
        type: 'version.uploaded',
        data: {
          ...pick(data, { ...ofVersion, number: 'number' }),
          file_name: file.name ?? null,
          file_size: file.size ?? null,
          activate_on_done: data.activateOnDone === true,
        },
      };
    }
    case 'VersionProcessingStarted':
      return {
        type: 'version.processing',
        data: pick(data, { ...ofVersion, page_count: 'pageCount', attempt: 'attempt' }),
      };
    case 'VersionProcessed':
      return { type: 'version.done', data: pick(data, { ...ofVersion, page_count: 'pageCount' }) };
    case 'VersionProcessingFailed':
      return {
        type: 'version.failed',
        data: { ...pick(data, ofVersion), error_reason: data.reason ?? 'Processing failed' },
      };
    case 'VersionActivated':
      return {
        type: 'version.activated',
        data: {
          ...pick(data, ofVersion),
          previous_version_id: data.previousVersionId ?? null,
        },
      };
    case 'VersionDeleted':
      return { type: 'version.deleted', data: pick(data, ofVersion) };
    case 'WebhookEndpointAdded':
      return {
        type: 'webhook.created',
        data: {
          ...pick(data, { webhook_id: 'webhookId', url: 'url', description: 'description' }),
          events: data.events ?? null,
        },
      };
    case 'WebhookEndpointRemoved':
      return { type: 'webhook.deleted', data: pick(data, { webhook_id: 'webhookId' }) };
    case 'WebhookEndpointDisabled':
      return {
        type: 'webhook.disabled',
        data: pick(data, { webhook_id: 'webhookId', reason: 'reason' }),
      };
    case 'WebhookEndpointEnabled':
      return { type: 'webhook.enabled', data: pick(data, { webhook_id: 'webhookId' }) };
    default:
      return null;
  }
};
