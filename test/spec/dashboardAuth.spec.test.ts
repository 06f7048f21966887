// Signing in to the dashboard, end to end in Chromium: the operator's invitation link, choosing
// a password, signing in and out, the throttle, CSRF and origin refusals, the cookie's flags,
// session expiry on the daemon's injected clock, the API refusing cookies, isolation between
// workspaces, the audit trail, axe and the phone layout.
import { describe, expect, it } from 'vitest';
import { client, createFlipbook } from '../support/apiHelpers.ts';
import { flipbook } from '../support/cli.ts';
import { axeViolations, PASSWORD, PHONE, useDashboard } from '../support/dashboard.ts';
import { STORE_KINDS } from '../support/stores.ts';

describe.each(STORE_KINDS)('dashboard sign-in (%s store)', (kind) => {
  const d = useDashboard(kind);

  const post = (path: string, body: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${d.url}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(body).toString(),
    });

  it('invite → password → signed in; the link works once; sign out ends the session', async () => {
    const link = await d.invite('ann@example.com', 'owner');
    expect(link).toMatch(new RegExp(`^${d.url}/invite/[A-Za-z0-9_-]{43}$`));
    const page = await d.open();
    await page.goto(link);
    expect(await page.locator('h1').textContent()).toContain('acme');
    // A common password is refused in words; the form stays.
    await page.getByLabel('Password').fill('password123');
    await page.getByRole('button', { name: 'Create my account' }).click();
    expect(await page.getByRole('alert').textContent()).toMatch(/most common/);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create my account' }).click();
    await page.waitForURL(`${d.url}/dashboard`);
    expect(await page.locator('h1').textContent()).toBe('Flipbooks');
    for (const name of ['Flipbooks', 'API keys', 'Members', 'Profile']) {
      expect(await page.getByRole('link', { name, exact: true }).count()).toBe(1);
    }
    const [cookie] = await page.context().cookies();
    expect(cookie).toMatchObject({ name: 'flipbook_session', httpOnly: true, sameSite: 'Lax' });
    expect(cookie?.secure).toBe(false); // http here; https gives __Host- and Secure (unit test)
    const pageResponse = await page.request.get(`${d.url}/dashboard`);
    expect(pageResponse.headers()['cache-control']).toBe('no-store');
    expect(pageResponse.headers()['x-frame-options']).toBe('DENY');
    expect(pageResponse.headers()['content-security-policy']).toContain("frame-ancestors 'none'");

    // Used once: the same link now says so.
    const again = await d.open();
    const used = await again.goto(link);
    expect(used?.status()).toBe(404);
    expect(await again.locator('h1').textContent()).toBe('This link cannot be used');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${d.url}/login`);
    // The old cookie no longer signs anyone in.
    const res = await fetch(`${d.url}/dashboard`, {
      redirect: 'manual',
      headers: { cookie: `${cookie?.name}=${cookie?.value}` },
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/login?next=%2Fdashboard');
  });

  it('signs in with email and password, and comes back to the page asked for', async () => {
    await d.invite('bob@example.com', 'member');
    const setup = await d.signedIn('bob-setup@example.com', { role: 'member' });
    await setup.close();
    const page = await d.open();
    await page.goto(`${d.url}/dashboard?status=archived`);
    await page.waitForURL(/\/login\?next=/);
    await page.getByLabel('Email').fill('BOB-setup@Example.com '); // case and spaces do not matter
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${d.url}/dashboard?status=archived`);
    expect(await page.locator('#status').inputValue()).toBe('archived');
  });

  it('answers a wrong password and an unknown email alike, then throttles both', async () => {
    await (await d.signedIn('carol@example.com')).close();
    const attempt = (email: string, password: string) =>
      post('/login', { email, password }, { origin: d.url });
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
    // After the window (the daemon's clock moved on), the right password works again.
    d.advanceClock(16 * 60);
    const ok = await attempt('carol@example.com', PASSWORD);
    expect(ok.status).toBe(303);
    expect(ok.headers.get('set-cookie')).toMatch(
      /^flipbook_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax/,
    );
  });

  it('refuses forms from another site, and forms without the session’s token', async () => {
    const page = await d.signedIn('dan@example.com');
    const [cookie] = await page.context().cookies();
    const jar = { cookie: `${cookie?.name}=${cookie?.value}` };
    const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
    expect(
      (await post('/logout', { _csrf: csrf }, { ...jar, origin: 'https://evil.example' })).status,
    ).toBe(403);
    expect(
      (await post('/logout', { _csrf: csrf }, { ...jar, 'sec-fetch-site': 'cross-site' })).status,
    ).toBe(403);
    expect((await post('/logout', {}, { ...jar, origin: d.url })).status).toBe(403);
    expect(
      (await post('/logout', { _csrf: 'x'.repeat(43) }, { ...jar, origin: d.url })).status,
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
    expect((await fetch(`${d.url}/dashboard`, { headers: jar, redirect: 'manual' })).status).toBe(
      200,
    );
    // The API takes keys only: the dashboard's cookie is not one.
    expect((await fetch(`${d.url}/api/v1/flipbooks`, { headers: jar })).status).toBe(401);
  });

  it('ends a session after 12 idle hours, and any session after 14 days', async () => {
    const page = await d.signedIn('erin@example.com');
    d.advanceClock(11 * 3600);
    await page.reload();
    expect(new URL(page.url()).pathname).toBe('/dashboard'); // 11 h idle: still in (and seen now)
    d.advanceClock(13 * 3600);
    await page.reload();
    expect(new URL(page.url()).pathname).toBe('/login'); // 13 h idle: out

    // A visit every 11 hours never idles out, but nothing outlives 14 days (336 h).
    const busy = await d.signedIn('frank@example.com');
    for (let hours = 11; hours <= 330; hours += 11) {
      d.advanceClock(11 * 3600);
      await busy.reload();
      expect(new URL(busy.url()).pathname, `${hours} h`).toBe('/dashboard');
    }
    d.advanceClock(11 * 3600); // 341 h
    await busy.reload();
    expect(new URL(busy.url()).pathname).toBe('/login');
  });

  it('shows each person only their own workspace', async () => {
    const other = await d.fx.newWorkspace('globex');
    const made = await createFlipbook(client(d.fx.api, other.key), { title: 'Globex secret plan' });
    expect(made.flipbookId).toMatch(/^[0-9a-f-]{36}$/);
    const page = await d.signedIn('gina@example.com', { workspace: 'acme' });
    expect(await page.content()).not.toContain('Globex secret plan');
    expect(await page.locator('.workspace').textContent()).toBe('acme');
    const globex = await d.signedIn('hal@example.com', { workspace: 'globex' });
    expect(await globex.locator('.workspace').textContent()).toBe('globex');
    // An email belongs to one person: inviting it into another workspace is refused.
    const clash = await flipbook([
      'user',
      'invite',
      'gina@example.com',
      '--workspace',
      'globex',
      ...d.fx.storeArgs,
    ]);
    expect(clash.code).not.toBe(0);
    expect(clash.stderr).toContain('another workspace');
  });

  it('records sign-ins and failures in the workspace’s audit trail, with the person as actor', async () => {
    const events = await d.auditLog();
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
    const verify = await flipbook(['audit', 'verify', ...d.fx.storeArgs]);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  });

  // How the pages look is the same HTML on either store: checked once.
  if (kind === 'embedded')
    it('is axe-clean and fits a phone', async () => {
      const link = await d.invite('ivy@example.com', 'member');
      for (const options of [{ viewport: { width: 1280, height: 860 } }, PHONE]) {
        const page = await d.open({ ...options, bypassCSP: true });
        await page.goto(`${d.url}/login`);
        expect(await axeViolations(page), 'login').toEqual([]);
        await page.goto(link);
        expect(await axeViolations(page), 'invitation').toEqual([]);
        expect(await page.evaluate('document.documentElement.scrollWidth <= innerWidth')).toBe(
          true,
        );
      }
      const page = await d.signedIn('jo@example.com', { context: { ...PHONE, bypassCSP: true } });
      expect(await axeViolations(page), 'flipbooks').toEqual([]);
      expect(await page.evaluate('document.documentElement.scrollWidth <= innerWidth')).toBe(true);
    });
});
