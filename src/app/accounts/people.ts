// Invitations and members: invite someone (the operator's CLI or an owner in the dashboard),
// open and accept the link, change roles, remove people. The rules themselves (a link used once,
// a workspace keeps an owner) are the workspace decider's (src/domain/workspace/members.ts).
// One file (over 300 lines): inviting, accepting, changing roles and removing read and write the
// same rows under the same rules.
import { randomUUID } from 'node:crypto';
import { Conflict, Forbidden, InvalidInput, NotFound, RuleBroken } from '../../domain/errors.ts';
import { iso } from '../../domain/iso.ts';
import { isUuid } from '../../domain/uuid.ts';
import { UNUSABLE_LINK } from '../../domain/workspace/members.ts';
import { ROLES, type Role } from '../../domain/workspace/workspace.ts';
import {
  findInvitationByTokenHash,
  findUser,
  findUserByEmail,
  listPendingInvitations,
  listUsers,
} from '../../readTables/users.ts';
import { findWorkspaceById } from '../../readTables/workspaces.ts';
import {
  credentialHash,
  endOtherSessions,
  endUserSessions,
  saveCredential,
} from '../../state/accounts.ts';
import { getMeta } from '../../state/meta.ts';
import type { Store } from '../../store/store.ts';
import type { Clock } from '../clock.ts';
import { runUserCommand, runWorkspaceCommand } from '../commands.ts';
import type { EventMetadata } from '../eventContext.ts';
import { checkNewPassword, hashPassword, verifyPassword } from './passwords.ts';
import { claimAttempt, personAccount } from './throttle.ts';
import { hashToken, isWellFormedToken, newToken } from './tokens.ts';

export const INVITATION_HOURS = 24;

const MAX_EMAIL = 254;

/** An email as people sign in with it: trimmed, lower case, plausibly an address. */
export const normalizeEmail = (raw: string) => {
  const email = raw.trim().toLowerCase();
  // Plausibly an address a person reads: no spaces, controls, brackets or quotes in it, and a
  // domain of letters, digits and hyphens with a dot (not RFC 5322's every corner).
  if (
    email.length > MAX_EMAIL ||
    !/^[^\s@\p{Cc}<>()[\]\\,;:"]+@[\p{L}\p{N}-]+(\.[\p{L}\p{N}-]+)+$/u.test(email)
  ) {
    throw new InvalidInput('Enter a valid email address');
  }
  return email;
};

export const parseRole = (raw: string): Role => {
  const role = raw.trim().toLowerCase();
  if (!(ROLES as readonly string[]).includes(role)) {
    throw new InvalidInput(`Role must be one of: ${ROLES.join(', ')}`);
  }
  return role as Role;
};

export type Invitation = {
  invitationId: string;
  token: string;
  expiresAt: string;
  /** the role the link gives: a member's own for a reset, whatever role was asked */
  role: Role;
  /** for someone already a member: the link sets a new password, and their role stays */
  reset: boolean;
};

/**
 * A single-use link for `email` to join the workspace with `role` (for someone already a member:
 * to choose a new password). Only the token's hash is kept: the link is shown once.
 */
export const inviteUser = async (
  store: Store,
  input: { workspaceId: string; email: string; role: string },
  metadata: EventMetadata,
  clock: Clock,
): Promise<Invitation> => {
  const email = normalizeEmail(input.email);
  const role = parseRole(input.role);
  const existing = await findUserByEmail(store.db, email);
  if (existing && existing.workspace_id !== input.workspaceId) {
    throw new Conflict('This email belongs to someone in another workspace');
  }
  const token = newToken();
  const invitationId = randomUUID();
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + INVITATION_HOURS * 3_600_000);
  await runWorkspaceCommand(
    store,
    input.workspaceId,
    {
      type: 'InviteUser',
      data: { invitationId, email, role, tokenHash: hashToken(token), expiresAt, now },
    },
    metadata,
  );
  const member = existing?.workspace_id === input.workspaceId ? existing : null;
  return {
    invitationId,
    token,
    expiresAt: iso(expiresAt),
    role: member ? member.role : role,
    reset: member !== null,
  };
};

/** The invitation a link holds while it can be used; null for anything else. */
export const openInvitation = async (store: Store, token: string, clock: Clock) => {
  if (!isWellFormedToken(token)) return null;
  const invitation = await findInvitationByTokenHash(store.db, hashToken(token));
  if (!invitation || invitation.status !== 'pending') return null;
  if (Date.parse(invitation.expires_at) <= clock.now().getTime()) return null;
  // Its email has an account now that the link was not made for (joined by another link, or in
  // another workspace): one email is one person, so the link is used up.
  const holder = await findUserByEmail(store.db, invitation.email);
  if (holder && holder.id !== invitation.user_id) return null;
  const workspace = await findWorkspaceById(store.db, invitation.workspace_id);
  return workspace ? { ...invitation, workspace } : null;
};

/**
 * Uses the link: the person becomes a member (or stays one, for a reset) with the password they
 * chose. A reset ends their other sessions. Returns who they are, to sign them in.
 */
export const acceptInvitation = async (
  store: Store,
  input: { token: string; password: string },
  context: Omit<EventMetadata, 'actor'>,
  clock: Clock,
) => {
  const invitation = await openInvitation(store, input.token, clock);
  if (!invitation) throw new RuleBroken(UNUSABLE_LINK);
  checkNewPassword(input.password, invitation.email);
  const hash = await hashPassword(input.password);
  const userId = invitation.user_id ?? randomUUID();
  const metadata: EventMetadata = {
    ...context,
    actor: { type: 'user', id: userId, email: invitation.email },
  };
  const now = clock.now();
  // The membership first: the decider lets the link be used once, whoever races for it.
  await runWorkspaceCommand(
    store,
    invitation.workspace_id,
    {
      type: 'AcceptInvitation',
      data: {
        invitationId: invitation.id,
        tokenHash: hashToken(input.token),
        newUserId: userId,
        now,
      },
    },
    metadata,
  );
  // Then the password: its hash in its own table, the event naming it (and, in its projection,
  // making it the one that signs in). Should the process die in between, the person is a member
  // without a password, and a new invitation (a reset) gives them one.
  const credentialId = randomUUID();
  await saveCredential(store.db, { credentialId, userId, hash, now });
  await runUserCommand(
    store,
    {
      type: 'SetPassword',
      data: { userId, workspaceId: invitation.workspace_id, credentialId, now },
    },
    metadata,
  );
  if (invitation.user_id) await endUserSessions(store.db, userId, now);
  return { id: userId, email: invitation.email, workspaceId: invitation.workspace_id, metadata };
};

export const listMembers = async (store: Store, workspaceId: string) => ({
  members: await listUsers(store.db, workspaceId),
  invitations: await listPendingInvitations(store.db, workspaceId),
});

/** Every person the service knows, with their workspace: for the operator. */
export const listAllUsers = (store: Store) => listUsers(store.db);

const memberOf = async (store: Store, workspaceId: string, userId: string) => {
  const user = isUuid(userId) ? await findUser(store.db, userId) : null;
  // Another workspace's member is as unknown as no one (isolation).
  if (!user || user.workspace_id !== workspaceId) throw new NotFound('Member not found');
  return user;
};

export const changeMemberRole = async (
  store: Store,
  input: { workspaceId: string; userId: string; role: string },
  metadata: EventMetadata,
  clock: Clock,
) => {
  const user = await memberOf(store, input.workspaceId, input.userId);
  await runWorkspaceCommand(
    store,
    input.workspaceId,
    {
      type: 'ChangeMemberRole',
      data: { userId: user.id, role: parseRole(input.role), now: clock.now() },
    },
    metadata,
  );
};

/** Removes someone from their workspace: their sessions end at once. */
export const removeMember = async (
  store: Store,
  input: { workspaceId: string; userId: string },
  metadata: EventMetadata,
  clock: Clock,
) => {
  const user = await memberOf(store, input.workspaceId, input.userId);
  const now = clock.now();
  await runWorkspaceCommand(
    store,
    input.workspaceId,
    { type: 'RemoveMember', data: { userId: user.id, now } },
    metadata,
  );
  await endUserSessions(store.db, user.id, now);
};

export const revokeInvitation = async (
  store: Store,
  input: { workspaceId: string; invitationId: string },
  metadata: EventMetadata,
  clock: Clock,
) => {
  if (!isUuid(input.invitationId)) throw new NotFound('Invitation not found');
  await runWorkspaceCommand(
    store,
    input.workspaceId,
    { type: 'RevokeInvitation', data: { invitationId: input.invitationId, now: clock.now() } },
    metadata,
  );
};

/**
 * The address of an invitation's page: on `publicUrl` when given, else on the URL the daemon
 * last served under (recorded at its start), else the default address.
 */
export const invitationUrl = async (store: Store, token: string, publicUrl?: string) => {
  const base = publicUrl ?? (await getMeta(store.db, 'public_url')) ?? 'http://127.0.0.1:8080';
  return `${base.replace(/\/+$/, '')}/invite/${token}`;
};

/** The operator's view of one person, by email or id. */
export const findPerson = async (store: Store, emailOrId: string) => {
  const user = isUuid(emailOrId)
    ? await findUser(store.db, emailOrId.toLowerCase())
    : await findUserByEmail(store.db, emailOrId.trim().toLowerCase());
  if (!user) throw new NotFound(`No user ${emailOrId}`);
  return user;
};

/** Only owners manage people (the operator's CLI acts as the operator, not through this). */
export const requireOwner = (person: { role: string }) => {
  if (person.role !== 'owner') throw new Forbidden('Only owners of the workspace can do this');
};

/**
 * A person changes their own password: the current one first (a session left open is not
 * enough to take over the account). Their other sessions end.
 */
export const changePassword = async (
  store: Store,
  input: {
    userId: string;
    sessionId: string;
    current: string;
    next: string;
    address: string | null;
  },
  metadata: EventMetadata,
  clock: Clock,
) => {
  const user = await findUser(store.db, input.userId);
  if (!user) throw new NotFound('No such person');
  const now = clock.now();
  // Counted like a sign-in's: the same window for the account, so an open session does not
  // buy unlimited guesses.
  const attempt = { account: personAccount(user.email), address: input.address };
  const claim = await claimAttempt(store, attempt, now);
  const stored = user.password_credential_id
    ? await credentialHash(store.db, user.password_credential_id)
    : null;
  if (!stored || !(await verifyPassword(input.current.slice(0, 1024), stored))) {
    throw new InvalidInput('The current password is not right');
  }
  await claim.right();
  checkNewPassword(input.next, user.email);
  const credentialId = randomUUID();
  await saveCredential(store.db, {
    credentialId,
    userId: user.id,
    hash: await hashPassword(input.next),
    now,
  });
  await runUserCommand(
    store,
    {
      type: 'SetPassword',
      data: { userId: user.id, workspaceId: user.workspace_id, credentialId, now },
    },
    metadata,
  );
  await endOtherSessions(store.db, user.id, input.sessionId, now);
};

/**
 * A new link for a pending invitation: the old one stops working (only a link's hash is kept,
 * so an old link cannot be shown again).
 */
export const renewInvitation = async (
  store: Store,
  input: { workspaceId: string; invitationId: string },
  metadata: EventMetadata,
  clock: Clock,
) => {
  const pending = (await listPendingInvitations(store.db, input.workspaceId)).find(
    (i) => i.id === input.invitationId,
  );
  if (!pending) throw new NotFound('Invitation not found');
  await revokeInvitation(store, input, metadata, clock);
  return inviteUser(
    store,
    { workspaceId: input.workspaceId, email: pending.email, role: pending.role },
    metadata,
    clock,
  );
};
