// Passkeys: the profile page's section, removing one (a confirmation page, then a form), and the
// JSON endpoints the script calls for the two WebAuthn ceremonies. Every endpoint checks the
// request's origin; a signed-in one also the session's CSRF token (header X-CSRF-Token, as a
// form carries it in _csrf). The relying party is the public URL's (src/domain/user/passkey.ts).
import type { IncomingMessage } from 'node:http';
import { signInOptions, signInWithPasskey } from '../app/accounts/passkeySignIn.ts';
import {
  addPasskey,
  myPasskey,
  myPasskeys,
  PasskeyRefused,
  registrationOptions,
  removePasskey,
} from '../app/accounts/passkeys.ts';
import { AppError } from '../domain/errors.ts';
import { relyingParty } from '../domain/user/passkey.ts';
import { cookieHeader, readCookie, sessionCookie } from '../http/cookies.ts';
import { clientAddress } from '../http/rateLimit.ts';
import { redirect } from '../http/respond.ts';
import { checkSameOrigin } from '../http/sameOrigin.ts';
import { readJson, sendJsonBody } from './json.ts';
import { type DashboardRoute, type Kit, signedInRoute } from './kit.ts';
import { passkeysSection, removePasskeyPage } from './pages/passkeys.ts';
import { deviceName } from './pages/profile.ts';
import { checkCsrf, safeNext, sendPage } from './request.ts';

/** The signed-out challenge's cookie: its token names the challenge waiting server-side. */
const CHALLENGE_COOKIE = 'flipbook_passkey';

export const passkeyRoutes = (kit: Kit): DashboardRoute[] => {
  const declared: DashboardRoute[] = [];
  const { deps, context, secure, origin, session } = kit;
  const { store, clock, log } = deps;
  const rp = () => relyingParty(deps.publicUrl());

  const challengeCookieName = () => (secure() ? `__Host-${CHALLENGE_COOKIE}` : CHALLENGE_COOKIE);
  /** HttpOnly, SameSite=Strict, gone with the challenge; `__Host-` and Secure on https. */
  const challengeCookie = (token: string, maxAgeSeconds: number) =>
    cookieHeader(challengeCookieName(), token, {
      path: '/',
      sameSite: 'Strict',
      secure: secure(),
      maxAgeSeconds,
    });

  /** A sign-in step's body: anyone may send one, from this site only. */
  const sameSiteJson = async (req: IncomingMessage) => {
    checkSameOrigin(req, origin());
    return readJson(req);
  };

  /** A signed-in endpoint: same origin, a live session, its CSRF token in X-CSRF-Token. */
  const signedInJson = async (req: IncomingMessage) => {
    checkSameOrigin(req, origin());
    const signedIn = await session(req);
    if (!signedIn) throw new AppError(401, 'Your session has ended: sign in again');
    const token = req.headers['x-csrf-token'];
    checkCsrf(typeof token === 'string' ? token : undefined, signedIn.csrfToken);
    return { signedIn, body: await readJson(req) };
  };

  kit.profileSections.push(async (signedIn) =>
    passkeysSection(signedIn, await myPasskeys(store, signedIn), rp()),
  );

  declared.push({
    method: 'post',
    path: '/dashboard/passkeys/options',
    who: 'anyone',
    body: 'json',
    answers: 'data',
    handler: async (req, res) => {
      const { signedIn } = await signedInJson(req);
      sendJsonBody(res, 200, await registrationOptions(store, signedIn, rp(), clock));
    },
  });

  declared.push({
    method: 'post',
    path: '/dashboard/passkeys',
    who: 'anyone',
    body: 'json',
    answers: 'data',
    handler: async (req, res) => {
      const { signedIn, body } = await signedInJson(req);
      const ctx = context(req);
      const added = await addPasskey(
        store,
        signedIn,
        {
          name: body.name,
          // Named after the browser, unless the operator records no user agents.
          fallbackName: ctx.user_agent ? deviceName(ctx.user_agent) : 'Passkey',
          response: body.response,
        },
        rp(),
        ctx,
        clock,
      );
      sendJsonBody(res, 201, added);
    },
  });

  declared.push(
    signedInRoute.page('/dashboard/passkeys/:id/remove', async (req, res, signedIn) => {
      const passkey = await myPasskey(store, signedIn, req.params.id ?? '');
      sendPage(res, 200, removePasskeyPage(signedIn, passkey));
    }),
  );

  declared.push(
    signedInRoute.form('/dashboard/passkeys/:id/remove', async (req, res, signedIn) => {
      await removePasskey(store, signedIn, req.params.id ?? '', context(req), clock);
      redirect(res, '/dashboard/profile#passkeys');
    }),
  );

  declared.push({
    method: 'post',
    path: '/login/passkey/options',
    who: 'anyone',
    body: 'json',
    answers: 'data',
    handler: async (req, res) => {
      await sameSiteJson(req);
      const { options, token } = await signInOptions(store, rp(), clock);
      // The cookie outlives the browser's own time limit a little, and the challenge decides.
      sendJsonBody(res, 200, options, { 'Set-Cookie': challengeCookie(token, 6 * 60) });
    },
  });

  declared.push({
    method: 'post',
    path: '/login/passkey',
    who: 'anyone',
    body: 'json',
    answers: 'data',
    handler: async (req, res) => {
      const body = await sameSiteJson(req);
      // Used or not, the challenge is spent: the cookie goes with it.
      const spent = challengeCookie('', 0);
      try {
        const started = await signInWithPasskey(
          store,
          {
            token: readCookie(req, challengeCookieName()),
            response: body.response,
            address: clientAddress(req, deps.trustProxy),
          },
          rp(),
          context(req),
          clock,
        );
        const next = safeNext(typeof body.next === 'string' ? body.next : null);
        sendJsonBody(
          res,
          200,
          { redirect: next ?? '/dashboard' },
          { 'Set-Cookie': [spent, sessionCookie(secure(), started.token, started.expiresAt)] },
        );
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        if (error instanceof PasskeyRefused && error.detail) {
          log.info({ reason: error.detail }, 'passkey sign-in refused');
        }
        sendJsonBody(
          res,
          error.status,
          { error: error.message },
          { ...error.headers, 'Set-Cookie': spent },
        );
      }
    },
  });
  return declared;
};
