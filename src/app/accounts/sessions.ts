// Signing in and staying signed in. A session is a random token in a cookie; only its hash is
// stored. It ends after 12 hours without a request (idle) and 14 days after sign-in (absolute),
// at sign-out, when revoked from the profile page, and when its person is removed. Wrong
// passwords are throttled per account and per address, and the answer never tells whether an
// account exists (an unknown email costs the same argon2 time and gets the same words).
import { randomUUID } from 'node:crypto';
import { AppError, NotFound } from '../../domain/errors.ts';
import type { SignInMethod } from '../../domain/user/user.ts';
import { isUuid } from '../../domain/uuid.ts';
import { findUser, findUserByEmail } from '../../readTables/users.ts';
import { findWorkspaceById } from '../../readTables/workspaces.ts';
import {
  createSession,
  credentialHash,
  endSession,
  findSession,
  listSessions,
  touchSession,
} from '../../state/accounts.ts';
import type { Store } from '../../store/store.ts';
import type { Caller } from '../caller.ts';
import type { Clock } from '../clock.ts';
import { runUserCommand } from '../commands.ts';
import type { EventMetadata } from '../eventContext.ts';
import { decoyHash, verifyPassword } from './passwords.ts';
import { claimAttempt, personAccount } from './throttle.ts';
import { hashToken, isWellFormedToken, newToken } from './tokens.ts';

export const SESSION_IDLE_MS = 12 * 3_600_000;
export const SESSION_MAX_MS = 14 * 24 * 3_600_000;
/** last_seen is written at most this often per session (it decides the idle expiry). */
const TOUCH_EVERY_MS = 60_000;

export const WRONG_CREDENTIALS = 'The email or the password is not right';

/** A sign-in refused (401): a password's one answer for every failure, or single sign-on's. */
export class SignInRefused extends AppError {
  override name = 'SignInRefused';
  constructor(message = WRONG_CREDENTIALS) {
    super(401, message);
  }
}

export type Person = { id: string; email: string; workspaceId: string };
/** The person of a `users` row. */
export const personOf = (user: { id: string; email: string; workspace_id: string }): Person => ({
  id: user.id,
  email: user.email,
  workspaceId: user.workspace_id,
});
export type Context = Omit<EventMetadata, 'actor'>;
export type StartedSession = {
  token: string;
  sessionId: string;
  expiresAt: Date;
};

const actorMetadata = (person: Person, context: Context): EventMetadata => ({
  ...context,
  actor: { type: 'user', id: person.id, email: person.email },
});

/** A new session for someone who just proved who they are; recorded on their stream. */
export const startSession = async (
  store: Store,
  person: Person,
  method: SignInMethod,
  context: Context,
  clock: Clock,
): Promise<StartedSession> => {
  const token = newToken();
  const sessionId = randomUUID();
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + SESSION_MAX_MS);
  await createSession(store.db, {
    sessionId,
    tokenHash: hashToken(token),
    userId: person.id,
    csrfToken: newToken(),
    now,
    expiresAt,
    clientIp: context.client_ip ?? null,
    userAgent: context.user_agent ?? null,
  });
  await runUserCommand(
    store,
    {
      type: 'RecordSignIn',
      data: { userId: person.id, workspaceId: person.workspaceId, sessionId, method, now },
    },
    actorMetadata(person, context),
  );
  return { token, sessionId, expiresAt };
};

/** Email and password: a session, or one answer for every failure (and a throttle). */
export const signInWithPassword = async (
  store: Store,
  input: { email: string; password: string; address: string | null },
  context: Context,
  clock: Clock,
): Promise<StartedSession> => {
  const email = input.email.trim().toLowerCase().slice(0, 254);
  const now = clock.now();
  const attempt = { account: personAccount(email), address: input.address };
  const claim = await claimAttempt(store, attempt, now);
  const user = email ? await findUserByEmail(store.db, email) : null;
  const stored = user?.password_credential_id
    ? await credentialHash(store.db, user.password_credential_id)
    : null;
  // Always one argon2 run, on a decoy when there is no account: the time tells nothing.
  const matches = await verifyPassword(
    input.password.slice(0, 1024),
    stored ?? (await decoyHash()),
  );
  if (!user || !stored || !matches) {
    if (user) {
      await runUserCommand(
        store,
        {
          type: 'RecordFailedSignIn',
          data: { userId: user.id, workspaceId: user.workspace_id, reason: 'password', now },
        },
        actorMetadata(personOf(user), context),
      );
    }
    throw new SignInRefused();
  }
  await claim.right();
  return startSession(store, personOf(user), 'password', context, clock);
};

export type SignedIn = {
  sessionId: string;
  /** the cookie's token, as the request sent it (it seals the session's flash: ./flash.ts) */
  token: string;
  csrfToken: string;
  person: Person & { role: 'owner' | 'member' };
  workspace: { id: string; name: string; plan: 'free' | 'team' };
  /** what a use case needs to act for this person */
  caller: (context: Context) => Caller;
};

/** The person a session cookie signs in, or null (unknown, ended, expired, idle, removed). */
export const currentSession = async (
  store: Store,
  token: string,
  clock: Clock,
): Promise<SignedIn | null> => {
  if (!isWellFormedToken(token)) return null;
  const now = clock.now();
  const session = await findSession(store.db, hashToken(token), now);
  if (!session) return null;
  if (session.last_seen.getTime() + SESSION_IDLE_MS <= now.getTime()) {
    await endSession(store.db, session.session_id, session.user_id, now);
    return null;
  }
  const user = await findUser(store.db, session.user_id);
  const workspace = user ? await findWorkspaceById(store.db, user.workspace_id) : null;
  if (!user || !workspace) return null;
  if (now.getTime() - session.last_seen.getTime() >= TOUCH_EVERY_MS) {
    await touchSession(store.db, session.session_id, now);
  }
  const person = {
    id: user.id,
    email: user.email,
    workspaceId: user.workspace_id,
    role: user.role,
  };
  return {
    sessionId: session.session_id,
    token,
    csrfToken: session.csrf_token,
    person,
    workspace: { id: workspace.id, name: workspace.name, plan: workspace.plan },
    caller: (context) => ({
      workspaceId: workspace.id,
      plan: workspace.plan,
      metadata: actorMetadata(person, context),
    }),
  };
};

export const signOut = async (store: Store, signedIn: SignedIn, context: Context, clock: Clock) => {
  const now = clock.now();
  if (await endSession(store.db, signedIn.sessionId, signedIn.person.id, now)) {
    await runUserCommand(
      store,
      {
        type: 'RecordSignOut',
        data: {
          userId: signedIn.person.id,
          workspaceId: signedIn.person.workspaceId,
          sessionId: signedIn.sessionId,
          now,
        },
      },
      actorMetadata(signedIn.person, context),
    );
  }
};

/** Ends one of the person's own sessions (another device); 404 for any other id. */
export const revokeSession = async (
  store: Store,
  signedIn: SignedIn,
  sessionId: string,
  context: Context,
  clock: Clock,
) => {
  const now = clock.now();
  if (!isUuid(sessionId) || !(await endSession(store.db, sessionId, signedIn.person.id, now))) {
    throw new NotFound('Session not found');
  }
  await runUserCommand(
    store,
    {
      type: 'RevokeSession',
      data: {
        userId: signedIn.person.id,
        workspaceId: signedIn.person.workspaceId,
        sessionId,
        now,
      },
    },
    actorMetadata(signedIn.person, context),
  );
};

export const mySessions = (store: Store, signedIn: SignedIn, clock: Clock) =>
  listSessions(store.db, signedIn.person.id, clock.now());
