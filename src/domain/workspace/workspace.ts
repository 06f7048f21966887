// The workspace aggregate: who owns flipbooks, on which plan, and which API keys may act for it.
// One file (over 300 lines): the aggregate's events, state and evolve, as every aggregate has them
// (members' and webhooks' decisions are files of their own).
import type { Event } from '@event-driven-io/emmett';
import type { Branding, Logo } from './branding.ts';
import { type EndpointState, evolveWebhooks, type WebhookEvent } from './webhooks.ts';

export const PLANS = ['free', 'team'] as const;
export type Plan = (typeof PLANS)[number];

export type WorkspaceCreated = Event<
  'WorkspaceCreated',
  { workspaceId: string; name: string; plan: Plan; occurredAt: string }
>;
export type ApiKeyIssued = Event<
  'ApiKeyIssued',
  {
    workspaceId: string;
    keyId: string;
    /** hex SHA-256 of the full key; the key itself is never stored */
    keyHash: string;
    label: string | null;
    expiresAt: string | null;
    occurredAt: string;
    /** the key this one replaced (`ApiKeyRolled`); absent for a key issued on its own */
    rolledFrom?: string;
  }
>;
/**
 * A key was replaced by `newKeyId` (issued in the same append); it keeps working until
 * `validUntil`, the grace its holder was given to switch, and never after.
 */
export type ApiKeyRolled = Event<
  'ApiKeyRolled',
  { workspaceId: string; keyId: string; newKeyId: string; validUntil: string; occurredAt: string }
>;
export type ApiKeyRevoked = Event<
  'ApiKeyRevoked',
  { workspaceId: string; keyId: string; occurredAt: string }
>;

export type WorkspacePlanChanged = Event<
  'WorkspacePlanChanged',
  { workspaceId: string; plan: Plan; previousPlan: Plan; occurredAt: string }
>;

/**
 * Reader analytics for the workspace's flipbooks (docs/privacy.md): counted or not, and how many
 * days of daily figures are kept. Absent before the first change: on, for ANALYTICS_DAYS.
 */
export type WorkspaceAnalyticsChanged = Event<
  'WorkspaceAnalyticsChanged',
  { workspaceId: string; enabled: boolean; retentionDays: number; occurredAt: string }
>;

/**
 * An identified reader erased at an owner's request (issue 44; docs/privacy.md): how many of
 * the workspace's reader records lost their name. Never the address, nor anything derived from
 * it: the audit trail says that an erasure happened, by whom, not whom it concerned.
 */
export type ReaderErased = Event<
  'ReaderErased',
  { workspaceId: string; readers: number; occurredAt: string }
>;

/**
 * The reader's branding for the workspace's flipbooks (./branding.ts): colours (null: the
 * reader's own), and the logo when it changed (absent: the logo stays as it was; null: none).
 */
export type WorkspaceBrandingChanged = Event<
  'WorkspaceBrandingChanged',
  {
    workspaceId: string;
    accent: string | null;
    background: string | null;
    logo?: Logo | null;
    occurredAt: string;
  }
>;

/** Days of daily figures kept unless the workspace says otherwise: two years. */
export const ANALYTICS_DAYS = 730;
/** The range a workspace may choose (a week to ten years). */
export const ANALYTICS_DAYS_RANGE = [7, 3650] as const;

export const ROLES = ['owner', 'member'] as const;
export type Role = (typeof ROLES)[number];

/**
 * A person is invited to the workspace: the link holds a token, only its SHA-256 is kept. With
 * `userId`, the invitation is for someone already a member (a new password: a reset).
 */
export type UserInvited = Event<
  'UserInvited',
  {
    workspaceId: string;
    invitationId: string;
    email: string;
    role: Role;
    tokenHash: string;
    expiresAt: string;
    userId?: string;
    occurredAt: string;
  }
>;
export type InvitationRevoked = Event<
  'InvitationRevoked',
  { workspaceId: string; invitationId: string; occurredAt: string }
>;
/** The link was used: the person is a member (or, for a reset, stays one) with this user id. */
export type InvitationAccepted = Event<
  'InvitationAccepted',
  {
    workspaceId: string;
    invitationId: string;
    userId: string;
    email: string;
    role: Role;
    occurredAt: string;
  }
>;
/**
 * Someone joined by single sign-on: their provider vouched for an email of a domain the
 * operator lets join this workspace (`serve --oidc-join`), as a member.
 */
export type MemberJoined = Event<
  'MemberJoined',
  {
    workspaceId: string;
    userId: string;
    email: string;
    role: Role;
    via: 'sso';
    domain: string;
    occurredAt: string;
  }
>;
export type MemberRoleChanged = Event<
  'MemberRoleChanged',
  { workspaceId: string; userId: string; role: Role; previousRole: Role; occurredAt: string }
>;
export type MemberRemoved = Event<
  'MemberRemoved',
  { workspaceId: string; userId: string; occurredAt: string }
>;

export type MemberEvent =
  | UserInvited
  | InvitationRevoked
  | InvitationAccepted
  | MemberJoined
  | MemberRoleChanged
  | MemberRemoved;

export type WorkspaceEvent =
  | WorkspaceCreated
  | ApiKeyIssued
  | ApiKeyRolled
  | ApiKeyRevoked
  | WorkspacePlanChanged
  | WorkspaceAnalyticsChanged
  | WorkspaceBrandingChanged
  | ReaderErased
  | MemberEvent
  | WebhookEvent;

/** What decisions need of a key: its name and lifetime, and whether it was revoked or rolled. */
export type KeyState = {
  label: string | null;
  issuedAt: string;
  expiresAt: string | null;
  revoked: boolean;
  /** set once rolled: the key that replaced it, and when this one stops working */
  rolledTo: string | null;
  validUntil: string | null;
  rolledFrom: string | null;
};

export type Invitation = {
  email: string;
  role: Role;
  tokenHash: string;
  expiresAt: string;
  userId: string | null;
  status: 'pending' | 'accepted' | 'revoked';
};

export type Workspace =
  | { status: 'none' }
  | {
      status: 'created';
      workspaceId: string;
      name: string;
      plan: Plan;
      keys: Record<string, KeyState>;
      invitations: Record<string, Invitation>;
      members: Record<string, { email: string; role: Role }>;
      /**
       * Emails of people removed and not invited back since: joining by their email's domain
       * (single sign-on) does not bring them back. Absent: none.
       */
      removed?: Record<string, true>;
      /** absent in states built before webhooks existed (read as none) */
      webhooks?: Record<string, EndpointState>;
      /** absent until first changed: on, ANALYTICS_DAYS */
      analytics?: { enabled: boolean; retentionDays: number };
      /** absent until first changed: none */
      branding?: Branding;
    };

export const initialState = (): Workspace => ({ status: 'none' });

export const evolve = (state: Workspace, event: WorkspaceEvent): Workspace => {
  switch (event.type) {
    case 'WorkspaceCreated':
      return { status: 'created', ...pick(event.data), keys: {}, invitations: {}, members: {} };
    case 'ApiKeyIssued': {
      if (state.status !== 'created') return state;
      const { keyId, label, expiresAt, occurredAt, rolledFrom } = event.data;
      const key: KeyState = {
        label,
        issuedAt: occurredAt,
        expiresAt,
        revoked: false,
        rolledTo: null,
        validUntil: null,
        rolledFrom: rolledFrom ?? null,
      };
      return { ...state, keys: { ...state.keys, [keyId]: key } };
    }
    case 'ApiKeyRolled':
      if (state.status !== 'created') return state;
      return withKey(state, event.data.keyId, {
        rolledTo: event.data.newKeyId,
        validUntil: event.data.validUntil,
      });
    case 'WorkspacePlanChanged':
      if (state.status !== 'created') return state;
      return { ...state, plan: event.data.plan };
    case 'WorkspaceAnalyticsChanged':
      if (state.status !== 'created') return state;
      return {
        ...state,
        analytics: { enabled: event.data.enabled, retentionDays: event.data.retentionDays },
      };
    case 'ReaderErased':
      return state;
    case 'WorkspaceBrandingChanged': {
      if (state.status !== 'created') return state;
      const { accent, background, logo } = event.data;
      const before = state.branding?.logo ?? null;
      return {
        ...state,
        branding: { accent, background, logo: logo === undefined ? before : logo },
      };
    }
    case 'ApiKeyRevoked':
      if (state.status !== 'created') return state;
      return withKey(state, event.data.keyId, { revoked: true });
    case 'WebhookEndpointAdded':
    case 'WebhookEndpointRemoved':
    case 'WebhookEndpointDisabled':
    case 'WebhookEndpointEnabled':
      if (state.status !== 'created') return state;
      return { ...state, webhooks: evolveWebhooks(state.webhooks ?? {}, event) };
    default:
      return state.status === 'created' ? evolveMembers(state, event) : state;
  }
};

type Created = Extract<Workspace, { status: 'created' }>;

const without = (emails: Created['removed'], email: string) => {
  const { [email]: _back, ...rest } = emails ?? {};
  return rest;
};

/** A key changed; an event about a key this stream never issued changes nothing. */
const withKey = (state: Created, keyId: string, change: Partial<KeyState>): Workspace => {
  const key = state.keys[keyId];
  return key ? { ...state, keys: { ...state.keys, [keyId]: { ...key, ...change } } } : state;
};

const evolveMembers = (state: Created, event: MemberEvent): Created => {
  // Workspaces from before members existed have neither map.
  const invitations = state.invitations ?? {};
  const members = state.members ?? {};
  switch (event.type) {
    case 'UserInvited': {
      const { invitationId, email, role, tokenHash, expiresAt, userId } = event.data;
      return {
        ...state,
        invitations: {
          ...invitations,
          [invitationId]: {
            email,
            role,
            tokenHash,
            expiresAt,
            userId: userId ?? null,
            status: 'pending',
          },
        },
      };
    }
    case 'InvitationRevoked':
    case 'InvitationAccepted': {
      const invitation = invitations[event.data.invitationId];
      const next = { ...state, invitations, members };
      if (invitation) {
        next.invitations = {
          ...invitations,
          [event.data.invitationId]: {
            ...invitation,
            status: event.type === 'InvitationAccepted' ? 'accepted' : 'revoked',
          },
        };
      }
      if (event.type === 'InvitationAccepted')
        next.removed = without(state.removed, event.data.email);
      if (event.type === 'InvitationAccepted' && !members[event.data.userId]) {
        next.members = {
          ...members,
          [event.data.userId]: { email: event.data.email, role: event.data.role },
        };
      }
      return next;
    }
    case 'MemberJoined': {
      if (members[event.data.userId]) return state;
      return {
        ...state,
        members: {
          ...members,
          [event.data.userId]: { email: event.data.email, role: event.data.role },
        },
      };
    }
    case 'MemberRoleChanged': {
      const member = members[event.data.userId];
      if (!member) return state;
      return {
        ...state,
        members: { ...members, [event.data.userId]: { ...member, role: event.data.role } },
      };
    }
    case 'MemberRemoved': {
      const { [event.data.userId]: gone, ...rest } = members;
      return {
        ...state,
        members: rest,
        ...(gone ? { removed: { ...state.removed, [gone.email]: true as const } } : {}),
      };
    }
  }
};

const pick = ({ workspaceId, name, plan }: WorkspaceCreated['data']) => ({
  workspaceId,
  name,
  plan,
});

export const workspaceStream = (workspaceId: string) => `workspace-${workspaceId}`;
