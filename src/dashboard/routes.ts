// The dashboard: server-rendered pages on the daemon, for people. Signed in by a session cookie
// only (the API takes keys only). Every state-changing form is checked for its origin and its
// CSRF token; every page is no-store, unframeable, under a strict CSP. Pages call the same use
// cases as the API and the CLI (src/app); they hold no SQL and append no events of their own.
// Sign-in, invitations and the flipbooks grid are here; each other group of pages mounts its
// own routes with the same kit (./kit.ts), one line each below.

import { acceptInvitation, openInvitation } from '../app/accounts/people.ts';
import { signInWithPassword, signOut, startSession } from '../app/accounts/sessions.ts';
import { listFlipbookCards } from '../app/flipbooks.ts';
import { AppError, InvalidInput } from '../domain/errors.ts';
import { clearedCookie, sessionCookie } from '../http/cookies.ts';
import { html } from '../http/html.ts';
import { parseListQuery } from '../http/listQuery.ts';
import { assetRoute } from '../http/pageRoute.ts';
import { clientAddress } from '../http/rateLimit.ts';
import { redirect } from '../http/respond.ts';
import { queryOf, type Routes } from '../http/server.ts';
import type { ListQuery } from '../readTables/flipbooks.ts';
import { findDashboardAsset } from './assets.ts';
import { flipbookRoutes } from './flipbookRoutes.ts';
import { keyRoutes } from './keyRoutes.ts';
import {
  createKit,
  type DashboardDeps,
  type DashboardRoute,
  type Page,
  signedInRoute,
} from './kit.ts';
import { dashboardPage } from './layout.ts';
import { noticeOf } from './notices.ts';
import { flipbooksPage } from './pages/flipbooks.ts';
import { invitationPage, messagePage, signInPage, unusableLinkPage } from './pages/signIn.ts';
import { passkeyRoutes } from './passkeyRoutes.ts';
import { peopleRoutes } from './peopleRoutes.ts';
import { checkCsrf, safeNext, sendPage } from './request.ts';
import { ssoRoutes } from './ssoRoutes.ts';
import { workspaceRoutes } from './workspaceRoutes.ts';

export const mountDashboard = (routes: Routes, deps: DashboardDeps) => {
  const kit = createKit(deps);
  const { secure, context, session } = kit;
  // Groups of pages, each declared in a module of its own, then the pages here:
  const declared: DashboardRoute[] = [
    ...peopleRoutes(kit),
    ...flipbookRoutes(kit),
    ...keyRoutes(kit),
    ...passkeyRoutes(kit),
    ...workspaceRoutes(kit),
    ...(deps.sso ? ssoRoutes(kit, deps.sso) : []),
  ];
  const sso = deps.sso ? { name: deps.sso.name } : undefined;

  declared.push({
    method: 'get',
    path: '/',
    who: 'anyone',
    body: 'none',
    answers: 'page',
    handler: async (req, res) => redirect(res, (await session(req)) ? '/dashboard' : '/login'),
  });

  declared.push({
    method: 'get',
    path: '/login',
    who: 'anyone',
    body: 'none',
    answers: 'page',
    handler: async (req, res) => {
      if (await session(req)) return redirect(res, '/dashboard');
      const next = safeNext(queryOf(req).get('next'));
      sendPage(res, 200, signInPage({ sso, ...(next ? { next } : {}) }));
    },
  });

  declared.push({
    method: 'post',
    path: '/login',
    who: 'anyone',
    body: 'form',
    answers: 'page',
    handler: async (req, res, form) => {
      const email = (form.get('email') ?? '').slice(0, 254);
      const next = safeNext(form.get('next'));
      try {
        const started = await signInWithPassword(
          deps.store,
          {
            email,
            password: form.get('password') ?? '',
            address: clientAddress(req, deps.trustProxy),
          },
          context(req),
          deps.clock,
        );
        redirect(res, next ?? '/dashboard', {
          'Set-Cookie': sessionCookie(secure(), started.token, started.expiresAt),
        });
      } catch (error) {
        if (!(error instanceof AppError) || (error.status !== 401 && error.status !== 429))
          throw error;
        sendPage(
          res,
          error.status,
          signInPage({ email, error: error.message, sso, ...(next ? { next } : {}) }),
          error.headers,
        );
      }
    },
  });

  declared.push({
    method: 'post',
    path: '/logout',
    who: 'anyone',
    body: 'form',
    answers: 'page',
    handler: async (req, res, form) => {
      const signedIn = await session(req);
      if (signedIn) {
        checkCsrf(form.get('_csrf') ?? undefined, signedIn.csrfToken);
        await signOut(deps.store, signedIn, context(req), deps.clock);
      }
      redirect(res, '/login', { 'Set-Cookie': clearedCookie(secure()) });
    },
  });

  declared.push({
    method: 'get',
    path: '/invite/:token',
    who: 'anyone',
    body: 'none',
    answers: 'page',
    handler: async (req, res) => {
      const invitation = await openInvitation(deps.store, req.params.token ?? '', deps.clock);
      if (!invitation) return sendPage(res, 404, unusableLinkPage());
      sendPage(
        res,
        200,
        invitationPage({
          email: invitation.email,
          workspace: invitation.workspace.name,
          reset: invitation.user_id !== null,
        }),
      );
    },
  });

  declared.push({
    method: 'post',
    path: '/invite/:token',
    who: 'anyone',
    body: 'form',
    answers: 'page',
    handler: async (req, res, form) => {
      const token = req.params.token ?? '';
      const invitation = await openInvitation(deps.store, token, deps.clock);
      if (!invitation) return sendPage(res, 404, unusableLinkPage());
      try {
        const person = await acceptInvitation(
          deps.store,
          { token, password: form.get('password') ?? '' },
          context(req),
          deps.clock,
        );
        const started = await startSession(
          deps.store,
          person,
          'password',
          context(req),
          deps.clock,
        );
        redirect(res, '/dashboard', {
          'Set-Cookie': sessionCookie(secure(), started.token, started.expiresAt),
        });
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        sendPage(
          res,
          error.status === 422 ? 400 : error.status,
          invitationPage({
            email: invitation.email,
            workspace: invitation.workspace.name,
            reset: invitation.user_id !== null,
            error: error.message,
          }),
        );
      }
    },
  });

  declared.push(
    signedInRoute.page('/dashboard', async (req, res, signedIn) => {
      const params = queryOf(req);
      if (!params.has('per_page')) params.set('per_page', '24');
      // A query the list refuses (a hand-edited sort, a page out of range): the first page, with
      // the refusal in words above it, rather than an error page without the grid.
      let query: ListQuery;
      let refused: string | null = null;
      try {
        query = parseListQuery(params);
      } catch (error) {
        if (!(error instanceof InvalidInput)) throw error;
        refused = error.message;
        query = parseListQuery(new URLSearchParams({ per_page: '24' }));
      }
      const list = await listFlipbookCards(deps, signedIn.caller(context(req)), query);
      sendPage(
        res,
        refused ? 400 : 200,
        flipbooksPage(signedIn, list, query, refused, noticeOf(params, 'grid')),
      );
    }),
  );

  declared.push(
    assetRoute('/dashboard/assets/:file', findDashboardAsset, (_req, res) =>
      sendPage(res, 404, messagePage('Not found', 'There is no such file.')),
    ),
  );

  // Any other address under the dashboard: a page in words (with the navigation once signed
  // in), not the API's JSON 404. Registered last, so every real page matches first.
  const notFound: Page = async (req, res) => {
    const signedIn = await session(req);
    const words = 'There is no such page here. It may have moved, or the link is mistyped.';
    sendPage(
      res,
      404,
      signedIn
        ? dashboardPage(
            signedIn,
            null,
            'Page not found',
            html`<h1>Page not found</h1><p>${words}</p><p><a href="/dashboard">Back to the flipbooks</a></p>`,
          )
        : messagePage('Page not found', words),
    );
  };
  declared.push({
    method: 'get',
    path: '/dashboard/*',
    who: 'anyone',
    body: 'none',
    answers: 'page',
    handler: notFound,
  });
  declared.push({
    method: 'post',
    path: '/dashboard/*',
    who: 'anyone',
    body: 'none',
    answers: 'page',
    handler: notFound,
  });
  kit.mountRoutes(routes, declared);
};
