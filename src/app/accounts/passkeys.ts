// Passkeys (WebAuthn), with @simplewebauthn/server doing the cryptography: a signed-in person
// adds passkeys on their profile page and removes them (signing in with one: ./passkeySignIn.ts).
// The challenge waits server-side for this session's answer, used once, for five minutes
// (src/state/passkeyState.ts).
import { randomBytes } from 'node:crypto';
import { generateRegistrationOptions, verifyRegistrationResponse } from '@simplewebauthn/server';
import { AppError, Conflict, NotFound, RuleBroken } from '../../domain/errors.ts';
import {
  CEREMONY_TIMEOUT_MS,
  CHALLENGE_MS,
  challengeLive,
  isCredentialId,
  passkeyName,
  type RelyingParty,
} from '../../domain/user/passkey.ts';
import { findPasskey, listPasskeys, type PasskeyRow } from '../../readTables/passkeys.ts';
import {
  forgetUsage,
  saveChallenge,
  startUsage,
  takeChallenge,
  userHandle,
} from '../../state/passkeyState.ts';
import type { Store } from '../../store/store.ts';
import type { Clock } from '../clock.ts';
import { runUserCommand } from '../commands.ts';
import { registrationResponse } from './passkeyResponses.ts';
import type { Context, SignedIn } from './sessions.ts';

export const EXPIRED_REGISTRATION = 'Adding the passkey took too long: try again';
export const NOT_ADDED = 'The passkey could not be checked, so it was not added: try again';

/** A refusal in words; `detail` (the verifier's reason) is for the log, not the person. */
export class PasskeyRefused extends AppError {
  override name = 'PasskeyRefused';
  readonly detail: string | null;
  constructor(status: number, message: string, detail: string | null = null) {
    super(status, message);
    this.detail = detail;
  }
}

export const usable = (rp: RelyingParty) => {
  if (!rp.usable) throw new RuleBroken(rp.why);
  return rp;
};

/** What a browser's answer must have signed: this challenge, for this site (origin, RP id). */
export const expectedFor = (challenge: string, relying: { origin: string; id: string }) => ({
  expectedChallenge: challenge,
  expectedOrigin: relying.origin,
  expectedRPID: relying.id,
});

export const userMetadata = (user: { id: string; email: string }, context: Context) => ({
  ...context,
  actor: { type: 'user' as const, id: user.id, email: user.email },
});

export const reason = (error: unknown) => (error instanceof Error ? error.message : String(error));

export const bytes = (base64url: string) => new Uint8Array(Buffer.from(base64url, 'base64url'));

export const myPasskeys = (store: Store, signedIn: SignedIn) =>
  listPasskeys(store.db, signedIn.person.id);

/** One of the person's own passkeys; anyone else's is as unknown as none (404). */
export const myPasskey = async (
  store: Store,
  signedIn: SignedIn,
  credentialId: string,
): Promise<PasskeyRow> => {
  const passkey = isCredentialId(credentialId) ? await findPasskey(store.db, credentialId) : null;
  if (!passkey || passkey.user_id !== signedIn.person.id) throw new NotFound('Passkey not found');
  return passkey;
};

/** What the browser needs to make a passkey; the challenge waits for this session's answer. */
export const registrationOptions = async (
  store: Store,
  signedIn: SignedIn,
  rp: RelyingParty,
  clock: Clock,
) => {
  const relying = usable(rp);
  const handle = await userHandle(
    store.db,
    signedIn.person.id,
    randomBytes(32).toString('base64url'),
  );
  const existing = await listPasskeys(store.db, signedIn.person.id);
  const options = await generateRegistrationOptions({
    rpName: relying.name,
    rpID: relying.id,
    userID: bytes(handle),
    userName: signedIn.person.email,
    userDisplayName: signedIn.person.email,
    timeout: CEREMONY_TIMEOUT_MS,
    attestationType: 'none',
    // A device that holds one of them already says so instead of making a second.
    excludeCredentials: existing.map((p) => ({ id: p.credential_id, transports: p.transports })),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
  });
  const now = clock.now();
  await saveChallenge(store.db, {
    key: `register:${signedIn.sessionId}`,
    challenge: options.challenge,
    expiresAt: new Date(now.getTime() + CHALLENGE_MS),
    now,
  });
  return options;
};

/** Checks the browser's new passkey against this session's challenge, and records it. */
export const addPasskey = async (
  store: Store,
  signedIn: SignedIn,
  input: { name: unknown; fallbackName: string; response: unknown },
  rp: RelyingParty,
  context: Context,
  clock: Clock,
) => {
  const relying = usable(rp);
  const name = passkeyName(input.name, input.fallbackName);
  const taken = await takeChallenge(store.db, `register:${signedIn.sessionId}`);
  if (!taken || !challengeLive(taken.expires_at, clock.now())) {
    throw new PasskeyRefused(400, EXPIRED_REGISTRATION);
  }
  const response = registrationResponse(input.response);
  let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    verified = await verifyRegistrationResponse({
      response,
      ...expectedFor(taken.challenge, relying),
      // Asked as "preferred": a security key without a PIN still makes a passkey.
      requireUserVerification: false,
    });
  } catch (error) {
    throw new PasskeyRefused(400, NOT_ADDED, reason(error));
  }
  if (!verified.verified) throw new PasskeyRefused(400, NOT_ADDED, 'not verified');
  const info = verified.registrationInfo;
  const credential = info.credential;
  const now = clock.now();
  try {
    await runUserCommand(
      store,
      {
        type: 'AddPasskey',
        data: {
          userId: signedIn.person.id,
          workspaceId: signedIn.person.workspaceId,
          credentialId: credential.id,
          name,
          publicKey: Buffer.from(credential.publicKey).toString('base64url'),
          transports: credential.transports ?? [],
          deviceType: info.credentialDeviceType,
          backedUp: info.credentialBackedUp,
          aaguid: info.aaguid,
          now,
        },
      },
      userMetadata(signedIn.person, context),
    );
  } catch (error) {
    // The read table's key refused a credential already registered (by anyone).
    if ((error as { code?: string }).code === '23505') {
      throw new Conflict('This passkey is already registered');
    }
    throw error;
  }
  await startUsage(store.db, credential.id, credential.counter);
  return { credentialId: credential.id, name };
};

export const removePasskey = async (
  store: Store,
  signedIn: SignedIn,
  credentialId: string,
  context: Context,
  clock: Clock,
) => {
  const passkey = await myPasskey(store, signedIn, credentialId);
  await runUserCommand(
    store,
    {
      type: 'RemovePasskey',
      data: {
        userId: signedIn.person.id,
        workspaceId: signedIn.person.workspaceId,
        credentialId: passkey.credential_id,
        now: clock.now(),
      },
    },
    userMetadata(signedIn.person, context),
  );
  await forgetUsage(store.db, passkey.credential_id);
};
