// Signing in with a passkey, without typing an email (discoverable credentials): options with a
// challenge that waits server-side under a token the browser keeps in a cookie, then the
// browser's answer checked against the passkey's public key and sign counter. It makes a session
// like a password's (startSession, method `passkey`), and its failures count in the same
// throttle per client address.
import {
  generateAuthenticationOptions,
  verifyAuthenticationResponse,
} from '@simplewebauthn/server';
import { InvalidInput } from '../../domain/errors.ts';
import {
  CEREMONY_TIMEOUT_MS,
  CHALLENGE_MS,
  challengeLive,
  type RelyingParty,
} from '../../domain/user/passkey.ts';
import { findPasskey } from '../../readTables/passkeys.ts';
import { findUser, type UserRow } from '../../readTables/users.ts';
import {
  findUserHandle,
  recordUse,
  saveChallenge,
  takeChallenge,
} from '../../state/passkeyState.ts';
import type { Store } from '../../store/store.ts';
import type { Clock } from '../clock.ts';
import { runUserCommand } from '../commands.ts';
import { authenticationResponse } from './passkeyResponses.ts';
import { bytes, expectedFor, PasskeyRefused, reason, usable, userMetadata } from './passkeys.ts';
import { type Context, personOf, type StartedSession, startSession } from './sessions.ts';
import { claimAttempt } from './throttle.ts';
import { hashToken, isWellFormedToken, newToken } from './tokens.ts';

export const EXPIRED_SIGN_IN = 'The passkey sign-in took too long, or was already used: try again';
export const UNKNOWN_PASSKEY =
  'This passkey is not registered here (it may have been removed): sign in with your password';
export const NOT_VERIFIED = 'This passkey could not be verified: try again, or use your password';

/**
 * What the browser needs to sign someone in with any passkey of this site (no email asked: the
 * passkey says whose it is). The challenge waits under the SHA-256 of `token`, which the caller
 * hands the browser in a short-lived HttpOnly cookie.
 */
export const signInOptions = async (store: Store, rp: RelyingParty, clock: Clock) => {
  const relying = usable(rp);
  const options = await generateAuthenticationOptions({
    rpID: relying.id,
    userVerification: 'preferred',
    timeout: CEREMONY_TIMEOUT_MS,
  });
  const token = newToken();
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + CHALLENGE_MS);
  await saveChallenge(store.db, {
    key: `sign-in:${hashToken(token)}`,
    challenge: options.challenge,
    expiresAt,
    now,
  });
  return { options, token, expiresAt };
};

/** The browser's answer to a sign-in challenge: a session, or a refusal in words (and counted). */
export const signInWithPasskey = async (
  store: Store,
  input: { token: string | null; response: unknown; address: string | null },
  rp: RelyingParty,
  context: Context,
  clock: Clock,
): Promise<StartedSession> => {
  const relying = usable(rp);
  const now = clock.now();
  const attempt = { account: null, address: input.address };
  const claim = await claimAttempt(store, attempt, now);
  const refuse = async (message: string, detail: string | null, user?: UserRow, id?: string) => {
    if (user && id) {
      await runUserCommand(
        store,
        {
          type: 'RecordFailedSignIn',
          data: {
            userId: user.id,
            workspaceId: user.workspace_id,
            reason: 'passkey',
            credentialId: id,
            now,
          },
        },
        userMetadata(user, context),
      );
    }
    return new PasskeyRefused(401, message, detail);
  };

  const taken =
    input.token && isWellFormedToken(input.token)
      ? await takeChallenge(store.db, `sign-in:${hashToken(input.token)}`)
      : null;
  if (!taken || !challengeLive(taken.expires_at, now)) {
    throw await refuse(EXPIRED_SIGN_IN, taken ? 'expired' : 'no challenge');
  }
  let response: ReturnType<typeof authenticationResponse>;
  try {
    response = authenticationResponse(input.response);
  } catch (error) {
    if (error instanceof InvalidInput) throw await refuse(NOT_VERIFIED, error.message);
    throw error;
  }
  const passkey = await findPasskey(store.db, response.id);
  // A removed member's passkeys are gone from the read table with them; the person is checked
  // too, so that no row left behind could ever sign anyone in.
  const user = passkey ? await findUser(store.db, passkey.user_id) : null;
  if (!passkey || !user) throw await refuse(UNKNOWN_PASSKEY, 'unknown credential');
  const handle = await findUserHandle(store.db, user.id);
  const claimed = response.response.userHandle;
  if (claimed && handle && claimed !== handle) {
    throw await refuse(NOT_VERIFIED, 'user handle mismatch', user, passkey.credential_id);
  }
  let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    verified = await verifyAuthenticationResponse({
      response,
      ...expectedFor(taken.challenge, relying),
      credential: {
        id: passkey.credential_id,
        publicKey: bytes(passkey.public_key),
        counter: passkey.counter,
        transports: passkey.transports,
      },
      requireUserVerification: false,
    });
  } catch (error) {
    throw await refuse(NOT_VERIFIED, reason(error), user, passkey.credential_id);
  }
  if (!verified.verified) {
    throw await refuse(NOT_VERIFIED, 'not verified', user, passkey.credential_id);
  }
  const counted = await recordUse(store.db, {
    credentialId: passkey.credential_id,
    read: passkey.counter,
    counter: verified.authenticationInfo.newCounter,
    at: now,
  });
  if (!counted) {
    throw await refuse(NOT_VERIFIED, 'sign counter went back', user, passkey.credential_id);
  }
  await claim.right();
  return startSession(store, personOf(user), 'passkey', context, clock);
};
