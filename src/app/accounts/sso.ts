// Single sign-on with OpenID Connect (docs/dashboard.md, "Single sign-on"): the operator names a
// provider (`serve --oidc-issuer --oidc-client-id`, the secret in the environment); the sign-in
// page offers it beside passwords and passkeys. openid-client does the protocol (discovery, PKCE,
// the code exchange, the ID token's signature, issuer, audience, nonce and expiry); this module
// keeps the sign-in under way, single use, and decides who the person is here: the member with
// the email the provider vouches for (`email_verified`), or, for a domain the operator lets
// join (`--oidc-join`), a new member of that workspace. An unverified email signs no one in.
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { domainToASCII } from 'node:url';
import * as oidc from 'openid-client';
import { Forbidden, refusal } from '../../domain/errors.ts';
import { findUserByEmail } from '../../readTables/users.ts';
import { findWorkspaceByName } from '../../readTables/workspaces.ts';
import { saveSsoLogin, takeSsoLogin } from '../../state/ssoState.ts';
import type { Store } from '../../store/store.ts';
import type { Clock } from '../clock.ts';
import { runWorkspaceCommand } from '../commands.ts';
import { isLoopbackUrl } from './loopbackUrl.ts';
import { normalizeEmail } from './people.ts';
import { type Context, SignInRefused, type StartedSession, startSession } from './sessions.ts';
import { hashToken, isWellFormedToken, newToken } from './tokens.ts';

export type SsoSettings = {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** what the sign-in page calls the provider ("Sign in with …") */
  name: string;
  /**
   * The email domains the provider signs in for: its word on any other address is not taken (a
   * provider whose users hold any address, like Google accounts, could name anyone's).
   */
  domains: ReadonlySet<string>;
  /** email domain → workspace name: people of the domain unknown here join it as members */
  joins: ReadonlyMap<string, string>;
};

/** How long a sign-in may stay at the provider (its login, a second factor). */
export const SSO_LOGIN_MS = 10 * 60_000;

export class SsoUnavailable extends refusal(
  'SsoUnavailable',
  503,
  'Single sign-on is not available now: the sign-in provider did not answer',
  { 'Retry-After': '30' },
) {}

const EXPIRED = 'This sign-in did not finish in time or was used already: sign in again';
const NOT_SIGNED_IN = 'The sign-in provider did not sign you in: try again';
const UNVERIFIED =
  'Your sign-in provider has not verified your email address, so it cannot sign you in here';

/** A request to the provider that got no answer: fetch's TypeError, or openid-client's timeout. */
const unreachable = (error: unknown) =>
  error instanceof TypeError ||
  (error instanceof oidc.ClientError &&
    (error.code === 'OAUTH_TIMEOUT' || error.code === 'OAUTH_ABORT'));

const sameText = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

type Log = { warn: (fields: object, message: string) => void };

/** Workspaces `--oidc-join` names that do not exist (yet): said at start, or no one joins. */
export const missingJoinWorkspaces = async (settings: SsoSettings, store: Store) => {
  const missing: string[] = [];
  for (const name of new Set(settings.joins.values())) {
    if (!(await findWorkspaceByName(store.db, name))) missing.push(name);
  }
  return missing;
};

export type Sso = {
  name: string;
  /** Starts a sign-in: the provider's URL to send the browser to, and the state for its cookie. */
  begin: (callbackUrl: string, next: string | null) => Promise<{ url: string; state: string }>;
  /**
   * The way back: the session of the person the provider vouched for, and where to go.
   * `held(state)`: the state this browser holds for that sign-in (its cookie), if any.
   */
  finish: (
    currentUrl: URL,
    held: (state: string) => string | null,
    context: Context,
  ) => Promise<StartedSession & { next: string | null }>;
};

export const createSso = (
  settings: SsoSettings,
  deps: { store: Store; clock: Clock; log: Log },
): Sso => {
  const issuer = new URL(settings.issuer);
  // Discovered on first use (the daemon starts while the provider is away) and kept; a failure
  // is tried again by the next sign-in.
  let discovered: Promise<oidc.Configuration> | null = null;
  const configuration = async () => {
    discovered ??= oidc.discovery(
      issuer,
      settings.clientId,
      undefined,
      oidc.ClientSecretBasic(settings.clientSecret),
      { timeout: 10, ...(isLoopbackUrl(issuer) ? { execute: [oidc.allowInsecureRequests] } : {}) },
    );
    try {
      return await discovered;
    } catch (error) {
      discovered = null;
      deps.log.warn({ reason: String((error as Error)?.message ?? error) }, 'sso discovery failed');
      throw new SsoUnavailable();
    }
  };

  const personFor = async (email: string, context: Context) => {
    // Compared as ASCII (an internationalised domain as its punycode), as the flags are kept.
    const domain = domainToASCII(email.slice(email.lastIndexOf('@') + 1));
    if (!settings.domains.has(domain)) {
      throw new SignInRefused(
        `Single sign-on here is not for ${email}: sign in with your email and password`,
      );
    }
    const member = await findUserByEmail(deps.store.db, email);
    if (member) return { id: member.id, email, workspaceId: member.workspace_id };
    const name = settings.joins.get(domain);
    const workspace = name ? await findWorkspaceByName(deps.store.db, name) : null;
    if (!workspace) {
      throw new SignInRefused(
        `There is no account here for ${email}: ask an owner of your workspace to invite you`,
      );
    }
    const userId = randomUUID();
    try {
      await runWorkspaceCommand(
        deps.store,
        workspace.id,
        { type: 'JoinByEmailDomain', data: { userId, email, domain, now: deps.clock.now() } },
        { ...context, actor: { type: 'user', id: userId, email } },
      );
    } catch (error) {
      // Removed by an owner: the domain does not bring them back.
      if (error instanceof Forbidden) throw new SignInRefused(error.message);
      throw error;
    }
    // Joined now, or a moment ago by a sign-in racing this one: the read table says who.
    const joined = await findUserByEmail(deps.store.db, email);
    if (!joined) throw new SignInRefused(NOT_SIGNED_IN);
    return { id: joined.id, email, workspaceId: joined.workspace_id };
  };

  return {
    name: settings.name,
    begin: async (callbackUrl, next) => {
      const config = await configuration();
      const state = newToken();
      const nonce = oidc.randomNonce();
      const verifier = oidc.randomPKCECodeVerifier();
      const now = deps.clock.now();
      await saveSsoLogin(
        deps.store.db,
        { stateHash: hashToken(state), verifier, nonce, next },
        new Date(now.getTime() + SSO_LOGIN_MS),
        now,
      );
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: callbackUrl,
        scope: 'openid email',
        state,
        nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      });
      return { url: url.href, state };
    },
    finish: async (currentUrl, held, context) => {
      // The state must come back to the browser that started the sign-in (its cookie), once.
      const state = currentUrl.searchParams.get('state') ?? '';
      const cookieState = isWellFormedToken(state) ? held(state) : null;
      if (!cookieState || !sameText(state, cookieState)) {
        throw new SignInRefused(EXPIRED);
      }
      const login = await takeSsoLogin(deps.store.db, hashToken(state));
      if (!login || login.expires_at.getTime() <= deps.clock.now().getTime()) {
        throw new SignInRefused(EXPIRED);
      }
      const config = await configuration();
      let claims: { email?: unknown; email_verified?: unknown } | undefined;
      try {
        const tokens = await oidc.authorizationCodeGrant(config, currentUrl, {
          pkceCodeVerifier: login.verifier,
          expectedState: state,
          expectedNonce: login.nonce,
          idTokenExpected: true,
        });
        const idToken: Record<string, unknown> = { ...tokens.claims() };
        // Many providers leave the email out of the ID token (it is for the UserInfo endpoint
        // when an access token is issued): asked there, for the same subject.
        claims =
          typeof idToken.email === 'string'
            ? idToken
            : await oidc.fetchUserInfo(
                config,
                tokens.access_token,
                typeof idToken.sub === 'string' ? idToken.sub : oidc.skipSubjectCheck,
              );
      } catch (error) {
        deps.log.warn({ reason: String((error as Error)?.message ?? error) }, 'sso refused');
        // The provider did not answer (down, or too slow): not the person's doing.
        if (unreachable(error)) throw new SsoUnavailable();
        // The person said no at the provider, a response from another issuer, a code forged or
        // used twice, a token that does not check out: one answer, the reason in the log.
        throw new SignInRefused(NOT_SIGNED_IN);
      }
      if (claims?.email_verified !== true || typeof claims.email !== 'string') {
        throw new SignInRefused(UNVERIFIED);
      }
      let email: string;
      try {
        email = normalizeEmail(claims.email);
      } catch {
        throw new SignInRefused(
          'Your sign-in provider gave an email address this service cannot use: ask the person who runs it',
        );
      }
      const person = await personFor(email, context);
      const started = await startSession(deps.store, person, 'sso', context, deps.clock);
      return { ...started, next: login.next };
    },
  };
};
