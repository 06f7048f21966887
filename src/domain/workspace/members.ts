// Who belongs to a workspace and with which role, decided on the workspace's own stream so its
// rules hold under concurrency: an invitation is used once and only before it expires; a
// workspace always keeps an owner. Time and ids come in with the command.
import { Conflict, Forbidden, NotFound, RuleBroken } from '../errors.ts';
import { iso } from '../iso.ts';
import { requireWorkspace } from './requireWorkspace.ts';
import type { Invitation, Role, Workspace, WorkspaceEvent } from './workspace.ts';
import { workspaceEventData } from './workspaceEventData.ts';

export type InviteUser = {
  type: 'InviteUser';
  data: {
    invitationId: string;
    email: string;
    role: Role;
    tokenHash: string;
    expiresAt: Date;
    now: Date;
  };
};
export type RevokeInvitation = {
  type: 'RevokeInvitation';
  data: { invitationId: string; now: Date };
};
export type AcceptInvitation = {
  type: 'AcceptInvitation';
  data: { invitationId: string; tokenHash: string; newUserId: string; now: Date };
};
export type JoinByEmailDomain = {
  type: 'JoinByEmailDomain';
  data: { userId: string; email: string; domain: string; now: Date };
};
export type ChangeMemberRole = {
  type: 'ChangeMemberRole';
  data: { userId: string; role: Role; now: Date };
};
export type RemoveMember = { type: 'RemoveMember'; data: { userId: string; now: Date } };

export type MemberCommand =
  | InviteUser
  | RevokeInvitation
  | AcceptInvitation
  | JoinByEmailDomain
  | ChangeMemberRole
  | RemoveMember;

type Created = Extract<Workspace, { status: 'created' }>;

const membersOf = (state: Created) => state.members ?? {};
const owners = (state: Created) =>
  Object.values(membersOf(state)).filter((m) => m.role === 'owner').length;

/** Ends the pending invitations `which` picks: their links stop working. */
const revokePending = (
  ws: Created,
  which: (invitation: Invitation) => boolean,
  now: Date,
): WorkspaceEvent[] =>
  Object.entries(ws.invitations ?? {})
    .filter(([, invitation]) => invitation.status === 'pending' && which(invitation))
    .map(([invitationId]) => ({
      type: 'InvitationRevoked',
      data: workspaceEventData(ws, now, { invitationId }),
    }));

export const inviteUser = ({ data }: InviteUser, state: Workspace): WorkspaceEvent[] => {
  const ws = requireWorkspace(state);
  if ((ws.invitations ?? {})[data.invitationId]) return [];
  // Someone already a member: the link sets a new password, and they keep their role.
  const member = Object.entries(membersOf(ws)).find(([, m]) => m.email === data.email);
  return [
    // One live link per email: a new invitation replaces the one before (a link lost, a role
    // changed), so no older link can still let someone in.
    ...revokePending(ws, (i) => i.email === data.email, data.now),
    {
      type: 'UserInvited',
      data: workspaceEventData(ws, data.now, {
        invitationId: data.invitationId,
        email: data.email,
        role: member ? member[1].role : data.role,
        tokenHash: data.tokenHash,
        expiresAt: iso(data.expiresAt),
        ...(member ? { userId: member[0] } : {}),
      }),
    },
  ];
};

export const revokeInvitation = ({ data }: RevokeInvitation, state: Workspace) => {
  const ws = requireWorkspace(state);
  const invitation = (ws.invitations ?? {})[data.invitationId];
  if (!invitation) throw new NotFound('Invitation not found');
  if (invitation.status === 'revoked') return [];
  if (invitation.status === 'accepted') throw new Conflict('This invitation was already used');
  return [
    {
      type: 'InvitationRevoked',
      data: workspaceEventData(ws, data.now, { invitationId: data.invitationId }),
    },
  ] satisfies WorkspaceEvent[];
};

/** The one message for every unusable link: it tells nothing about why. */
export const UNUSABLE_LINK = 'This invitation link is not valid any more: ask for a new one';

export const acceptInvitation = ({ data }: AcceptInvitation, state: Workspace) => {
  const ws = requireWorkspace(state);
  const invitation = (ws.invitations ?? {})[data.invitationId];
  if (
    !invitation ||
    invitation.tokenHash !== data.tokenHash ||
    invitation.status !== 'pending' ||
    new Date(invitation.expiresAt).getTime() <= data.now.getTime()
  ) {
    throw new RuleBroken(UNUSABLE_LINK);
  }
  // A reset for someone removed since: they are not a member any more.
  if (invitation.userId && !membersOf(ws)[invitation.userId]) throw new RuleBroken(UNUSABLE_LINK);
  // An invitation for someone who joined since by another link (streams from before a new
  // invitation replaced the pending one): used up as well.
  if (
    !invitation.userId &&
    Object.values(membersOf(ws)).some((member) => member.email === invitation.email)
  ) {
    throw new RuleBroken(UNUSABLE_LINK);
  }
  const userId = invitation.userId ?? data.newUserId;
  return [
    {
      type: 'InvitationAccepted',
      data: workspaceEventData(ws, data.now, {
        invitationId: data.invitationId,
        userId,
        email: invitation.email,
        role: membersOf(ws)[userId]?.role ?? invitation.role,
      }),
    },
  ] satisfies WorkspaceEvent[];
};

/**
 * A person whose provider vouched for their email joins as a member (never an owner: an owner
 * names owners). Someone who is a member already stays who they are.
 */
export const joinByEmailDomain = ({ data }: JoinByEmailDomain, state: Workspace) => {
  const ws = requireWorkspace(state);
  if (Object.values(membersOf(ws)).some((member) => member.email === data.email)) return [];
  // Removed by an owner: the domain does not bring them back; an invitation does.
  if (ws.removed?.[data.email]) throw new Forbidden(REMOVED);
  return [
    {
      type: 'MemberJoined',
      data: workspaceEventData(ws, data.now, {
        userId: data.userId,
        email: data.email,
        role: 'member',
        via: 'sso',
        domain: data.domain,
      }),
    },
  ] satisfies WorkspaceEvent[];
};

export const REMOVED =
  'You were removed from this workspace: ask an owner of your workspace to invite you again';

export const LAST_OWNER = 'A workspace keeps at least one owner: make someone else owner first';

export const changeMemberRole = ({ data }: ChangeMemberRole, state: Workspace) => {
  const ws = requireWorkspace(state);
  const member = membersOf(ws)[data.userId];
  if (!member) throw new NotFound('Member not found');
  if (member.role === data.role) return [];
  if (member.role === 'owner' && owners(ws) <= 1) throw new RuleBroken(LAST_OWNER);
  return [
    {
      type: 'MemberRoleChanged',
      data: workspaceEventData(ws, data.now, {
        userId: data.userId,
        role: data.role,
        previousRole: member.role,
      }),
    },
  ] satisfies WorkspaceEvent[];
};

export const removeMember = ({ data }: RemoveMember, state: Workspace) => {
  const ws = requireWorkspace(state);
  const member = membersOf(ws)[data.userId];
  if (!member) throw new NotFound('Member not found');
  if (member.role === 'owner' && owners(ws) <= 1) throw new RuleBroken(LAST_OWNER);
  return [
    // Their password-reset links go with them.
    ...revokePending(ws, (i) => i.userId === data.userId || i.email === member.email, data.now),
    {
      type: 'MemberRemoved',
      data: workspaceEventData(ws, data.now, { userId: data.userId }),
    },
  ] satisfies WorkspaceEvent[];
};

export const decideMembers = (command: MemberCommand, state: Workspace): WorkspaceEvent[] => {
  switch (command.type) {
    case 'InviteUser':
      return inviteUser(command, state);
    case 'RevokeInvitation':
      return revokeInvitation(command, state);
    case 'AcceptInvitation':
      return acceptInvitation(command, state);
    case 'JoinByEmailDomain':
      return joinByEmailDomain(command, state);
    case 'ChangeMemberRole':
      return changeMemberRole(command, state);
    case 'RemoveMember':
      return removeMember(command, state);
  }
};
