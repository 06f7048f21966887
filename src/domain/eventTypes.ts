// Every event type the service records, once: per stream, each with its public face (the type
// the event feed and webhooks give it, src/domain/publicEvents.ts) or null when it has none.
// Records keyed by each stream's union: adding an event type without listing it here fails the
// type check, so neither the audit chain (which must see every event) nor the feed can silently
// miss one. Every other list of event types is derived from these.
import type { FlipbookEvent } from './flipbook/flipbook.ts';
import type { PublicEventType } from './publicEventTypes.ts';
import type { UserEvent } from './user/user.ts';
import type { WorkspaceEvent } from './workspace/workspace.ts';

export type AnyEvent = FlipbookEvent | WorkspaceEvent | UserEvent;
type Faces<E extends AnyEvent> = Record<E['type'], PublicEventType | null>;

const FLIPBOOK: Faces<FlipbookEvent> = {
  FlipbookCreated: 'flipbook.created',
  FlipbookEdited: 'flipbook.updated',
  FlipbookArchived: 'flipbook.archived',
  FlipbookRestored: 'flipbook.unarchived',
  FlipbookDownloadChanged: 'flipbook.download_changed',
  FlipbookVisibilityChanged: 'flipbook.visibility_changed',
  FlipbookEmbedsChanged: 'flipbook.embeds_changed',
  ShareLinkCreated: 'share_link.created',
  ShareLinkEdited: 'share_link.updated',
  ShareLinkRevoked: 'share_link.revoked',
  PreviewPublished: 'preview.published',
  PreviewCompared: 'preview.compared',
  PreviewPromoted: 'preview.promoted',
  PreviewDeleted: 'preview.deleted',
  FlipbookDeleted: 'flipbook.deleted',
  VersionUploaded: 'version.uploaded',
  VersionConverted: null,
  VersionProcessingStarted: 'version.processing',
  VersionPagesRendered: null,
  VersionProcessed: 'version.done',
  VersionProcessingFailed: 'version.failed',
  VersionActivated: 'version.activated',
  VersionDeleted: 'version.deleted',
};

const WORKSPACE: Faces<WorkspaceEvent> = {
  WorkspaceCreated: null,
  ApiKeyIssued: null,
  ApiKeyRolled: null,
  ApiKeyRevoked: null,
  WorkspacePlanChanged: null,
  WorkspaceAnalyticsChanged: null,
  WorkspaceBrandingChanged: null,
  ReaderErased: null,
  UserInvited: null,
  InvitationRevoked: null,
  InvitationAccepted: null,
  MemberJoined: null,
  MemberRoleChanged: null,
  MemberRemoved: null,
  WebhookEndpointAdded: 'webhook.created',
  WebhookEndpointRemoved: 'webhook.deleted',
  WebhookEndpointDisabled: 'webhook.disabled',
  WebhookEndpointEnabled: 'webhook.enabled',
};

const USER: Faces<UserEvent> = {
  UserPasswordSet: null,
  UserSignedIn: null,
  UserSignInFailed: null,
  UserSignedOut: null,
  UserSessionRevoked: null,
  PasskeyAdded: null,
  PasskeyRemoved: null,
};

const typesOf = <E extends AnyEvent>(faces: Faces<E>) => Object.keys(faces) as E['type'][];

export const FLIPBOOK_EVENT_TYPES = typesOf(FLIPBOOK);
export const WORKSPACE_EVENT_TYPES = typesOf(WORKSPACE);
export const USER_EVENT_TYPES = typesOf(USER);
export const EVENT_TYPES: AnyEvent['type'][] = [
  ...WORKSPACE_EVENT_TYPES,
  ...FLIPBOOK_EVENT_TYPES,
  ...USER_EVENT_TYPES,
];

const FACES: Faces<AnyEvent> = { ...FLIPBOOK, ...WORKSPACE, ...USER };

/** The public type of a stored one; null for events that have none (sign-ins, keys...). */
export const publicTypeOf = (type: string): PublicEventType | null =>
  (FACES as Record<string, PublicEventType | null>)[type] ?? null;

/** The stored event types that have a public face (the feed's index holds only these). */
export const PUBLISHED_STORED_TYPES = EVENT_TYPES.filter((type) => FACES[type] !== null);
