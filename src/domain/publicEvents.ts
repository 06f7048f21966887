// The workspace's public events: what the event feed (GET /api/v1/events) and webhooks tell the
// outside world, derived from the stored events on read. A public type and its `data` are a
// stable contract (docs/webhooks.md): internal fields (checksums, page lists, attempts' details,
// anything of the store) never leave, and a stored event's shape may change without changing
// what is published (this function is where old and new shapes meet).
import { publicTypeOf } from './eventTypes.ts';
import type { PublicEvent } from './publicEventTypes.ts';

const pick = <K extends string>(data: Record<string, unknown>, keys: Record<K, string>) => {
  const out: Record<string, unknown> = {};
  for (const [to, from] of Object.entries(keys) as [K, string][]) {
    if (data[from] !== undefined) out[to] = data[from];
  }
  return out;
};

const ofFlipbook = { flipbook_id: 'flipbookId' };
const ofVersion = { flipbook_id: 'flipbookId', version_id: 'versionId' };
const ofLink = { flipbook_id: 'flipbookId', link_id: 'linkId' };
/** A share link's fields as the API names them: never its token's hash or its password's id. */
const linkFields = (data: Record<string, unknown>) => ({
  ...pick(data, {
    label: 'label',
    expires_at: 'expiresAt',
    allow_download: 'allowDownload',
    identify: 'identify',
    watermark: 'watermark',
    notify: 'notify',
  }),
  ...(data.passwordId === undefined ? {} : { has_password: data.passwordId !== null }),
  // the terms are long and the allow list personal: whether there are any, never what
  ...(data.terms === undefined ? {} : { has_terms: data.terms !== null }),
  ...(data.allowListId === undefined ? {} : { has_allow_list: data.allowListId !== null }),
});

/** The public face of a stored event; null for events that have none (sign-ins, keys...). */
export const publicEvent = (type: string, data: Record<string, unknown>): PublicEvent | null => {
  const publicType = publicTypeOf(type);
  return publicType && { type: publicType, data: publicData(type, data) };
};

/** The public `data` of a stored event that has a public face. */
const publicData = (type: string, data: Record<string, unknown>): Record<string, unknown> => {
  switch (type) {
    case 'FlipbookArchived':
    case 'FlipbookRestored':
    case 'FlipbookDeleted':
      return pick(data, ofFlipbook);
    case 'FlipbookCreated':
      return {
        ...pick(data, {
          ...ofFlipbook,
          title: 'title',
          slug: 'slug',
          description: 'description',
        }),
        visibility: data.visibility ?? 'public',
      };
    case 'FlipbookVisibilityChanged':
      return { ...pick(data, ofFlipbook), visibility: data.visibility };
    case 'FlipbookEmbedsChanged':
      return { ...pick(data, ofFlipbook), embed_origins: data.origins ?? [] };
    case 'ShareLinkCreated':
      return { ...pick(data, ofLink), ...linkFields(data) };
    case 'ShareLinkEdited':
      // only the fields that changed
      return { ...pick(data, ofLink), changes: linkFields(data) };
    case 'ShareLinkRevoked':
      return pick(data, ofLink);
    case 'FlipbookEdited':
      return {
        ...pick(data, ofFlipbook),
        // only the fields that changed
        changes: pick(data, {
          title: 'title',
          slug: 'slug',
          description: 'description',
          direction: 'direction',
        }),
      };
    case 'FlipbookDownloadChanged':
      return { ...pick(data, ofFlipbook), allow_download: data.allowed === true };
    case 'VersionUploaded': {
      const file = (data.file ?? {}) as Record<string, unknown>;
      return {
        ...pick(data, { ...ofVersion, number: 'number' }),
        file_name: file.name ?? null,
        file_size: file.size ?? null,
        activate_on_done: data.activateOnDone === true,
      };
    }
    case 'VersionProcessingStarted':
      return pick(data, { ...ofVersion, page_count: 'pageCount', attempt: 'attempt' });
    case 'VersionProcessed':
      return pick(data, { ...ofVersion, page_count: 'pageCount' });
    case 'VersionProcessingFailed':
      return { ...pick(data, ofVersion), error_reason: data.reason ?? 'Processing failed' };
    case 'VersionActivated':
      return {
        ...pick(data, ofVersion),
        previous_version_id: data.previousVersionId ?? null,
      };
    case 'VersionDeleted':
      return pick(data, ofVersion);
    case 'PreviewPublished':
      return {
        ...pick(data, { ...ofVersion, name: 'name' }),
        replaced_version_id: data.replacedVersionId ?? null,
      };
    case 'PreviewCompared':
      return pick(data, {
        ...ofVersion,
        name: 'name',
        against_version_id: 'againstVersionId',
        pages_before: 'pagesBefore',
        pages_after: 'pagesAfter',
        changed: 'changed',
        inserted: 'inserted',
        removed: 'removed',
        unchanged: 'unchanged',
        failure: 'failure',
      });
    case 'PreviewPromoted':
      return pick(data, { ...ofVersion, name: 'name' });
    case 'PreviewDeleted':
      return { ...pick(data, { ...ofVersion, name: 'name' }), expired: data.expired === true };
    case 'WebhookEndpointAdded':
      return {
        ...pick(data, { webhook_id: 'webhookId', url: 'url', description: 'description' }),
        events: data.events ?? null,
      };
    case 'WebhookEndpointDisabled':
      return pick(data, { webhook_id: 'webhookId', reason: 'reason' });
    case 'WebhookEndpointRemoved':
    case 'WebhookEndpointEnabled':
      return pick(data, { webhook_id: 'webhookId' });
    default:
      // (a public face with no data of its own would be a bug: every one names its subject)
      return {};
  }
};
