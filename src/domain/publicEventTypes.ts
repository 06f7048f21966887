// The names of the workspace's public events (docs/webhooks.md), a stable contract: the event
// feed, webhooks, the contract's schemas and the CLI's --events read them. Apart from
// ./publicEvents.ts (which derives them from stored events) so that the map of stored types to
// public ones (./eventTypes.ts) and the derivation do not import each other.
export const PUBLIC_EVENT_TYPES = [
  'flipbook.created',
  'flipbook.updated',
  'flipbook.archived',
  'flipbook.unarchived',
  'flipbook.download_changed',
  'flipbook.visibility_changed',
  'flipbook.embeds_changed',
  'flipbook.deleted',
  'share_link.created',
  'share_link.updated',
  'share_link.revoked',
  'preview.published',
  'preview.compared',
  'preview.promoted',
  'preview.deleted',
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
  // Identified readers (issue 44; src/app/readerAlerts.ts): webhooks only, never in the feed
  // (reading is not an event, and these name a reader, who must stay erasable).
  'reader.identified',
  'share_link.opened',
  'share_link.read',
] as const;
export type PublicEventType = (typeof PUBLIC_EVENT_TYPES)[number];

export type PublicEvent = { type: PublicEventType; data: Record<string, unknown> };
