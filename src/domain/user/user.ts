// A person who signs in to the dashboard: their own stream (`user-<id>`) records what they do to
// their account: passwords set, sign-ins, failed attempts, sign-outs, sessions revoked, passkeys.
// Membership (which workspace, which role) lives on the workspace's stream, where the rule "a
// workspace keeps an owner" can be decided. Each event names the person's workspace, so the
// workspace's audit trail (`flipbook audit log`) shows who signed in. Secrets never enter an event: a password's hash is
// kept in a table of its own (projections/accounts.ts), the event names it by id.
import type { Event } from '@event-driven-io/emmett';

export type SignInMethod = 'password' | 'passkey';

export type UserPasswordSet = Event<
  'UserPasswordSet',
  { userId: string; workspaceId: string; credentialId: string; occurredAt: string }
>;
export type UserSignedIn = Event<
  'UserSignedIn',
  {
    userId: string;
    workspaceId: string;
    sessionId: string;
    method: SignInMethod;
    occurredAt: string;
  }
>;
/** A wrong password for this account (attempts on unknown emails are only counted, not recorded). */
export type UserSignInFailed = Event<
  'UserSignInFailed',
  { userId: string; workspaceId: string; reason: 'password'; occurredAt: string }
>;
export type UserSignedOut = Event<
  'UserSignedOut',
  { userId: string; workspaceId: string; sessionId: string; occurredAt: string }
>;
export type UserSessionRevoked = Event<
  'UserSessionRevoked',
  { userId: string; workspaceId: string; sessionId: string; occurredAt: string }
>;

export type UserEvent =
  | UserPasswordSet
  | UserSignedIn
  | UserSignInFailed
  | UserSignedOut
  | UserSessionRevoked;

export type User = { events: number };

export const initialState = (): User => ({ events: 0 });

/** No decision reads the past of an account: every fact about it is accepted as it comes. */
export const evolve = (state: User, _event: UserEvent): User => ({ events: state.events + 1 });

export const userStream = (userId: string) => `user-${userId}`;
