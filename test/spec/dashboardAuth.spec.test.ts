// Signing in to the dashboard, the forms' answers without a browser (the app in process,
// test/support/dashboardSpec.ts): the operator's invitation link used once, a common password
// refused, signing in and out, the throttle of wrong passwords, CSRF and origin refusals, the
// cookie's flags, session expiry on the app's clock, the API refusing cookies, isolation between
// workspaces, the audit trail's actors. What Chromium does with them (the sign-in form typed in,
// the cookie kept, axe, a phone) is test/e2e/dashboardAuth.e2e.test.ts's.
import { describe, expect, it } from 'vitest';
import { client, createFlipbook } from '../support/apiHelpers.ts';
import { useApp } from '../support/appSpec.ts';
import { PASSWORD } from '../support/dashboard.ts';
import { alertsOf, dashboardOf, h1Of, linksOf, textOf } from '../support/dashboardSpec.ts';
import { appFetch } from '../support/inProcess.ts';

describe('dashboard sign-in', () => {
  const app = useApp();
  const d = () => dashboardOf(app);

  /** A form posted as a script of any site could post it: no cookie, headers as given. */
  const post = (path: string, body: Record<string, string>, headers: Record<string, string> = {}) =>
    appFetch(`${app.base}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(body).toString(),
    });

  it('invite → password → signed in; the link works once; sign out ends the session', async () => {
    const link = await d().invite('ann@example.com', 'owner');
    expect(link).toMatch(new RegExp(`^${app.base}/invite/[A-Za-z0-9_-]{43}$`));
    const ann = d().visitor();
    expect(h1Of((await ann.get(link)).text)).toContain('acme');
    // A common password is refused in words; the form stays.
    const common = await ann.post(link, { password: 'password123' });
    expect(alertsOf(common.text)[0]).toMatch(/most common/);
    expect(common.text).toContain('name="password"');
    const joined = await ann.post(link, { password: PASSWORD }, { follow: false });
    expect([joined.status, joined.location]).toEqual([303, '/dashboard']);
    const [cookie = ''] = joined.headers.getSetCookie();
    // http here; https gives __Host- and Secure (unit test)
    expect(cookie).toMatch(/^flipbook_session=[A-Za-z0-9_-]{43}; /);
    expect(cookie).toMatch(/; HttpOnly(;|$)/);
    expect(cookie).toMatch(/; SameSite=Lax(;|$)/);
    expect(cookie).not.toMatch(/Secure/);
    const page = await ann.get('/dashboard');
    expect([page.status, h1Of(page.text)]).toEqual([200, 'Flipbooks']);
    for (const name of ['Flipbooks', 'API keys', 'Members', 'Profile']) {
      expect(
        linksOf(page.text).filter((text) => text === name),
        name,
      ).toHaveLength(1);
    }
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");

    // Used once: the same link now says so.
    const used = await d().visitor().get(link);
    expect(used.status).toBe(404);
    expect(h1Of(used.text)).toBe('This link cannot be used');

    const out = await ann.post('/logout', {});
    expect(new URL(out.url).pathname).toBe('/login');
    expect(ann.cookie()).toBe('');
    // The old cookie no longer signs anyone in.
    const res = await appFetch(`${app.base}/dashboard`, {
      redirect: 'manual',
      headers: { cookie: cookie.split(';')[0] ?? '' },
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/login?next=%2Fdashboard');
  });

  it('signs in with email and password, and comes back to the page asked for', async () => {
    await d().invite('bob@example.com', 'member');
    await d().signedIn('bob-setup@example.com', { role: 'member' });
    const bob = d().visitor();
    const asked = await bob.get('/dashboard?status=archived');
    expect(asked.url).toBe(`${app.base}/login?next=%2Fdashboard%3Fstatus%3Darchived`);
    const next = /<input type="hidden" name="next" value="([^"]*)">/.exec(asked.text)?.[1];
    expect(next).toBe('/dashboard?status=archived');
    // case and spaces do not matter
    const back = await bob.post('/login', {
      email: 'BOB-setup@Example.com ',
      password: PASSWORD,
      next: next ?? '',
    });
    expect(back.url).toBe(`${app.base}/dashboard?status=archived`);
    expect(back.text).toContain('<option value="archived" selected>');
  });

  it('answers a wrong password and an unknown email alike, then throttles both', async () => {
    await d().signedIn('carol@example.com');
    const attempt = (email: string, password: string) =>
      post('/login', { email, password }, { origin: app.base });
    const wrong = await attempt('carol@example.com', 'not the password at all');
    const unknown = await attempt('nobody@example.com', 'not the password at all');
    expect([wrong.status, unknown.status]).toEqual([401, 401]);
    const texts = await Promise.all([wrong.text(), unknown.text()]);
    const message = (html: string) =>
      /<p class="alert error" role="alert">([^<]*)<\/p>/.exec(html)?.[1];
    expect(message(texts[0] ?? '')).toBe('The email or the password is not right');
    expect(message(texts[1] ?? '')).toBe(message(texts[0] ?? ''));
    for (let i = 0; i < 4; i++) {
      expect((await attempt('carol@example.com', `wrong ${i} password`)).status).toBe(401);
      expect((await attempt('nobody@example.com', `wrong ${i} password`)).status).toBe(401);
    }
    // Five wrong attempts: even the right password waits now, and so does the unknown email.
    const throttled = await attempt('carol@example.com', PASSWORD);
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBe('900');
    expect(await throttled.text()).toContain('Too many wrong attempts');
    expect((await attempt('nobody@example.com', 'whatever it is')).status).toBe(429);
    // After the window (the app's clock moved on), the right password works again.
    app.clock.advance(16 * 60_000);
    const ok = await attempt('carol@example.com', PASSWORD);
    expect(ok.status).toBe(303);
    expect(ok.headers.get('set-cookie')).toMatch(
      /^flipbook_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax/,
    );
  });

  it('refuses forms from another site, and forms without the session’s token', async () => {
    const dan = await d().signedIn('dan@example.com');
    const jar = { cookie: dan.cookie() };
    const csrf = dan.csrf();
    expect(csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(
      (await post('/logout', { _csrf: csrf }, { ...jar, origin: 'https://evil.example' })).status,
    ).toBe(403);
    expect(
      (await post('/logout', { _csrf: csrf }, { ...jar, 'sec-fetch-site': 'cross-site' })).status,
    ).toBe(403);
    expect((await post('/logout', {}, { ...jar, origin: app.base })).status).toBe(403);
    expect(
      (await post('/logout', { _csrf: 'x'.repeat(43) }, { ...jar, origin: app.base })).status,
    ).toBe(403);
    expect(
      (
        await post(
          '/login',
          { email: 'dan@example.com', password: PASSWORD },
          { origin: 'https://evil.example' },
        )
      ).status,
    ).toBe(403);
    // Still signed in: none of the refused forms did anything.
    expect(
      (await appFetch(`${app.base}/dashboard`, { headers: jar, redirect: 'manual' })).status,
    ).toBe(200);
    // The API takes keys only: the dashboard's cookie is not one.
    expect((await appFetch(`${app.api}/flipbooks`, { headers: jar })).status).toBe(401);
  });

  it('refuses a form or a script’s JSON whose bytes are not UTF-8, in words', async () => {
    const latin1 = (text: string) => Buffer.from(text, 'latin1');
    const form = await appFetch(`${app.base}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: app.base },
      body: latin1('email=d\xe9sir\xe9e@example.com&password=x'),
    });
    expect(form.status).toBe(400);
    expect(await form.text()).toContain('The form cannot be read: it is not UTF-8');
    const json = await appFetch(`${app.base}/login/passkey/options`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=iso-8859-1', origin: app.base },
      body: latin1('{"email":"d\xe9sir\xe9e@example.com"}'),
    });
    expect(json.status).toBe(400);
    expect(await json.json()).toEqual({
      error: 'The request cannot be read: it is not UTF-8 (JSON and forms are sent in UTF-8)',
    });
  });

  it('ends a session after 12 idle hours, and any session after 14 days', async () => {
    const erin = await d().signedIn('erin@example.com');
    const where = async (visitor: typeof erin) =>
      new URL((await visitor.get('/dashboard')).url).pathname;
    app.clock.advance(11 * 3_600_000);
    expect(await where(erin)).toBe('/dashboard'); // 11 h idle: still in (and seen now)
    app.clock.advance(13 * 3_600_000);
    expect(await where(erin)).toBe('/login'); // 13 h idle: out

    // A visit every 11 hours never idles out, but nothing outlives 14 days (336 h).
    const frank = await d().signedIn('frank@example.com');
    for (let hours = 11; hours <= 330; hours += 11) {
      app.clock.advance(11 * 3_600_000);
      expect(await where(frank), `${hours} h`).toBe('/dashboard');
    }
    app.clock.advance(11 * 3_600_000); // 341 h
    expect(await where(frank)).toBe('/login');
  });

  it('shows each person only their own workspace', async () => {
    const other = await app.newWorkspace('globex');
    const made = await createFlipbook(client(app.api, other.key), { title: 'Globex secret plan' });
    expect(made.flipbookId).toMatch(/^[0-9a-f-]{36}$/);
    const gina = await d().signedIn('gina@example.com', { workspace: 'acme' });
    const page = (await gina.get('/dashboard')).text;
    expect(page).not.toContain('Globex secret plan');
    const workspaceOf = (html: string) =>
      textOf(/<a class="workspace"[^>]*>([^<]*)<\/a>/.exec(html)?.[1] ?? '');
    expect(workspaceOf(page)).toBe('acme');
    const hal = await d().signedIn('hal@example.com', { workspace: 'globex' });
    expect(workspaceOf((await hal.get('/dashboard')).text)).toBe('globex');
    // An email belongs to one person: inviting it into another workspace is refused.
    await expect(d().invite('gina@example.com', 'member', 'globex')).rejects.toThrow(
      'another workspace',
    );
  });

  it('records sign-ins and failures in the workspace’s audit trail, with the person as actor', async () => {
    const events = await d().auditLog();
    const ann = events.filter((e) => e.metadata?.actor?.email === 'ann@example.com');
    expect(ann.map((e) => e.type)).toEqual(
      expect.arrayContaining([
        'InvitationAccepted',
        'UserPasswordSet',
        'UserSignedIn',
        'UserSignedOut',
      ]),
    );
    expect(ann[0]?.metadata.actor).toMatchObject({ type: 'user', email: 'ann@example.com' });
    const failed = events.filter((e) => e.type === 'UserSignInFailed');
    expect(failed.length).toBe(5); // carol's five wrong passwords; unknown emails are not events
    expect(await d().verifyAudit()).toBe(true);
  });
});
