// Every event type the service records. A Record keyed by the union: adding an event type without
// listing it here fails the type check, so the audit chain (which must see every event) cannot
// silently miss one.
import type { FlipbookEvent } from './flipbook/flipbook.ts';
import type { UserEvent } from './user/user.ts';
import type { WorkspaceEvent } from './workspace/workspace.ts';

export type AnyEvent = FlipbookEvent | WorkspaceEvent | UserEvent;

const ALL: Record<AnyEvent['type'], true> = {
  WorkspaceCreated: true,
  ApiKeyIssued: true,
  ApiKeyRolled: true,
  ApiKeyRevoked: true,
  WorkspacePlanChanged: true,
  FlipbookCreated: true,
  FlipbookEdited: true,
  FlipbookArchived: true,
  FlipbookRestored: true,
  FlipbookDeleted: true,
  FlipbookDownloadChanged: true,
  VersionUploaded: true,
  VersionProcessingStarted: true,
  VersionPagesRendered: true,
  VersionProcessed: true,
  VersionProcessingFailed: true,
  VersionActivated: true,
  VersionDeleted: true,
  UserInvited: true,
  InvitationRevoked: true,
  InvitationAccepted: true,
  MemberRoleChanged: true,
  MemberRemoved: true,
  UserPasswordSet: true,
  UserSignedIn: true,
  UserSignInFailed: true,
  UserSignedOut: true,
  UserSessionRevoked: true,
  PasskeyAdded: true,
  PasskeyRemoved: true,
  WebhookEndpointAdded: true,
  WebhookEndpointRemoved: true,
  WebhookEndpointDisabled: true,
  WebhookEndpointEnabled: true,
};

export const EVENT_TYPES = Object.keys(ALL) as AnyEvent['type'][];
