// The API keys page in Chromium: "Create key" by mouse and by keyboard (the date field picks its
// choice), the copy button, a reload that shows the list and not the key (the page's script),
// the install and sign-in lines the page shows run as shown on a machine with only Node.js, the
// key the operator's CLI made listed as theirs, axe and the screenshots in docs/images. The
// forms' answers (the key shown once, roll, revoke, who may, the Team plan, isolation, CSRF,
// the audit trail's actor) are test/spec/dashboardKeys.spec.test.ts's. One store: the browser's
// behaviour does not depend on which PostgreSQL holds the events.
import { createHash } from 'node:crypto';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.ts';
import { pipelineEnv, shell } from '../support/clientInstall.ts';
import { axeViolations, DESKTOP, PHONE, useDashboard } from '../support/dashboard.ts';

const IMAGES = join(ROOT, 'docs', 'images');
/** More views, to look at after a run (not documentation). */
const SHOTS = join(ROOT, 'test-output', 'screenshots');

const fingerprint = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 8);

describe('dashboard API keys in a browser', () => {
  const d = useDashboard('embedded');

  /** The status of one API call with the key. */
  const call = async (key: string) =>
    (await fetch(`${d.fx.api}/flipbooks`, { headers: { authorization: `Bearer ${key}` } })).status;
  /** The table row of the key with this fingerprint. */
  const row = (page: Page, fp: string) => page.locator('tbody tr').filter({ hasText: fp });
  const cell = (page: Page, fp: string, label: string) =>
    row(page, fp).locator(`td[data-label="${label}"]`);

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

  it('creates a key, copies it, and its two lines run as shown; a reload shows the list', async () => {
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
    expect(response.url()).toBe(`${d.url}/dashboard/keys/new`); // the key is in no URL
    const lines = [
      (await page.locator('#install-line').textContent()) ?? '',
      (await page.locator('#login-line').textContent()) ?? '',
    ];
    expect(lines[0]).toBe(`npm install -g ${d.url}/downloads/flipbook-cli.tgz`);
    expect(lines[1]).toBe(`flipbook login --url ${d.url} --api-key ${key}`);
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

    // The two lines run as shown, on a machine with only Node.js: install, sign in, then list.
    const machine = pipelineEnv();
    for (const line of lines) {
      const ran = await shell(line, machine.env);
      expect(ran.code, `${line}: ${ran.stderr}`).toBe(0);
    }
    expect((await shell('flipbook list --json', machine.env)).code).toBe(0);
    expect(await call(key)).toBe(200);
  });

  it('creates a key from the keyboard, with an expiry date', async () => {
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
  });

  it('is axe-clean, light and dark, desktop and phone; saves the screenshots', async () => {
    const page = await d.signedIn('quinn@example.com', {
      context: { ...DESKTOP, bypassCSP: true },
    });
    await page.goto(`${d.url}/dashboard/keys`);
    expect(await axeViolations(page), 'keys').toEqual([]);
    const { key } = await createKey(page, 'CI publishing', 'In 90 days');
    expect(await axeViolations(page), 'key created').toEqual([]);
    await page.screenshot({ path: join(IMAGES, 'dashboard-key-created-desktop.png') });
    await page.goto(`${d.url}/dashboard/keys`);
    await row(page, fingerprint(key)).getByRole('button', { name: 'Roll' }).click();
    expect(await axeViolations(page), 'roll').toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'dashboard-key-roll.png') });
    // Rolled with a grace, and its successor revoked: the list shows every kind of row.
    await page.getByLabel('For 1 hour').check();
    await page.getByRole('button', { name: 'Roll' }).click();
    const successor = (await page.locator('#new-key').textContent()) ?? '';
    await page.goto(`${d.url}/dashboard/keys`);
    await row(page, fingerprint(successor)).getByRole('button', { name: 'Revoke' }).click();
    expect(await axeViolations(page), 'revoke').toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'dashboard-key-revoke.png') });
    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.waitForURL(/\/dashboard\/keys\?revoked=/);
    await page.goto(`${d.url}/dashboard/keys`);
    expect(await axeViolations(page), 'keys, rolled and revoked').toEqual([]);
    await page.screenshot({ path: join(IMAGES, 'dashboard-keys-desktop.png'), fullPage: true });

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
