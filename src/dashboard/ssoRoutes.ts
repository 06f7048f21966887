// Single sign-on's two stops in the dashboard (src/app/accounts/sso.ts): /login/sso sends the
// browser to the provider with a state it also keeps in a short-lived cookie (scoped to these
// paths, Lax so the provider's redirect back carries it); /login/sso/callback is the way back,
// which signs the person in or shows the sign-in page with the reason. Each sign-in has a cookie
// of its own, named after its state, so two started in one browser (two tabs) both finish.
import { createHash } from 'node:crypto';
import type { Sso } from '../app/accounts/sso.ts';
import { AppError } from '../domain/errors.ts';
import { cookieHeader, readCookie, sessionCookie } from '../http/cookies.ts';
import { redirect } from '../http/respond.ts';
import { queryOf } from '../http/server.ts';
import type { DashboardRoute, Kit } from './kit.ts';
import { signInPage } from './pages/signIn.ts';
import { safeNext, sendPage } from './request.ts';

/** The cookie of one sign-in: named after (a hash of) its state, holding the state. */
export const stateCookieName = (state: string) =>
  `flipbook_sso_${createHash('sha256').update(state).digest('hex').slice(0, 16)}`;

const stateCookie = (secure: boolean, state: string, value: string, maxAgeSeconds: number) =>
  cookieHeader(stateCookieName(state), value, {
    path: '/login/sso',
    sameSite: 'Lax',
    secure,
    maxAgeSeconds,
  });

export const ssoRoutes = (kit: Kit, sso: Sso): DashboardRoute[] => {
  const declared: DashboardRoute[] = [];
  const { secure, origin, context, page } = kit;
  const button = { name: sso.name };

  declared.push({
    method: 'get',
    path: '/login/sso',
    who: 'anyone',
    body: 'none',
    answers: 'page',
    handler: async (req, res) => {
      const next = safeNext(queryOf(req).get('next'));
      const started = await sso.begin(`${origin()}/login/sso/callback`, next);
      redirect(res, started.url, {
        'Set-Cookie': stateCookie(secure(), started.state, started.state, 600),
      });
    },
  });

  declared.push({
    method: 'get',
    path: '/login/sso/callback',
    who: 'anyone',
    body: 'none',
    answers: 'page',
    handler: async (req, res) => {
      const current = new URL(req.url ?? '/', origin());
      const state = (current.searchParams.get('state') ?? '').slice(0, 64);
      const cleared = stateCookie(secure(), state, '', 0);
      try {
        const started = await sso.finish(
          current,
          (named) => readCookie(req, stateCookieName(named)),
          context(req),
        );
        redirect(res, started.next ?? '/dashboard', {
          'Set-Cookie': [sessionCookie(secure(), started.token, started.expiresAt), cleared],
        });
      } catch (error) {
        if (!(error instanceof AppError) || (error.status !== 401 && error.status !== 503)) {
          throw error;
        }
        sendPage(res, error.status, signInPage({ error: error.message, sso: button }), {
          ...error.headers,
          'Set-Cookie': cleared,
        });
      }
    },
  });
  return declared;
};
