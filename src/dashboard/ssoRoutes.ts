// Single sign-on's two stops in the dashboard (src/app/accounts/sso.ts): /login/sso sends the
// browser to the provider with a state it also keeps in a short-lived cookie (scoped to these
// paths, Lax so the provider's redirect back carries it); /login/sso/callback is the way back,
// which signs the person in or shows the sign-in page with the reason.
import type { Sso } from '../app/accounts/sso.ts';
import { AppError } from '../domain/errors.ts';
import type { Routes } from '../http/server.ts';
import type { Kit } from './kit.ts';
import { signInPage } from './pages/signIn.ts';
import { readCookie, redirect, safeNext, sendPage, sessionCookie } from './request.ts';

const STATE_COOKIE = 'flipbook_sso';

const stateCookie = (secure: boolean, value: string, maxAgeSeconds: number) =>
  [
    `${STATE_COOKIE}=${value}`,
    'Path=/login/sso',
    'HttpOnly',
    'SameSite=Lax',
    `Max-Age=${maxAgeSeconds}`,
    ...(secure ? ['Secure'] : []),
  ].join('; ');

export const mountSso = (routes: Routes, kit: Kit, sso: Sso) => {
  const { secure, origin, context, page } = kit;
  const button = { name: sso.name };

  routes.get(
    '/login/sso',
    page(async (req, res) => {
      const next = safeNext(new URL(req.url ?? '/', 'http://x').searchParams.get('next'));
      const started = await sso.begin(`${origin()}/login/sso/callback`, next);
      redirect(res, started.url, { 'Set-Cookie': stateCookie(secure(), started.state, 600) });
    }),
  );

  routes.get(
    '/login/sso/callback',
    page(async (req, res) => {
      const cleared = stateCookie(secure(), '', 0);
      try {
        const started = await sso.finish(
          new URL(req.url ?? '/', origin()),
          readCookie(req, STATE_COOKIE),
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
    }),
  );
};
