// Single sign-on (docs/dashboard.md): the dashboard signs people in through a real OpenID Connect
// provider (oidc-provider, started here), in Chromium: a member by the verified email the
// provider vouches for, a newcomer of a domain the operator lets join; refused: an unverified
// email, an unknown person, a replayed state, a callback in another browser, a response naming
// another issuer, a provider whose discovery names another issuer.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { flipbook, startDaemon } from '../support/cli.ts';
import {
  axeViolations,
  type DashboardFixture,
  PHONE,
  startDashboard,
} from '../support/dashboard.ts';
import {
  CLIENT_ID,
  CLIENT_SECRET,
  type OidcProvider,
  startOidcProvider,
} from '../support/oidcProvider.ts';

const IMAGES = join(import.meta.dirname, '../../docs/images');
const SECRET_ENV = { FLIPBOOK_OIDC_CLIENT_SECRET: CLIENT_SECRET };

describe('single sign-on with OpenID Connect', () => {
  let provider: OidcProvider;
  let d: DashboardFixture;

  beforeAll(async () => {
    provider = await startOidcProvider();
    d = await startDashboard(
      'embedded',
      [
        '--oidc-issuer',
        provider.issuer,
        '--oidc-client-id',
        CLIENT_ID,
        '--oidc-name',
        'Acme ID',
        '--oidc-join',
        'example.org=acme',
        '--oidc-domain',
        'example.com',
      ],
      SECRET_ENV,
    );
    provider.allow(`${d.url}/login/sso/callback`);
  });
  afterEach(async () => {
    await d?.closeContexts();
    expect(d?.problems).toEqual([]);
  });
  afterAll(async () => {
    await d?.stop();
    await provider?.close();
  });

  /** From the sign-in page through the provider's pages, as `login`, until back at the daemon. */
  const signInAs = async (page: Page, login: string, start = `${d.url}/login`) => {
    // The provider's development pages load a web font: nothing leaves this machine.
    await page.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.fulfill({ body: '' }));
    await page.goto(start);
    await page.getByRole('link', { name: 'Sign in with Acme ID' }).click();
    await page.locator('input[name="login"]').fill(login);
    await page.locator('input[name="password"]').fill('anything at all');
    // Back at the daemon: the page it ends on (after the callback's redirect, if any).
    const back = page.waitForResponse(
      (r) =>
        new URL(r.url()).origin === d.url &&
        r.request().isNavigationRequest() &&
        r.status() !== 303,
    );
    await page.getByRole('button', { name: 'Sign-in' }).click();
    // The provider asks for consent the first time a person signs in to this client.
    const consent = page.getByRole('button', { name: 'Continue' });
    await Promise.race([back, consent.waitFor().then(() => consent.click())]).catch(() => {});
    await back;
    await page.waitForURL((url) => url.origin === d.url);
  };

  /**
   * The provider's redirect back, held before it reaches the daemon: its URL, and the state
   * cookies the browser holds, to send by hand.
   */
  const callbackOf = async (login: string, page?: Page) => {
    const browser = page ?? (await d.open());
    await browser.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.fulfill({ body: '' }));
    const callback = provider.holdNextCallback();
    await browser.goto(`${d.url}/login`);
    await browser.getByRole('link', { name: 'Sign in with Acme ID' }).click();
    const asked = browser.locator('input[name="login"]');
    // A browser already signed in at the provider is not asked again.
    await Promise.race([callback, asked.waitFor()]);
    if (await asked.isVisible()) {
      await asked.fill(login);
      await browser.locator('input[name="password"]').fill('anything at all');
      await browser.getByRole('button', { name: 'Sign-in' }).click();
    }
    const consent = browser.getByRole('button', { name: 'Continue' });
    await Promise.race([callback, consent.waitFor().then(() => consent.click())]).catch(() => {});
    const url = await callback;
    // The held page shown (the provider answers before the browser has it): no navigation left.
    await browser.getByText('Held by the test.').waitFor();
    const cookies = (await browser.context().cookies(`${d.url}/login/sso/callback`))
      .filter((c) => c.name.startsWith('flipbook_sso_'))
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
    return { callback: url, cookie: cookies, page: browser };
  };

  it('signs a member in by their verified email, back to the page they asked for', async () => {
    await (await d.signedIn('mia@example.com', { role: 'member' })).context().close();
    const page = await d.open();
    await signInAs(page, 'mia@example.com', `${d.url}/dashboard/keys`);
    // The sign-in page sent to /login?next=…; the provider's round trip keeps it.
    expect(new URL(page.url()).pathname).toBe('/dashboard/keys');
    await expect(page.getByText('mia@example.com').first().isVisible()).resolves.toBe(true);
    const signIns = (await d.auditLog()).filter(
      (e) => e.type === 'UserSignedIn' && e.metadata.actor.email === 'mia@example.com',
    );
    expect(signIns.at(-1)?.data).toMatchObject({ method: 'sso' });
  });

  it('lets a newcomer of a joining domain in as a member; refuses others and unverified emails', async () => {
    const page = await d.open();
    await signInAs(page, 'noor@example.org');
    expect(new URL(page.url()).pathname).toBe('/dashboard');
    const joined = (await d.auditLog()).find((e) => e.type === 'MemberJoined');
    expect(joined?.data).toMatchObject({
      email: 'noor@example.org',
      role: 'member',
      via: 'sso',
      domain: 'example.org',
    });
    expect(joined?.metadata.actor).toMatchObject({ type: 'user', email: 'noor@example.org' });
    // Signed in again, the same person: no second member.
    const again = await d.open();
    await signInAs(again, 'noor@example.org');
    expect((await d.auditLog()).filter((e) => e.type === 'MemberJoined')).toHaveLength(1);
    // Removed by an owner, the domain does not bring them back (an invitation would).
    const removed = await flipbook(['user', 'remove', 'noor@example.org', ...d.fx.storeArgs]);
    expect(removed.code, removed.stderr).toBe(0);
    const back = await d.open();
    await signInAs(back, 'noor@example.org');
    await expect(back.getByRole('alert').textContent()).resolves.toContain(
      'You were removed from this workspace',
    );

    // A domain the provider signs in for, but no one of that address here and no joining.
    // (On a phone, with an address long enough to have to wrap.)
    const zoe = `zoe.${'z'.repeat(60)}@example.com`;
    const stranger = await d.open(PHONE);
    await signInAs(stranger, zoe);
    await expect(stranger.getByRole('alert').textContent()).resolves.toContain(
      `There is no account here for ${zoe}`,
    );
    expect(await stranger.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
      390,
    );
    // Another domain: the provider's word is not taken for it, even for an account here.
    const elsewhere = await d.signedIn('kim@elsewhere.net', { role: 'owner' });
    await elsewhere.context().close();
    const outside = await d.open();
    await signInAs(outside, 'kim@elsewhere.net');
    await expect(outside.getByRole('alert').textContent()).resolves.toContain(
      'Single sign-on here is not for kim@elsewhere.net',
    );
    // An email of the joining domain, not verified by the provider: no one is signed in.
    const unverified = await d.open();
    await signInAs(unverified, 'unverified:sam@example.org');
    await expect(unverified.getByRole('alert').textContent()).resolves.toContain(
      'has not verified your email address',
    );
    const dashboard = await unverified.goto(`${d.url}/dashboard`);
    expect(new URL(dashboard?.url() ?? '').pathname).toBe('/login');
  });

  it('refuses a callback in another browser, a response naming another issuer, a replayed one', async () => {
    const send = (url: string, cookie = '') =>
      fetch(url, { redirect: 'manual', headers: { cookie, accept: 'text/html' } });

    const first = await callbackOf('mia@example.com');
    // Another browser (no state cookie): refused, and the sign-in is still there for its own.
    const elsewhere = await send(first.callback);
    expect(elsewhere.status).toBe(401);
    expect(await elsewhere.text()).toContain('did not finish in time or was used already');
    // The response says another issuer sent it (a mix-up): refused by openid-client.
    const mixedUp = new URL(first.callback);
    mixedUp.searchParams.set('iss', 'https://issuer.example.net');
    const wrongIssuer = await send(mixedUp.href, first.cookie);
    expect(wrongIssuer.status).toBe(401);
    expect(await wrongIssuer.text()).toContain('The sign-in provider did not sign you in');
    expect(wrongIssuer.headers.get('set-cookie')).not.toContain('flipbook_session=');

    const second = await callbackOf('mia@example.com');
    const right = await send(second.callback, second.cookie);
    expect(right.status).toBe(303);
    expect(right.headers.get('location')).toBe('/dashboard');
    expect(right.headers.get('set-cookie')).toMatch(/flipbook_session=[A-Za-z0-9_-]{43}/);
    // The same state again (a replay): used already.
    const replayed = await send(second.callback, second.cookie);
    expect(replayed.status).toBe(401);
    expect(replayed.headers.get('set-cookie')).not.toContain('flipbook_session=');

    // Two sign-ins started in one browser (two tabs): each finishes, in either order.
    const tabA = await callbackOf('mia@example.com');
    const tabB = await callbackOf('mia@example.com', tabA.page);
    expect((await send(tabB.callback, tabB.cookie)).status).toBe(303);
    expect((await send(tabA.callback, tabB.cookie)).status).toBe(303);

    // The provider gone between the redirect and the way back: unavailable, not refused.
    const third = await callbackOf('mia@example.com');
    provider.setDown(true);
    try {
      const away = await send(third.callback, third.cookie);
      expect(away.status).toBe(503);
      expect(away.headers.get('retry-after')).toBe('30');
      expect(await away.text()).toContain('Single sign-on is not available now');
    } finally {
      provider.setDown(false);
    }
  });

  it('the sign-in page offers the provider, axe-clean on a phone', async () => {
    const page = await d.open({ ...PHONE, bypassCSP: true });
    await page.goto(`${d.url}/login?next=/dashboard/keys`);
    const link = page.getByRole('link', { name: 'Sign in with Acme ID' });
    expect(await link.getAttribute('href')).toBe('/login/sso?next=%2Fdashboard%2Fkeys');
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(IMAGES, 'dashboard-signin-sso-phone.png') });
  });

  it('a provider whose discovery names another issuer: not available, the daemon serves on', async () => {
    // A "provider" that claims to be someone else: openid-client refuses its configuration.
    const impostor = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ issuer: 'https://login.example.com', authorization_endpoint: 'x' }));
    });
    await new Promise<void>((done) => impostor.listen(0, '127.0.0.1', done));
    const issuer = `http://127.0.0.1:${(impostor.address() as AddressInfo).port}`;
    const other = await startDaemon(
      [
        ...d.fx.storeArgs,
        '--workers',
        '0',
        '--oidc-issuer',
        issuer,
        '--oidc-client-id',
        'x',
        '--oidc-domain',
        'example.com',
        '--oidc-join',
        'example.net=nosuchws',
      ],
      SECRET_ENV,
    );
    try {
      // A joining workspace that does not exist is said at start.
      expect(other.logs()).toContain('--oidc-join names no workspace \\"nosuchws\\"');
      const started = await fetch(`${other.url}/login/sso`, {
        redirect: 'manual',
        headers: { accept: 'text/html' },
      });
      expect(started.status).toBe(503);
      expect(await started.text()).toContain('Single sign-on is not available now');
      expect((await fetch(`${other.url}/login`)).status).toBe(200);
    } finally {
      await other.stop();
      impostor.close();
    }
  });
});
