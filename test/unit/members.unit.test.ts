// The workspace's membership rules, decided on its stream: invitations used once and before they
// expire, a reset for an existing member keeps their role, a workspace keeps an owner.
import { describe, expect, it } from 'vitest';
import { decide } from '../../src/domain/workspace/decide.ts';
import { LAST_OWNER, REMOVED, UNUSABLE_LINK } from '../../src/domain/workspace/members.ts';
import {
  evolve,
  initialState,
  type Workspace,
  type WorkspaceEvent,
} from '../../src/domain/workspace/workspace.ts';

const now = new Date('2026-11-23T10:00:00Z');
const later = (hours: number) => new Date(now.getTime() + hours * 3_600_000);

const run = (events: WorkspaceEvent[]): Workspace => events.reduce(evolve, initialState());
const created: WorkspaceEvent = {
  type: 'WorkspaceCreated',
  data: { workspaceId: 'w1', name: 'acme', plan: 'team', occurredAt: now.toISOString() },
};
const invite = (invitationId: string, email: string, role: 'owner' | 'member' = 'member') => ({
  type: 'InviteUser' as const,
  data: { invitationId, email, role, tokenHash: `hash-${invitationId}`, expiresAt: later(24), now },
});
const accept = (
  invitationId: string,
  newUserId: string,
  at = now,
  tokenHash = `hash-${invitationId}`,
) => ({
  type: 'AcceptInvitation' as const,
  data: { invitationId, tokenHash, newUserId, now: at },
});

/** Applies commands in turn, returning the events of each. */
const play = (...commands: Parameters<typeof decide>[0][]) => {
  let state = run([created]);
  const all: WorkspaceEvent[] = [];
  for (const command of commands) {
    const events = decide(command, state);
    all.push(...events);
    state = events.reduce(evolve, state);
  }
  return { state, events: all };
};

describe('workspace members', () => {
  it('an invitation is accepted once, before it expires, with its own token only', () => {
    const { events } = play(invite('i1', 'ann@example.com', 'owner'), accept('i1', 'u1'));
    expect(events.map((e) => e.type)).toEqual(['UserInvited', 'InvitationAccepted']);
    expect(events[1]?.data).toMatchObject({
      userId: 'u1',
      role: 'owner',
      email: 'ann@example.com',
    });
    expect(() => play(invite('i1', 'a@x.io'), accept('i1', 'u1'), accept('i1', 'u2'))).toThrow(
      UNUSABLE_LINK,
    );
    expect(() => play(invite('i1', 'a@x.io'), accept('i1', 'u1', later(25)))).toThrow(
      UNUSABLE_LINK,
    );
    expect(() => play(invite('i1', 'a@x.io'), accept('i1', 'u1', now, 'other'))).toThrow(
      UNUSABLE_LINK,
    );
    expect(() =>
      play(
        invite('i1', 'a@x.io'),
        { type: 'RevokeInvitation', data: { invitationId: 'i1', now } },
        accept('i1', 'u1'),
      ),
    ).toThrow(UNUSABLE_LINK);
  });

  it('inviting a member again is a reset: same user, same role', () => {
    const { events, state } = play(
      invite('i1', 'ann@example.com', 'owner'),
      accept('i1', 'u1'),
      invite('i2', 'ann@example.com', 'member'),
      accept('i2', 'u-new'),
    );
    expect(events[2]?.data).toMatchObject({ userId: 'u1', role: 'owner' });
    expect(events[3]?.data).toMatchObject({ userId: 'u1', role: 'owner' });
    expect(state.status === 'created' && Object.keys(state.members)).toEqual(['u1']);
  });

  it('keeps one live link per email: a new invitation ends the one before', () => {
    const { events } = play(invite('i1', 'bob@example.com'), invite('i2', 'bob@example.com'));
    expect(events.map((e) => e.type)).toEqual(['UserInvited', 'InvitationRevoked', 'UserInvited']);
    expect(events[1]?.data).toMatchObject({ invitationId: 'i1' });
    expect(() =>
      play(invite('i1', 'bob@example.com'), invite('i2', 'bob@example.com'), accept('i1', 'u1')),
    ).toThrow(UNUSABLE_LINK);
  });

  it('a link for someone who joined since by another link is used up', () => {
    // Two pending links for one email, as streams from before the rule above may hold them.
    const state = run([
      created,
      ...decide(invite('i1', 'bob@example.com'), run([created])),
      ...decide(invite('i2', 'bob@example.com'), run([created])),
    ]);
    const joined = decide(accept('i1', 'u1'), state).reduce(evolve, state);
    expect(() => decide(accept('i2', 'u2'), joined)).toThrow(UNUSABLE_LINK);
  });

  it('joining by an email domain (single sign-on): a member, once per email', () => {
    const join = (userId: string, email: string) => ({
      type: 'JoinByEmailDomain' as const,
      data: { userId, email, domain: 'example.org', now },
    });
    const { events, state } = play(join('u1', 'noor@example.org'), join('u2', 'noor@example.org'));
    expect(events).toEqual([
      {
        type: 'MemberJoined',
        data: {
          workspaceId: 'w1',
          userId: 'u1',
          email: 'noor@example.org',
          role: 'member',
          via: 'sso',
          domain: 'example.org',
          occurredAt: now.toISOString(),
        },
      },
    ]);
    expect(state.status === 'created' && state.members).toEqual({
      u1: { email: 'noor@example.org', role: 'member' },
    });
    // removed by an owner, the domain does not bring them back; an invitation does
    const remove = { type: 'RemoveMember' as const, data: { userId: 'u1', now } };
    expect(() =>
      play(join('u1', 'noor@example.org'), remove, join('u2', 'noor@example.org')),
    ).toThrow(REMOVED);
    const back = play(
      join('u1', 'noor@example.org'),
      remove,
      invite('i9', 'noor@example.org'),
      accept('i9', 'u3'),
    );
    expect(back.state.status === 'created' && back.state.removed).toEqual({});
    // someone invited and joined already stays who they are
    expect(
      play(
        invite('i1', 'ann@example.org'),
        accept('i1', 'u1'),
        join('u9', 'ann@example.org'),
      ).events.map((e) => e.type),
    ).toEqual(['UserInvited', 'InvitationAccepted']);
  });

  it('removing a member ends their pending reset links', () => {
    const { events } = play(
      invite('i1', 'ann@example.com', 'owner'),
      accept('i1', 'u1'),
      invite('i2', 'bob@example.com'),
      accept('i2', 'u2'),
      invite('i3', 'bob@example.com'),
      { type: 'RemoveMember', data: { userId: 'u2', now } },
    );
    expect(events.slice(-2).map((e) => e.type)).toEqual(['InvitationRevoked', 'MemberRemoved']);
    expect(events.at(-2)?.data).toMatchObject({ invitationId: 'i3' });
  });

  it('keeps an owner: the last one can be neither demoted nor removed', () => {
    const base = [invite('i1', 'ann@example.com', 'owner'), accept('i1', 'u1')] as const;
    expect(() =>
      play(...base, { type: 'ChangeMemberRole', data: { userId: 'u1', role: 'member', now } }),
    ).toThrow(LAST_OWNER);
    expect(() => play(...base, { type: 'RemoveMember', data: { userId: 'u1', now } })).toThrow(
      LAST_OWNER,
    );
    const { events } = play(
      ...base,
      invite('i2', 'bob@example.com', 'owner'),
      accept('i2', 'u2'),
      { type: 'ChangeMemberRole', data: { userId: 'u1', role: 'member', now } },
      { type: 'RemoveMember', data: { userId: 'u1', now } },
    );
    expect(events.slice(-2).map((e) => e.type)).toEqual(['MemberRoleChanged', 'MemberRemoved']);
  });

  it('reads workspaces from before members existed', () => {
    const old = {
      status: 'created',
      workspaceId: 'w1',
      name: 'a',
      plan: 'team',
      keys: {},
    } as unknown as Workspace;
    expect(decide(invite('i1', 'a@x.io'), old)).toHaveLength(1);
  });
});
