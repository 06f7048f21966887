// The dashboard without a browser, on an app in process (test/support/appSpec.ts): people made
// through the use cases the operator's `flipbook user invite` calls, joined and signed in through
// the dashboard's own forms (the invitation page, the sign-in form), each a visitor with a cookie
// jar and the CSRF token of the last page it read, who GETs pages and POSTs forms as a browser
// would send them (application/x-www-form-urlencoded or multipart, with this site's Origin). For
// the tests whose subject is a page's or a form's answer; what a browser does (keyboard,
// rendering, axe, screenshots, scripts, passkeys) stays in test/e2e with test/support/dashboard.ts.
//
//   const d = dashboardOf(app);
//   const ann = await d.signedIn('ann@example.com', { role: 'member' });
//   expect((await ann.post('/dashboard/members/invite', { email: 'x@example.com' })).status).toBe(403);
import { expect } from 'vitest';
import { findPerson, invitationUrl, inviteUser } from '../../src/app/accounts/people.ts';
import { verifyChain } from '../../src/app/audit.ts';
import { workspaceTrail } from '../../src/app/eventLog.ts';
import { requireWorkspace } from '../../src/app/workspaces.ts';
import type { AppUnderTest } from './appSpec.ts';
import { type AuditLine, PASSWORD } from './dashboard.ts';
import { appFetch } from './inProcess.ts';
import { TEST_METADATA } from './metadata.ts';

/** What a browser on a desktop sends (sessions and the Activity name the device by it). */
export const DESKTOP_AGENT =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36';

/** One answer as a test reads it: the body read once, the address it came from. */
export type Answer = {
  status: number;
  headers: Headers;
  /** the body, as text */
  text: string;
  /** where the answer came from (after the redirects followed) */
  url: string;
  /** a redirect's Location, when it was not followed */
  location: string | null;
};

export type RequestOptions = {
  /** follow redirects, taking the cookies each one sets, as a browser does (default true) */
  follow?: boolean;
  /** the Origin sent with a form: this site's by default, null for none */
  origin?: string | null;
  /** more headers (Sec-Fetch-Site, X-CSRF-Token...) */
  headers?: Record<string, string>;
};

/** Someone with a browser's memory of this site: a cookie jar and the last page's CSRF token. */
export type Visitor = {
  /** the cookies as the Cookie header sends them ('' when none) */
  cookie: () => string;
  /** the CSRF token of the last page read that had one ('' before any) */
  csrf: () => string;
  get: (path: string, options?: RequestOptions) => Promise<Answer>;
  /**
   * A form posted: `_csrf` is the last page's token unless the form names its own (`_csrf: ''`
   * leaves it out).
   */
  post: (path: string, form: Record<string, string>, options?: RequestOptions) => Promise<Answer>;
  /** A multipart form (an upload) posted; `_csrf` as for `post`. */
  upload: (path: string, form: FormData, options?: RequestOptions) => Promise<Answer>;
  /** Signs in with the sign-in form (unfollowed answer: 303 with the cookie, or the refusal). */
  signIn: (email: string, password?: string) => Promise<Answer>;
};

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** A visitor of the app at `base`, with nothing remembered yet. */
export const visitorOf = (base: string, userAgent = DESKTOP_AGENT): Visitor => {
  const jar = new Map<string, string>();
  let csrf = '';
  const cookie = () => [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
  const keep = (headers: Headers) => {
    for (const line of headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      const value = pair.slice(at + 1);
      const gone = attributes.some((a) => /^max-age=0$/i.test(a) || /^expires=.*1970/i.test(a));
      if (gone || value === '') jar.delete(name);
      else jar.set(name, value);
    }
  };

  const request = async (
    path: string,
    init: { method: string; body?: RequestInit['body']; type?: string },
    options: RequestOptions = {},
  ): Promise<Answer> => {
    let url = new URL(path, base).href;
    let method = init.method;
    let body = init.body;
    for (let hop = 0; hop <= 10; hop++) {
      const headers: Record<string, string> = {
        accept: 'text/html',
        'user-agent': userAgent,
        ...(jar.size ? { cookie: cookie() } : {}),
        ...(method === 'POST' && options.origin !== null
          ? { origin: options.origin ?? new URL(base).origin }
          : {}),
        ...(init.type && body !== undefined ? { 'content-type': init.type } : {}),
        ...options.headers,
      };
      const response = await appFetch(url, {
        method,
        headers,
        redirect: 'manual',
        ...(body === undefined ? {} : { body }),
      });
      keep(response.headers);
      const location = response.headers.get('location');
      if (options.follow !== false && REDIRECTS.has(response.status) && location) {
        url = new URL(location, url).href;
        // See Other (and a posted form's 301/302) comes back as a GET, as browsers do.
        if (response.status !== 307 && response.status !== 308) {
          method = 'GET';
          body = undefined;
        }
        continue;
      }
      const text = await response.text();
      const token = /<input type="hidden" name="_csrf" value="([^"]*)">/.exec(text)?.[1];
      if (token) csrf = token;
      return { status: response.status, headers: response.headers, text, url, location };
    }
    throw new Error(`too many redirects from ${path}`);
  };

  return {
    cookie,
    csrf: () => csrf,
    get: (path, options) => request(path, { method: 'GET' }, options),
    post: (path, form, options) => {
      const fields = { _csrf: csrf, ...form };
      const sent = Object.entries(fields).filter(([name, value]) => name !== '_csrf' || value);
      return request(
        path,
        {
          method: 'POST',
          body: new URLSearchParams(sent).toString(),
          type: 'application/x-www-form-urlencoded',
        },
        options,
      );
    },
    upload: (path, form, options) => {
      // The token first, as the page's form has it: the server checks it before the file.
      const sent = new FormData();
      const token = form.has('_csrf') ? form.get('_csrf') : csrf;
      if (token) sent.append('_csrf', token);
      for (const [name, value] of form) if (name !== '_csrf') sent.append(name, value);
      // (fetch sets the multipart type, with its boundary)
      return request(path, { method: 'POST', body: sent }, options);
    },
    signIn: (email, password = PASSWORD) => {
      const sent = new URLSearchParams({ email, password }).toString();
      return request(
        '/login',
        { method: 'POST', body: sent, type: 'application/x-www-form-urlencoded' },
        { follow: false },
      );
    },
  };
};

export type SignedInVisitor = Visitor & { email: string };

/** The dashboard of an app in process: people, their sign-in, and what the operator sees. */
export const dashboardOf = (app: AppUnderTest) => {
  /** The operator's invitation (`flipbook user invite`'s use case): the link. */
  const invite = async (email: string, role: 'owner' | 'member' = 'owner', workspace = 'acme') => {
    const { id } = await requireWorkspace(app.store, workspace);
    const made = await inviteUser(
      app.store,
      { workspaceId: id, email, role },
      TEST_METADATA,
      app.clock,
    );
    return invitationUrl(app.store, made.token, app.base);
  };

  /** Joins with the invitation page's form (password chosen): signed in, on /dashboard. */
  const join = async (link: string, visitor = visitorOf(app.base), password = PASSWORD) => {
    const opened = await visitor.get(link);
    expect(opened.status, opened.text).toBe(200);
    const joined = await visitor.post(link, { password });
    expect(joined.url).toBe(`${app.base}/dashboard`);
    expect(joined.status).toBe(200);
    return visitor;
  };

  /** Invited, password chosen, signed in: a visitor who has read /dashboard. */
  const signedIn = async (
    email: string,
    options: { role?: 'owner' | 'member'; workspace?: string; userAgent?: string } = {},
  ): Promise<SignedInVisitor> => {
    const link = await invite(email, options.role ?? 'owner', options.workspace ?? 'acme');
    const visitor = await join(link, visitorOf(app.base, options.userAgent));
    return { ...visitor, email };
  };

  /** Signs an existing person in on another device, with the sign-in form. */
  const signInAgain = async (email: string, password = PASSWORD, userAgent?: string) => {
    const visitor = visitorOf(app.base, userAgent);
    const answer = await visitor.signIn(email, password);
    expect(answer.status, answer.text).toBe(303);
    expect((await visitor.get('/dashboard')).status).toBe(200);
    return { ...visitor, email };
  };

  /** The workspace's trail, as `flipbook audit log --json` prints it. */
  const auditLog = async (workspace = 'acme'): Promise<AuditLine[]> => {
    const { id } = await requireWorkspace(app.store, workspace);
    const lines: AuditLine[] = [];
    const trail = workspaceTrail(app.store, {
      workspaceId: id,
      since: null,
      until: null,
      actor: null,
    });
    for await (const event of trail) lines.push(JSON.parse(JSON.stringify(event)) as AuditLine);
    return lines;
  };

  return {
    invite,
    join,
    signedIn,
    signInAgain,
    auditLog,
    /** `flipbook audit verify`'s answer: whether the hash chain holds */
    verifyAudit: async () => (await verifyChain(app.store)).intact,
    /** a person's id (`flipbook user list`) */
    userId: async (email: string) => (await findPerson(app.store, email)).id,
    /** someone who is not signed in */
    visitor: (userAgent?: string) => visitorOf(app.base, userAgent),
  };
};

export type DashboardOf = ReturnType<typeof dashboardOf>;

// Reading a page's HTML. The pages are made by one escaping template (src/http/html.ts), so
// their shapes are regular enough to read with a few patterns; a test names what it reads.

const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
};

/** Markup's text as a browser's textContent has it (tags gone, entities decoded), white space
 * collapsed and trimmed. */
export const textOf = (html: string) =>
  html
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity] ?? entity)
    .replace(/\s+/g, ' ')
    .trim();

/** The text of every element with this opening tag's pattern (`<h1`, `<p class="alert`...). */
const elements = (html: string, tag: string, attributes: string) =>
  [
    ...html.matchAll(new RegExp(`<${tag}\\b[^>]*${attributes}[^>]*>([\\s\\S]*?)</${tag}>`, 'g')),
  ].map((m) => textOf(m[1] ?? ''));

/** The page's heading. */
export const h1Of = (html: string) => elements(html, 'h1', '')[0];
/** The page's alerts (refusals in words), in order. */
export const alertsOf = (html: string) =>
  [...html.matchAll(/<(\w+)\b[^>]*role="alert"[^>]*>([\s\S]*?)<\/\1>/g)].map((m) =>
    textOf(m[2] ?? ''),
  );
/** The page's status notes (what was done), in order. */
export const statusesOf = (html: string) =>
  [...html.matchAll(/<(\w+)\b[^>]*role="status"[^>]*>([\s\S]*?)<\/\1>/g)]
    .map((m) => textOf(m[2] ?? ''))
    .filter((text) => text !== '');
/** The table rows (`<tr>…</tr>`, markup kept) whose text holds `text`. */
export const rowsOf = (html: string, text: string) =>
  [...html.matchAll(/<tr\b[^>]*>[\s\S]*?<\/tr>/g)]
    .map((m) => m[0])
    .filter((row) => textOf(row).includes(text));
/** A row's cell by its label (`<td data-label="Status">`), as text. */
export const cellOf = (row: string, label: string) =>
  elements(row, 'td', `data-label="${label}"`)[0];
/** An input's value by its id (`<input id="invite-link" ... value="...">`). */
export const inputValueOf = (html: string, id: string) => {
  const input = new RegExp(`<input\\b[^>]*\\bid="${id}"[^>]*>`).exec(html)?.[0];
  const value = input ? /\bvalue="([^"]*)"/.exec(input)?.[1] : undefined;
  return value === undefined ? undefined : textOf(value);
};
/** The buttons' labels in some markup (a row, a form). */
export const buttonsOf = (html: string) => elements(html, 'button', '');
/** The links' texts in some markup. */
export const linksOf = (html: string) => elements(html, 'a', '');
/** The forms' actions in some markup (a row's buttons post to them). */
export const formActionsOf = (html: string) =>
  [...html.matchAll(/<form\b[^>]*\baction="([^"]*)"/g)].map((m) => m[1] ?? '');
