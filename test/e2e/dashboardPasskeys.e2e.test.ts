// Passkeys, end to end in Chromium with its virtual authenticator (CDP's WebAuthn domain: CTAP2,
// internal, resident keys, user verification): added on the profile page and listed with their
// name, a sign-in with one (no email typed) that honours `next` and is recorded as
// UserSignedIn { method: 'passkey' }, removal (a confirmation page; the passkey then fails in
// words), a removed member's passkey refused, origin, CSRF and body refusals on the JSON
// endpoints, the shared throttle per address, axe and the profile's screenshot.
//
// The daemon listens on localhost: browsers refuse an IP address as a passkey's relying party.
import { join } from 'node:path';
import type { CDPSession, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { flipbook } from '../support/cli.ts';
import { axeViolations, DESKTOP, PHONE, postSignIn, useDashboard } from '../support/dashboard.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const IMAGES = join(ROOT, 'docs', 'images');
const SHOTS = join(ROOT, 'test-output', 'screenshots');

type Authenticator = {
  cdp: CDPSession;
  id: string;
  credentials: () => Promise<
    {
      credentialId: string;
      isResidentCredential: boolean;
      rpId?: string;
      userHandle?: string;
      privateKey: string;
      signCount: number;
    }[]
  >;
};

/** A virtual platform authenticator for this page's tab, as a phone or laptop would have. */
const authenticator = async (
  page: Page,
  transport: 'internal' | 'usb' = 'internal',
): Promise<Authenticator> => {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport,
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return {
    cdp,
    id: authenticatorId,
    credentials: async () =>
      (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials,
  };
};

describe('dashboard passkeys (embedded store)', () => {
  const d = useDashboard('embedded', ['--host', 'localhost']);

  /** Adds a passkey named `name` on the profile page; back on the profile with it listed. */
  const addPasskey = async (page: Page, name: string) => {
    await page.goto(`${d.url}/dashboard/profile`);
    await page.getByLabel('Name of the new passkey').fill(name);
    await page.getByRole('button', { name: 'Add passkey' }).click();
    await page.locator('table.passkeys tr', { hasText: name }).waitFor();
  };

  const signOut = async (page: Page) => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${d.url}/login`);
  };

  const passkeyAlert = (page: Page) => page.locator('[data-passkey-status] [role="alert"]');

  it('adds a passkey on the profile page and signs in with it, recorded as a passkey sign-in', async () => {
    const page = await d.signedIn('pat@example.com');
    const device = await authenticator(page);
    await page.goto(`${d.url}/dashboard/profile`);
    expect(await page.getByText('No passkeys yet.').count()).toBe(1);
    // With the script, the hint about JavaScript gives way to the button.
    expect(await page.getByText('needs JavaScript').isVisible()).toBe(false);
    await addPasskey(page, 'Work laptop');
    const row = page.locator('table.passkeys tbody tr');
    expect(await row.count()).toBe(1);
    expect(await row.locator('td').nth(0).textContent()).toBe('Work laptop');
    expect(await row.locator('td').nth(2).textContent()).toBe('Never');
    const [credential] = await device.credentials();
    expect(credential?.isResidentCredential).toBe(true);
    expect(credential?.rpId).toBe('localhost');
    // The user handle is a random one, not the email.
    const handle = Buffer.from(credential?.userHandle ?? '', 'base64').toString('latin1');
    expect(handle).not.toContain('pat@');
    expect(credential?.userHandle?.length).toBeGreaterThanOrEqual(40);

    await signOut(page);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.waitForURL(`${d.url}/dashboard`);
    expect(await page.locator('.email').textContent()).toBe('pat@example.com');
    await page.goto(`${d.url}/dashboard/profile`);
    const lastUsed = await row.locator('td').nth(2).textContent();
    expect(lastUsed).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    // A replay rebuilds the passkey from its event and leaves its counter and last use alone.
    const replay = await flipbook(['replay', '--json', ...d.fx.storeArgs]);
    expect(replay.code, replay.stderr).toBe(0);
    await page.reload();
    expect(await row.locator('td').nth(0).textContent()).toBe('Work laptop');
    expect(await row.locator('td').nth(2).textContent()).toBe(lastUsed);

    // `next` is honoured: signed out, a page asks for sign-in and comes back after it.
    await signOut(page);
    await page.goto(`${d.url}/dashboard/keys`);
    await page.waitForURL(/\/login\?next=/);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.waitForURL(`${d.url}/dashboard/keys`);

    const events = await d.auditLog();
    const pats = events.filter((e) => e.metadata?.actor?.email === 'pat@example.com');
    const added = pats.find((e) => e.type === 'PasskeyAdded');
    expect(added?.data).toMatchObject({
      name: 'Work laptop',
      credentialId: Buffer.from(credential?.credentialId ?? '', 'base64').toString('base64url'),
      transports: ['internal'],
    });
    expect(added?.metadata.actor).toMatchObject({ type: 'user', email: 'pat@example.com' });
    const byPasskey = pats.filter((e) => e.type === 'UserSignedIn' && e.data.method === 'passkey');
    expect(byPasskey.length).toBe(2);
    const verify = await flipbook(['audit', 'verify', ...d.fx.storeArgs]);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  });

  it('removes a passkey after a confirmation; it then fails to sign in, in words', async () => {
    const page = await d.signedIn('quinn@example.com');
    await authenticator(page);
    await addPasskey(page, 'Phone');
    // Another person's passkey is as unknown as none, to see and to remove (isolation).
    const removeUrl = await page.getByRole('link', { name: 'Remove Phone' }).getAttribute('href');
    const other = await d.signedIn('quinn-other@example.com');
    const csrf = await other.locator('input[name="_csrf"]').first().inputValue();
    expect((await other.goto(`${d.url}${removeUrl}`))?.status()).toBe(404);
    const forced = await other.request.post(`${d.url}${removeUrl}`, {
      headers: { origin: d.url },
      form: { _csrf: csrf },
    });
    expect(forced.status()).toBe(404);
    expect((await other.goto(`${d.url}/dashboard/passkeys/not-an-id/remove`))?.status()).toBe(404);
    await page.getByRole('link', { name: 'Remove Phone' }).click();
    expect(await page.locator('h1').textContent()).toBe('Remove the passkey “Phone”?');
    // Cancel changes nothing.
    await page.getByRole('link', { name: 'Cancel' }).click();
    expect(await page.locator('table.passkeys tbody tr').count()).toBe(1);
    await page.getByRole('link', { name: 'Remove Phone' }).click();
    await page.getByRole('button', { name: 'Remove' }).click();
    await page.waitForURL(`${d.url}/dashboard/profile#passkeys`);
    expect(await page.locator('table.passkeys').count()).toBe(0);
    expect(await page.getByText('No passkeys yet.').count()).toBe(1);

    // The authenticator still holds it; the service no longer knows it.
    await signOut(page);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await passkeyAlert(page).waitFor();
    expect(await passkeyAlert(page).textContent()).toBe(
      'This passkey is not registered here (it may have been removed): sign in with your password',
    );
    expect(new URL(page.url()).pathname).toBe('/login');
    // The button works again after a refusal: the password still signs in.
    expect(await page.getByRole('button', { name: 'Sign in with a passkey' }).isEnabled()).toBe(
      true,
    );
    const removed = (await d.auditLog()).filter(
      (e) => e.type === 'PasskeyRemoved' && e.metadata?.actor?.email === 'quinn@example.com',
    );
    expect(removed.length).toBe(1);
  });

  it('refuses a passkey whose sign counter went back (a cloned authenticator), and records it', async () => {
    const page = await d.signedIn('vic@example.com');
    const device = await authenticator(page);
    await addPasskey(page, 'Tablet');
    await signOut(page);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.waitForURL(`${d.url}/dashboard`);
    await signOut(page);
    // The same key, as a copy that has counted less: its next signature's counter is too low.
    const [credential] = await device.credentials();
    if (!credential) throw new Error('the authenticator holds no passkey');
    expect(credential.signCount).toBeGreaterThan(0);
    await device.cdp.send('WebAuthn.clearCredentials', { authenticatorId: device.id });
    await device.cdp.send('WebAuthn.addCredential', {
      authenticatorId: device.id,
      credential: { ...credential, signCount: 0 },
    });
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await passkeyAlert(page).waitFor();
    expect(await passkeyAlert(page).textContent()).toBe(
      'This passkey could not be verified: try again, or use your password',
    );
    const failed = (await d.auditLog()).filter(
      (e) => e.type === 'UserSignInFailed' && e.metadata?.actor?.email === 'vic@example.com',
    );
    expect(failed.map((e) => e.data)).toEqual([
      expect.objectContaining({
        reason: 'passkey',
        credentialId: Buffer.from(credential.credentialId, 'base64').toString('base64url'),
      }),
    ]);
  });

  it('a removed member’s passkey signs no one in', async () => {
    const page = await d.signedIn('mel@example.com', { role: 'member' });
    await authenticator(page);
    await addPasskey(page, 'Laptop');
    await signOut(page);
    const removed = await flipbook(['user', 'remove', 'mel@example.com', ...d.fx.storeArgs]);
    expect(removed.code, removed.stderr).toBe(0);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await passkeyAlert(page).waitFor();
    expect(await passkeyAlert(page).textContent()).toContain('not registered here');
    expect(new URL(page.url()).pathname).toBe('/login');
  });

  it('refuses the JSON endpoints from another site, without the CSRF token, or with bad bodies', async () => {
    const page = await d.signedIn('rae@example.com');
    const cookies = await page.context().cookies();
    const jar = { cookie: cookies.map((c) => `${c.name}=${c.value}`).join('; ') };
    const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
    const json = { 'content-type': 'application/json' };
    const post = (path: string, headers: Record<string, string>, body = '{}') =>
      fetch(`${d.url}${path}`, { method: 'POST', headers: { ...json, ...headers }, body });
    const refused = async (response: Response, status: number, words: RegExp) => {
      expect(response.status).toBe(status);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(((await response.json()) as { error: string }).error).toMatch(words);
    };

    // Signed in: the session's token in X-CSRF-Token, from this site only.
    const options = '/dashboard/passkeys/options';
    await refused(await post(options, { ...jar, origin: d.url }), 403, /expired/);
    await refused(
      await post(options, { ...jar, origin: d.url, 'x-csrf-token': 'x'.repeat(43) }),
      403,
      /expired/,
    );
    await refused(
      await post(options, { ...jar, origin: 'https://evil.example', 'x-csrf-token': csrf }),
      403,
      /another site/,
    );
    await refused(
      await post(options, { ...jar, 'sec-fetch-site': 'cross-site', 'x-csrf-token': csrf }),
      403,
      /another site/,
    );
    await refused(
      await post(options, { origin: d.url, 'x-csrf-token': csrf }),
      401,
      /sign in again/,
    );
    const ok = await post(options, { ...jar, origin: d.url, 'x-csrf-token': csrf });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('cache-control')).toBe('no-store');
    const made = (await ok.json()) as { user: { id: string }; challenge: string };
    expect(made).toMatchObject({
      rp: { name: 'Flipbooks', id: 'localhost' },
      user: { name: 'rae@example.com' },
      attestation: 'none',
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
    });
    expect(made.user.id).not.toContain('rae');
    expect(made.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // An answer that is not a passkey's is refused in words; the challenge is spent with it.
    const bogus = JSON.stringify({ name: 'x', response: { id: 'nope', type: 'public-key' } });
    const signed = { ...jar, origin: d.url, 'x-csrf-token': csrf };
    await refused(await post('/dashboard/passkeys', signed, bogus), 400, /not a passkey’s/);
    await refused(await post('/dashboard/passkeys', signed, bogus), 400, /took too long/);

    // Signed out: the origin decides.
    const signIn = '/login/passkey/options';
    await refused(await post(signIn, { origin: 'https://evil.example' }), 403, /another site/);
    await refused(await post(signIn, { 'sec-fetch-site': 'cross-site' }), 403, /another site/);
    await refused(
      await post(signIn, { origin: d.url, 'content-type': 'application/x-www-form-urlencoded' }),
      415,
      /application\/json/,
    );
    await refused(await post(signIn, { origin: d.url }, 'not json'), 400, /not valid JSON/);
    await refused(await post(signIn, { origin: d.url }, '[1]'), 400, /JSON object/);
    await refused(
      await post(signIn, { origin: d.url }, JSON.stringify({ pad: 'x'.repeat(70_000) })),
      413,
      /too large/,
    );
    const started = await post(signIn, { origin: d.url });
    expect(started.status).toBe(200);
    const cookie = started.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(
      /^flipbook_passkey=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=360$/,
    );
    expect(await started.json()).toMatchObject({
      rpId: 'localhost',
      userVerification: 'preferred',
    });
    const challenge = cookie.split(';')[0] ?? '';
    const answer = JSON.stringify({ response: { id: 'A'.repeat(22), type: 'public-key' } });
    // A malformed answer, then the same challenge again (spent), then no challenge at all.
    await refused(
      await post('/login/passkey', { origin: d.url, cookie: challenge }, answer),
      401,
      /could not be verified/,
    );
    await refused(
      await post('/login/passkey', { origin: d.url, cookie: challenge }, answer),
      401,
      /took too long, or was already used/,
    );
    await refused(await post('/login/passkey', { origin: d.url }, answer), 401, /took too long/);
    await refused(
      await post('/login/passkey', { origin: 'https://evil.example', cookie: challenge }, answer),
      403,
      /another site/,
    );
    // The daemon is still here and answering.
    expect((await fetch(`${d.url}/healthz`)).status).toBe(200);
  });

  it('is axe-clean with a passkey listed and on the sign-in page; the profile’s screenshot', async () => {
    const page = await d.signedIn('sam@example.com', { context: { ...DESKTOP, bypassCSP: true } });
    const laptop = await authenticator(page);
    await addPasskey(page, 'MacBook Air');
    // One passkey per device: the same authenticator is told it holds one already.
    await page.getByLabel('Name of the new passkey').fill('Again');
    await page.getByRole('button', { name: 'Add passkey' }).click();
    await passkeyAlert(page).waitFor();
    expect(await passkeyAlert(page).textContent()).toContain('already holds one of your passkeys');
    // Used once, so the list shows when.
    await signOut(page);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.waitForURL(`${d.url}/dashboard`);
    // A security key is another device.
    await laptop.cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId: laptop.id });
    await authenticator(page, 'usb');
    await addPasskey(page, 'YubiKey 5C');
    expect(await axeViolations(page), 'profile').toEqual([]);
    await page.locator('#passkeys').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(IMAGES, 'dashboard-profile-desktop.png'), fullPage: true });
    for (const [shape, options] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      const phone = await d.open({ ...options, bypassCSP: true });
      await phone.goto(`${d.url}/login`);
      await phone.getByRole('button', { name: 'Sign in with a passkey' }).waitFor();
      expect(await phone.getByText('needs JavaScript').isVisible()).toBe(false);
      expect(await axeViolations(phone), 'sign-in').toEqual([]);
      expect(await phone.evaluate('document.documentElement.scrollWidth <= innerWidth')).toBe(true);
      await phone.screenshot({ path: join(SHOTS, `passkey-sign-in-${shape}.png`) });
    }
    // Without JavaScript: the profile says adding needs it, and the sign-in page offers the
    // password alone (and says why).
    const noScript = await d.open({ ...DESKTOP, javaScriptEnabled: false });
    await noScript.context().addCookies(await page.context().cookies());
    await noScript.goto(`${d.url}/dashboard/profile`);
    expect(await noScript.getByText('Adding a passkey needs JavaScript').isVisible()).toBe(true);
    expect(await noScript.getByRole('button', { name: 'Add passkey' }).isDisabled()).toBe(true);
    expect(await noScript.locator('table.passkeys tbody tr').count()).toBe(2);
    const signedOut = await d.open({ ...DESKTOP, javaScriptEnabled: false });
    await signedOut.goto(`${d.url}/login`);
    expect(
      await signedOut.getByText('Signing in with a passkey needs JavaScript').isVisible(),
    ).toBe(true);
    expect(await signedOut.getByRole('button', { name: 'Sign in with a passkey' }).count()).toBe(0);
    const small = await d.signedIn('tom@example.com', { context: { ...PHONE, bypassCSP: true } });
    await authenticator(small);
    await addPasskey(small, 'Phone');
    expect(await axeViolations(small), 'profile on a phone').toEqual([]);
    expect(await small.evaluate('document.documentElement.scrollWidth <= innerWidth')).toBe(true);
  });

  it('counts failed passkey sign-ins in the throttle per address, as wrong passwords are', async () => {
    const attempt = () =>
      fetch(`${d.url}/login/passkey`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: d.url },
        body: '{}',
      });
    let last = await attempt();
    for (let i = 0; i < 40 && last.status === 401; i++) last = await attempt();
    expect(last.status).toBe(429);
    expect(last.headers.get('retry-after')).toBe('900');
    expect(((await last.json()) as { error: string }).error).toContain('Too many wrong attempts');
    // The same address's password attempts wait too: one throttle.
    const password = await postSignIn(d.url, 'pat@example.com');
    expect(password.status).toBe(429);
    d.advanceClock(16 * 60);
    expect((await attempt()).status).toBe(401);
  });
});
