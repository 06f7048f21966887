// A person who signs in to the dashboard: their own stream (`user-<id>`) records what they do to
// their account: passwords set, sign-ins, failed attempts, sign-outs, sessions revoked, passkeys
// added and removed. Membership (which workspace, which role) lives on the workspace's stream,
// where the rule "a workspace keeps an owner" can be decided. Each event names the person's
// workspace, so the workspace's audit trail (`flipbook audit log`) shows who signed in. Secrets
// never enter an event: a password's hash is kept in a table of its own
// (src/state/accounts.ts), the event names it by id.
import type { Event } from '@event-driven-io/emmett';

export type SignInMethod = 'password' | 'passkey' | 'sso';

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
/**
 * A wrong password for this account, or one of its passkeys whose answer did not verify (attempts
 * on unknown emails or unknown passkeys are only counted, not recorded). `passkey` came later:
 * events before it all say `password`.
 */
export type UserSignInFailed = Event<
  'UserSignInFailed',
  {
    userId: string;
    workspaceId: string;
    reason: 'password' | 'passkey';
    occurredAt: string;
    /** with reason `passkey`: which one */
    credentialId?: string;
  }
>;
export type UserSignedOut = Event<
  'UserSignedOut',
  { userId: string; workspaceId: string; sessionId: string; occurredAt: string }
>;
export type UserSessionRevoked = Event<
  'UserSessionRevoked',
  { userId: string; workspaceId: string; sessionId: string; occurredAt: string }
>;

/**
 * A passkey (a WebAuthn credential) the person made on their profile page. Its public key is no
 * secret: it is here so the `passkeys` read table can be rebuilt from the log. The sign counter
 * and the last use are not events (src/state/passkeyState.ts).
 */
export type PasskeyAdded = Event<
  'PasskeyAdded',
  {
    userId: string;
    workspaceId: string;
    /** the credential's id, base64url, as the browser gives it */
    credentialId: string;
    name: string;
    /** the COSE public key, base64url */
    publicKey: string;
    /** how the browser may reach it again: `internal`, `hybrid`, `usb`, ... */
    transports: string[];
    /** `multiDevice` when the passkey is synced (a password manager, an account's keychain) */
    deviceType: 'singleDevice' | 'multiDevice';
    backedUp: boolean;
    /** the authenticator's model (all zeros when it does not say) */
    aaguid: string;
    occurredAt: string;
  }
>;
export type PasskeyRemoved = Event<
  'PasskeyRemoved',
  { userId: string; workspaceId: string; credentialId: string; occurredAt: string }
>;

export type UserEvent =
  | UserPasswordSet
  | UserSignedIn
  | UserSignInFailed
  | UserSignedOut
  | UserSessionRevoked
  | PasskeyAdded
  | PasskeyRemoved;

export type User = { events: number };

export const initialState = (): User => ({ events: 0 });

/** No decision reads the past of an account: every fact about it is accepted as it comes. */
export const evolve = (state: User, _event: UserEvent): User => ({ events: state.events + 1 });

export const userStream = (userId: string) => `user-${userId}`;
