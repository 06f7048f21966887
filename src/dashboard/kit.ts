// What every dashboard route is built with: the session of a request, the metadata its events
// carry, and wrappers that make a handler a page (errors shown in words), a signed-in page
// (others are sent to sign in) or a signed-in form (same origin, the session's CSRF token).
// Each group of pages mounts its routes with it (see ./routes.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { currentSession, type SignedIn } from '../app/accounts/sessions.ts';
import type { Sso } from '../app/accounts/sso.ts';
import type { ApiDeps } from '../app/apiDeps.ts';
import type { Clock } from '../app/clock.ts';
import { AppError } from '../domain/errors.ts';
import { clientGone } from '../http/clientGone.ts';
import { cookieName, readCookie } from '../http/cookies.ts';
import { readForm } from '../http/formBody.ts';
import { type Html, html } from '../http/html.ts';
import { loggedUrl } from '../http/loggedUrl.ts';
import type { RouteBase } from '../http/pageRoute.ts';
import { requestContext } from '../http/requestContext.ts';
import { redirect } from '../http/respond.ts';
import { checkSameOrigin } from '../http/sameOrigin.ts';
import type { Request, Routes } from '../http/server.ts';
import { asUnavailable } from '../http/unavailable.ts';
import type { Logger } from '../log.ts';
import { jsonRoute } from './json.ts';
import { dashboardPage } from './layout.ts';
import { messagePage } from './pages/signIn.ts';
import { checkCsrf, sendPage } from './request.ts';

export type DashboardDeps = ApiDeps & {
  log: Logger;
  clock: Clock;
  publicUrl: () => string;
  trustProxy: boolean;
  /** single sign-on, when the operator set up a provider */
  sso?: Sso;
  /** the installation's secret: identified readers' addresses are sealed with keys from it */
  secret?: string;
  /** whether a mail server was given (serve --smtp-url): links' options that mail need one */
  mailConfigured?: boolean;
};

export type Page = (req: Request, res: ServerResponse) => Promise<void>;
export type Form = (req: Request, res: ServerResponse, form: URLSearchParams) => Promise<void>;
export type SignedInPage = (req: Request, res: ServerResponse, signedIn: SignedIn) => Promise<void>;
export type SignedInForm = (
  req: Request,
  res: ServerResponse,
  signedIn: SignedIn,
  form: URLSearchParams,
) => Promise<void>;

/**
 * One route of the dashboard, declared (src/http/pageRoute.ts): `anyone`'s (sign-in, invitations,
 * its assets), whose handler gets a `form` body checked for its origin first, or a `signed-in`
 * person's, whose handler gets their session, and with a `form` body the form too, checked for
 * its origin and the session's CSRF token first.
 */
export type DashboardRoute = RouteBase &
  (
    | { who: 'anyone'; body: 'none' | 'json' | 'stream'; handler: Page }
    | { who: 'anyone'; body: 'form'; handler: Form }
    | { who: 'signed-in'; body: 'none' | 'stream'; handler: SignedInPage }
    | { who: 'signed-in'; body: 'form'; handler: SignedInForm }
  );

// (the handler's type follows the body, as DashboardRoute pairs them)
const signedInKind =
  <H extends SignedInPage | SignedInForm>(
    method: 'get' | 'post',
    body: 'none' | 'form' | 'stream',
  ) =>
  (path: string, handler: H) =>
    ({ method, path, who: 'signed-in', body, answers: 'page', handler }) as DashboardRoute;

/**
 * A signed-in person's routes, by the three kinds there are: `page` (GET, no body), `form`
 * (POST, a form checked for its origin and the session's CSRF token), `upload` (POST, a body the
 * handler reads itself). Each is the whole declaration above, answering pages; `anyone`'s routes
 * are few and of every kind, and spell theirs out.
 */
export const signedInRoute = {
  page: signedInKind<SignedInPage>('get', 'none'),
  form: signedInKind<SignedInForm>('post', 'form'),
  upload: signedInKind<SignedInPage>('post', 'stream'),
};

/** A browser asking for a page (not a script or a client asking for JSON). */
const prefersHtml = (req: IncomingMessage) => /\btext\/html\b/.test(req.headers.accept ?? '');

export const createKit = (deps: DashboardDeps) => {
  const secure = () => deps.publicUrl().startsWith('https:');
  const origin = () => new URL(deps.publicUrl()).origin;
  const context = (req: IncomingMessage) => {
    const { requestId, clientIp, userAgent } = requestContext(req);
    return {
      request_id: requestId,
      ...(clientIp === null ? {} : { client_ip: clientIp }),
      ...(userAgent === null ? {} : { user_agent: userAgent }),
    };
  };
  const session = async (req: IncomingMessage) => {
    const token = readCookie(req, cookieName(secure()));
    return token ? currentSession(deps.store, token, deps.clock) : null;
  };

  /** Errors as pages, in words; the cause of an unexpected one goes to the log. */
  const page =
    (handler: Page): Page =>
    async (req, res) => {
      try {
        await handler(req, res);
      } catch (caught) {
        if (res.headersSent) return void res.destroy();
        // Gone before its body arrived (a dropped connection's "aborted"): no one to answer,
        // and nothing wrong with the service.
        if (clientGone(req, res, caught)) return void res.destroy();
        const unavailable = asUnavailable(caught);
        if (unavailable) {
          // The database (or the disk) is away: at once, without asking it who is signed in.
          deps.log.warn(
            { reason: String((caught as Error)?.message ?? caught), url: loggedUrl(req.url) },
            'service unavailable',
          );
          // A browser gets a page; anything else the JSON answer every other route gives.
          if (!prefersHtml(req)) throw unavailable;
          return sendPage(res, 503, messagePage('Unavailable for a moment', unavailable.message), {
            ...unavailable.headers,
            ...(req.complete ? {} : { Connection: 'close' }),
          });
        }
        const error = caught;
        if (error instanceof AppError) {
          // A signed-in person keeps the navigation on a refusal (a flipbook not found, a
          // forbidden form): a way on, not a dead end.
          const signedIn = await session(req).catch(() => null);
          const title = error.status === 404 ? 'Not found' : 'Something is not right';
          return sendPage(
            res,
            error.status,
            signedIn
              ? dashboardPage(
                  signedIn,
                  null,
                  title,
                  html`<h1>${title}</h1><p>${error.message}</p><p><a href="/dashboard">Back to the flipbooks</a></p>`,
                )
              : messagePage(title, error.message),
            error.headers,
          );
        }
        deps.log.error({ err: error, url: loggedUrl(req.url) }, 'dashboard request failed');
        sendPage(
          res,
          500,
          messagePage('Something went wrong', 'This is our fault; try again in a moment.'),
        );
      }
    };

  /** A page for signed-in people only; others go to sign in, and come back after. */
  const signedInPage = (handler: SignedInPage): Page =>
    page(async (req, res) => {
      const signedIn = await session(req);
      if (!signedIn) {
        const back =
          req.method === 'GET' ? `?next=${encodeURIComponent(req.url ?? '/dashboard')}` : '';
        return redirect(res, `/login${back}`);
      }
      await handler(req, res, signedIn);
    });

  /** A form anyone may send (signing in, accepting an invitation): from this site only. */
  const sameSiteForm =
    (handler: Form): Page =>
    async (req, res) => {
      checkSameOrigin(req, origin());
      await handler(req, res, await readForm(req));
    };

  /** A form from a signed-in page: same origin, the session's CSRF token. */
  const signedInForm = (handler: SignedInForm): Page =>
    signedInPage(async (req, res, signedIn) => {
      checkSameOrigin(req, origin());
      const form = await readForm(req);
      checkCsrf(form.get('_csrf') ?? undefined, signedIn.csrfToken);
      await handler(req, res, signedIn, form);
    });

  /** What other groups add to the profile page (passkeys), rendered in its flow. */
  const profileSections: ((signedIn: SignedIn) => Promise<Html>)[] = [];
  const profileExtras = (signedIn: SignedIn) =>
    Promise.all(profileSections.map((section) => section(signedIn)));

  /**
   * Mounts the dashboard's routes, each wrapped by what it declares: who may call it (signed in:
   * sent to sign in, forms checked), and what it answers (pages: failures in words; data: JSON).
   */
  const mountRoutes = (routes: Routes, declared: DashboardRoute[]) => {
    for (const route of declared) {
      const asked =
        route.who === 'anyone'
          ? route.body === 'form'
            ? sameSiteForm(route.handler as Form)
            : (route.handler as Page)
          : route.body === 'form'
            ? signedInForm(route.handler as SignedInForm)
            : signedInPage(route.handler as SignedInPage);
      // (a signed-in route is a page already: signedInPage answers its failures as pages)
      const handler =
        route.answers === 'data'
          ? jsonRoute(deps.log, asked)
          : route.who === 'anyone'
            ? page(asked)
            : asked;
      routes[route.method](route.path, handler);
    }
  };

  return {
    deps,
    mountRoutes,
    secure,
    origin,
    context,
    session,
    page,
    signedInPage,
    signedInForm,
    profileSections,
    profileExtras,
  };
};

export type Kit = ReturnType<typeof createKit>;
