// The API keys page, end to end in Chromium on the embedded store: create (the key shown once on
// a no-store answer, working against the API, gone on reload, "last used" set after a call),
// roll with a grace, revoke (401 at once), the Team-plan rule on a free workspace, isolation
// between workspaces, CSRF, the audit trail's actor, axe and the screenshots in docs/images.
// "Last used" is written at every use here (FLIPBOOK_KEY_USAGE_INTERVAL_MS=0).
import { createHash } from 'node:crypto';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { flipbook, ROOT } from '../support/cli.ts';
import { pipelineEnv, shell } from '../support/clientInstall.ts';
import { axeViolations, DESKTOP, PHONE, useDashboard } from '../support/dashboard.ts';
import { STORE_KINDS } from '../support/stores.ts';

const IMAGES = join(ROOT, 'docs', 'images');
/** More views, to look at after a run (not documentation). */
const SHOTS = join(ROOT, 'test-output', 'screenshots');
const TEAM_ONLY =
  'API keys are available on the Team plan only; workspace "hobby" is on the free plan';

const fingerprint = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 8);

describe.each(STORE_KINDS)('dashboard API keys (%s store)', (kind) => {
  const d = useDashboard(kind, [], { FLIPBOOK_KEY_USAGE_INTERVAL_MS: '0' });

  /** The status of one API call with the key. */
  const call = async (key: string) =>
    (await fetch(`${d.fx.api}/flipbooks`, { headers: { authorization: `Bearer ${key}` } })).status;
  const cli = (args: string[]) => flipbook([...args, ...d.fx.storeArgs]);
  /** The table row of the key with this fingerprint. */
  const row = (page: Page, fp: string) => page.locator('tbody tr').filter({ hasText: fp });
  const cell = (page: Page, fp: string, label: string) =>
    row(page, fp).locator(`td[data-label="${label}"]`);
  const csrfOf = (page: Page) => page.locator('input[name="_csrf"]').first().inputValue();

  /** A key's id from the admin CLI's list. */
  const keyIdOf = async (workspace: string, fp: string) => {
    const listed = await cli(['key', 'list', '--workspace', workspace, '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const found = (JSON.parse(listed.stdout) as { id: string; fingerprint: string }[]).find(
      (k) => k.fingerprint === fp,
    );
    if (!found) throw new Error(`no key ${fp} in ${workspace}`);
    return found.id;
  };

  /** "Create key" on the page; the answer and the key it shows. */
  const createKey = async (page: Page, name: string, expiry = 'In 30 days') => {
    await page.goto(`${d.url}/dashboard/keys`);
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByLabel(expiry, { exact: true }).check();
    // POST, redirect, GET: the key is shown by the page after the redirect, once.
    const [response] = await Promise.all([
      page.waitForResponse((r) => new URL(r.url()).pathname === '/dashboard/keys/new'),
      page.getByRole('button', { name: 'Create key' }).click(),
    ]);
    const key = (await page.locator('#new-key').textContent()) ?? '';
    expect(key).toMatch(/^svc_[0-9a-f]{48}$/);
    return { key, response };
  };

  it('creates a key, shows it once on a no-store page, and it works against the API', async () => {
    const page = await d.signedIn('kim@example.com');
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.waitForURL(`${d.url}/dashboard/keys`);
    expect(await page.locator('h1').textContent()).toBe('API keys');
    // The fixture's key, made by the admin CLI, is listed with the operator who made it.
    expect(await cell(page, fingerprint(d.fx.key), 'Created by').textContent()).toBe(
      `operator ${userInfo().username}`,
    );

    const { key, response } = await createKey(page, 'laptop');
    expect(response.status()).toBe(200);
    expect(response.headers()['cache-control']).toBe('no-store');
    expect(response.url()).toBe(`${d.url}/dashboard/keys/new`); // the key is in no URL
    expect(await page.getByRole('status').first().textContent()).toContain('“laptop” is ready');
    expect(await page.locator('#login-line').textContent()).toBe(
      `flipbook login --url ${d.url} --api-key ${key}`,
    );
    const lines = [
      (await page.locator('#install-line').textContent()) ?? '',
      (await page.locator('#login-line').textContent()) ?? '',
    ];
    expect(lines[0]).toBe(`npm install -g ${d.url}/downloads/flipbook-cli.tgz`);
    // Copy, with the script: the key reaches the clipboard and the page says so.
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await expect.poll(() => page.locator('#new-key-status').textContent()).toBe('Copied.');
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(key);

    // Reloading shows the list, not the key, and makes no second key.
    await page.reload();
    expect(page.url()).toBe(`${d.url}/dashboard/keys`);
    expect(await page.content()).not.toContain(key);
    expect(await page.locator('tbody tr').filter({ hasText: 'laptop' }).count()).toBe(1);
    const fp = fingerprint(key);
    expect(await cell(page, fp, 'Name').textContent()).toBe('laptop');
    expect(await cell(page, fp, 'Created by').textContent()).toBe('kim@example.com');
    expect(await cell(page, fp, 'Last used').textContent()).toBe('Never');
    expect(await cell(page, fp, 'Status').textContent()).toContain('Active');
    const expires = Date.parse(
      (await cell(page, fp, 'Expires').locator('time').getAttribute('datetime')) ?? '',
    );
    expect(Math.abs(expires - Date.now() - 30 * 86_400_000)).toBeLessThan(120_000);
    const again = await page.request.get(`${d.url}/dashboard/keys`);
    expect(again.headers()['cache-control']).toBe('no-store');
    expect(await again.text()).not.toContain(key);
    // The page that showed it, asked for again (a reload without the script): the list instead.
    const shownAgain = await page.request.get(`${d.url}/dashboard/keys/new`);
    expect(shownAgain.url()).toBe(`${d.url}/dashboard/keys`);
    expect(await shownAgain.text()).not.toContain(key);

    // The two lines run as shown, on a machine with only Node.js: install, sign in, then list.
    const machine = pipelineEnv();
    for (const line of lines) {
      const ran = await shell(line, machine.env);
      expect(ran.code, `${line}: ${ran.stderr}`).toBe(0);
    }
    expect((await shell('flipbook list --json', machine.env)).code).toBe(0);
    expect(await call(key)).toBe(200);
    await expect
      .poll(async () => {
        await page.reload();
        return cell(page, fp, 'Last used').textContent();
      })
      .not.toBe('Never');

    // The event's actor is the person, as the audit trail shows it.
    const audit = await cli(['audit', 'log', '--workspace', 'acme', '--json']);
    expect(audit.code, audit.stderr).toBe(0);
    const issued = audit.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .filter((e) => e.type === 'ApiKeyIssued' && e.data.label === 'laptop');
    expect(issued).toHaveLength(1);
    expect(issued[0].metadata.actor).toMatchObject({ type: 'user', email: 'kim@example.com' });
  });

  it('creates a key from the keyboard, with an expiry date or none', async () => {
    const page = await d.signedIn('kit@example.com');
    await page.goto(`${d.url}/dashboard/keys`);
    await page.getByLabel('Name', { exact: true }).focus();
    await page.keyboard.type('nightly build');
    // Using the date picks "On": the form works by keyboard alone.
    await page.getByLabel('Expiry date').fill('2099-01-31');
    expect(await page.getByLabel('On', { exact: true }).isChecked()).toBe(true);
    await page.getByLabel('Name', { exact: true }).press('Enter');
    const key = (await page.locator('#new-key').textContent()) ?? '';
    await page.getByRole('link', { name: 'Back to the keys' }).click();
    expect(
      await cell(page, fingerprint(key), 'Expires').locator('time').getAttribute('datetime'),
    ).toBe('2099-01-31T00:00:00Z');

    await createKey(page, 'archive sync', 'Never');
    await page.goto(`${d.url}/dashboard/keys`);
    const forever = page.locator('tbody tr').filter({ hasText: 'archive sync' });
    expect(await forever.locator('td[data-label="Expires"]').textContent()).toBe('Never');

    // A refused form keeps what was typed and says why.
    await page.getByLabel('Name', { exact: true }).fill('no date');
    await page.getByLabel('On', { exact: true }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    expect(await page.getByRole('alert').textContent()).toBe('Choose the day the key expires');
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('no date');
    expect(await page.getByLabel('On', { exact: true }).isChecked()).toBe(true);
    // A day in the past is the decider's to refuse (the date field's min stops it in a browser).
    const past = await page.request.post(`${d.url}/dashboard/keys`, {
      form: { _csrf: await csrfOf(page), name: 'past', expiry: 'date', expires_on: '2001-01-01' },
      headers: { origin: d.url },
    });
    expect(past.status()).toBe(422);
    expect(await past.text()).toContain('already be expired');
  });

  it('rolls a key: the old one works for the grace chosen, or is refused at once', async () => {
    const page = await d.signedIn('lee@example.com');
    const first = (await createKey(page, 'deploy')).key;
    await page.goto(`${d.url}/dashboard/keys`);
    await row(page, fingerprint(first)).getByRole('button', { name: 'Roll' }).click();
    expect(await page.locator('h1').textContent()).toBe('Roll “deploy”');
    await page.getByLabel('For 1 hour').check();
    await page.getByRole('button', { name: 'Roll' }).click();
    const second = (await page.locator('#new-key').textContent()) ?? '';
    expect(second).toMatch(/^svc_[0-9a-f]{48}$/);
    expect(await page.getByRole('status').first().textContent()).toMatch(
      new RegExp(`old one \\(${fingerprint(first)}\\) works until`),
    );
    expect([await call(first), await call(second)]).toEqual([200, 200]);

    await page.reload(); // the list, not the roll form again
    expect(page.url()).toBe(`${d.url}/dashboard/keys`);
    expect(await cell(page, fingerprint(first), 'Status').textContent()).toMatch(
      /Rolled\s+works until/,
    );
    expect(await cell(page, fingerprint(second), 'Name').textContent()).toBe('deploy');
    expect(await cell(page, fingerprint(second), 'Created by').textContent()).toBe(
      'lee@example.com',
    );
    // A rolled key cannot be rolled again, but it can be revoked before its grace ends.
    expect(await row(page, fingerprint(first)).getByRole('button', { name: 'Roll' }).count()).toBe(
      0,
    );
    expect(
      await row(page, fingerprint(first)).getByRole('button', { name: 'Revoke' }).count(),
    ).toBe(1);

    await row(page, fingerprint(second)).getByRole('button', { name: 'Roll' }).click();
    await page.getByLabel('No: refuse it from now on').check();
    await page.getByRole('button', { name: 'Roll' }).click();
    const third = (await page.locator('#new-key').textContent()) ?? '';
    expect(await page.getByRole('status').first().textContent()).toContain('refused from now on');
    expect([await call(second), await call(third), await call(first)]).toEqual([401, 200, 200]);
    // Rolled without a grace: past it at once, and shown as rolled (it was replaced), not expired.
    await page.goto(`${d.url}/dashboard/keys`);
    expect(await cell(page, fingerprint(second), 'Status').textContent()).toMatch(
      /Rolled\s+stopped/,
    );
  });

  it('a member rolls and revokes only the keys they created; owners any key', async () => {
    const owner = await d.signedIn('noor@example.com');
    const ownersKey = (await createKey(owner, 'owner ci')).key;
    const member = await d.signedIn('ozzy@example.com', { role: 'member' });
    const membersKey = (await createKey(member, 'oz laptop')).key;
    await member.goto(`${d.url}/dashboard/keys`);
    expect(await row(member, fingerprint(ownersKey)).getByRole('button').count()).toBe(0);
    expect(await row(member, fingerprint(membersKey)).getByRole('button').count()).toBe(2);
    expect(await member.getByText('You can roll and revoke the keys you created').count()).toBe(1);
    // Forced by hand: refused in words, and the key still works.
    const id = await keyIdOf('acme', fingerprint(ownersKey));
    await member.goto(`${d.url}/dashboard/keys`);
    const csrf = await csrfOf(member);
    for (const action of ['roll', 'revoke']) {
      const forced = await member.request.post(`${d.url}/dashboard/keys/${id}/${action}`, {
        form: { _csrf: csrf, grace: '1h' },
        headers: { origin: d.url },
        maxRedirects: 0,
      });
      expect(forced.status()).toBe(403);
      expect(await forced.text()).toContain(
        'Only owners can roll or revoke a key someone else created',
      );
      expect((await member.goto(`${d.url}/dashboard/keys/${id}/${action}`))?.status()).toBe(403);
    }
    expect(await call(ownersKey)).toBe(200);
    // The owner manages the member's key too.
    await owner.goto(`${d.url}/dashboard/keys`);
    expect(await row(owner, fingerprint(membersKey)).getByRole('button').count()).toBe(2);
  });

  it('refuses a day that does not exist, rather than moving it', async () => {
    const page = await d.signedIn('pim@example.com');
    await page.goto(`${d.url}/dashboard/keys`);
    const answer = await page.request.post(`${d.url}/dashboard/keys`, {
      form: { _csrf: await csrfOf(page), name: 'odd', expiry: 'date', expires_on: '2099-02-30' },
      headers: { origin: d.url },
    });
    expect(answer.status()).toBe(400);
    expect(await answer.text()).toContain('a day that does not exist: 2099-02-30');
    // And a value the form never offers is refused, whatever its name (a Map, not an object).
    const odd = await page.request.post(`${d.url}/dashboard/keys`, {
      form: { _csrf: await csrfOf(page), name: 'odd', expiry: 'constructor' },
      headers: { origin: d.url },
    });
    expect(odd.status()).toBe(400);
    expect(await odd.text()).toContain('Choose when the key expires');
  });

  it('revokes a key after a confirmation: the API refuses it at once', async () => {
    const page = await d.signedIn('max@example.com');
    const { key } = await createKey(page, 'old laptop');
    expect(await call(key)).toBe(200);
    await page.goto(`${d.url}/dashboard/keys`);
    await row(page, fingerprint(key)).getByRole('button', { name: 'Revoke' }).click();
    expect(await page.locator('h1').textContent()).toBe('Revoke “old laptop”?');
    expect(await call(key)).toBe(200); // nothing happens before the confirmation
    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.waitForURL(/\/dashboard\/keys\?revoked=/);
    expect(await page.getByRole('status').first().textContent()).toContain(
      `“old laptop” (${fingerprint(key)}) is revoked`,
    );
    expect(await call(key)).toBe(401);
    expect(await cell(page, fingerprint(key), 'Status').textContent()).toBe('Revoked');
    expect(await row(page, fingerprint(key)).getByRole('button').count()).toBe(0);

    const audit = await cli(['audit', 'log', '--workspace', 'acme', '--json']);
    const revoked = audit.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .filter((e) => e.type === 'ApiKeyRevoked');
    expect(revoked.at(-1).metadata.actor).toMatchObject({ type: 'user', email: 'max@example.com' });
  });

  it('on the free plan: no form, a forced request refused with the reason, revoke still works', async () => {
    const hobby = await d.fx.newWorkspace('hobby', 'free');
    const page = await d.signedIn('nia@example.com', { workspace: 'hobby' });
    await page.goto(`${d.url}/dashboard/keys`);
    expect(
      await page.getByRole('heading', { name: 'Creating keys needs the Team plan' }).count(),
    ).toBe(1);
    expect(await page.getByLabel('Name', { exact: true }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Create key' }).count()).toBe(0);
    const fp = fingerprint(hobby.key);
    expect(await row(page, fp).getByRole('button', { name: 'Roll' }).count()).toBe(0);

    // A form forced into the page: the server refuses it with the decider's reason, in words.
    const csrf = await csrfOf(page);
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.evaluate(`(() => {
        const form = document.createElement('form');
        form.method = 'post';
        form.action = '/dashboard/keys';
        for (const [name, value] of [['_csrf', ${JSON.stringify(csrf)}], ['name', 'forced'], ['expiry', '30']]) {
          const input = document.createElement('input');
          input.type = 'hidden';
          input.name = name;
          input.value = value;
          form.append(input);
        }
        document.body.append(form);
        form.submit();
      })()`),
    ]);
    expect(response.status()).toBe(422);
    expect(await page.getByRole('alert').textContent()).toBe(TEAM_ONLY);
    expect(await page.locator('#new-key').count()).toBe(0);
    const rolled = await page.request.post(
      `${d.url}/dashboard/keys/${await keyIdOf('hobby', fp)}/roll`,
      {
        form: { _csrf: csrf, grace: 'now' },
        headers: { origin: d.url },
      },
    );
    expect(rolled.status()).toBe(422);
    expect(await rolled.text()).toContain(TEAM_ONLY.replaceAll('"', '&quot;'));
    expect(await call(hobby.key)).toBe(200);

    await page.goto(`${d.url}/dashboard/keys`);
    await row(page, fp).getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.waitForURL(/\/dashboard\/keys\?revoked=/);
    expect(await cell(page, fp, 'Status').textContent()).toBe('Revoked');
    expect(await call(hobby.key)).toBe(401);
  });

  it("another workspace's key is a 404 for every action", async () => {
    const other = await d.fx.newWorkspace('other');
    const otherId = await keyIdOf('other', fingerprint(other.key));
    const page = await d.signedIn('oli@example.com');
    await page.goto(`${d.url}/dashboard/keys`);
    expect(await page.content()).not.toContain(fingerprint(other.key));
    const csrf = await csrfOf(page);
    for (const path of [`/dashboard/keys/${otherId}/revoke`, `/dashboard/keys/${otherId}/roll`]) {
      expect((await page.goto(`${d.url}${path}`))?.status(), path).toBe(404);
    }
    for (const [path, form] of [
      [`/dashboard/keys/${otherId}/revoke`, { _csrf: csrf }],
      [`/dashboard/keys/${otherId}/roll`, { _csrf: csrf, grace: 'now' }],
      ['/dashboard/keys/not-a-key/revoke', { _csrf: csrf }],
    ] as const) {
      const res = await page.request.post(`${d.url}${path}`, { form, headers: { origin: d.url } });
      expect(res.status(), path).toBe(404);
    }
    expect(await call(other.key)).toBe(200);
  });

  it('refuses a form without its CSRF token, or from another site, with 403', async () => {
    const page = await d.signedIn('pat@example.com');
    const { key } = await createKey(page, 'staging server');
    const csrf = await csrfOf(page);
    const id = await keyIdOf('acme', fingerprint(key));
    const post = (path: string, form: Record<string, string>, origin = d.url) =>
      page.request.post(`${d.url}${path}`, { form, headers: { origin } });
    expect((await post('/dashboard/keys', { name: 'sneaky', expiry: '30' })).status()).toBe(403);
    expect(
      (
        await post('/dashboard/keys', {
          _csrf: 'x'.repeat(csrf.length),
          name: 'sneaky',
          expiry: '30',
        })
      ).status(),
    ).toBe(403);
    expect(
      (
        await post(
          '/dashboard/keys',
          { _csrf: csrf, name: 'sneaky', expiry: '30' },
          'https://evil.example',
        )
      ).status(),
    ).toBe(403);
    expect((await post(`/dashboard/keys/${id}/revoke`, {})).status()).toBe(403);
    expect((await post(`/dashboard/keys/${id}/roll`, { grace: 'now' })).status()).toBe(403);
    expect(await call(key)).toBe(200);
    await page.goto(`${d.url}/dashboard/keys`);
    expect(await page.locator('tbody tr').filter({ hasText: 'sneaky' }).count()).toBe(0);
  });

  // How the pages look is the same HTML on either store: checked once.
  if (kind === 'embedded')
    it('is axe-clean, light and dark, desktop and phone; saves the screenshots', async () => {
      const page = await d.signedIn('quinn@example.com', {
        context: { ...DESKTOP, bypassCSP: true },
      });
      await page.goto(`${d.url}/dashboard/keys`);
      expect(await axeViolations(page), 'keys').toEqual([]);
      await page.screenshot({ path: join(IMAGES, 'dashboard-keys-desktop.png'), fullPage: true });
      const { key } = await createKey(page, 'CI publishing', 'In 90 days');
      expect(await axeViolations(page), 'key created').toEqual([]);
      await page.screenshot({ path: join(IMAGES, 'dashboard-key-created-desktop.png') });
      await page.goto(`${d.url}/dashboard/keys`);
      await row(page, fingerprint(key)).getByRole('button', { name: 'Roll' }).click();
      expect(await axeViolations(page), 'roll').toEqual([]);
      await page.screenshot({ path: join(SHOTS, 'dashboard-key-roll.png') });
      await page.goto(`${d.url}/dashboard/keys`);
      await row(page, fingerprint(key)).getByRole('button', { name: 'Revoke' }).click();
      expect(await axeViolations(page), 'revoke').toEqual([]);
      await page.screenshot({ path: join(SHOTS, 'dashboard-key-revoke.png') });

      const dark = await d.signedIn('ray@example.com', {
        context: { ...DESKTOP, bypassCSP: true, colorScheme: 'dark' },
      });
      await dark.goto(`${d.url}/dashboard/keys`);
      expect(await axeViolations(dark), 'keys, dark').toEqual([]);
      await dark.screenshot({ path: join(SHOTS, 'dashboard-keys-dark.png'), fullPage: true });
      await createKey(dark, 'design team');
      expect(await axeViolations(dark), 'key created, dark').toEqual([]);
      await dark.screenshot({ path: join(SHOTS, 'dashboard-key-created-dark.png') });

      const phone = await d.signedIn('sam@example.com', { context: { ...PHONE, bypassCSP: true } });
      await phone.goto(`${d.url}/dashboard/keys`);
      expect(await axeViolations(phone), 'keys, phone').toEqual([]);
      // Nothing wider than the phone.
      expect(await phone.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      await phone.screenshot({ path: join(IMAGES, 'dashboard-keys-phone.png'), fullPage: true });
      await createKey(phone, 'tablet');
      expect(await axeViolations(phone), 'key created, phone').toEqual([]);
      await phone.screenshot({
        path: join(SHOTS, 'dashboard-key-created-phone.png'),
        fullPage: true,
      });
      expect(await phone.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    });
});
