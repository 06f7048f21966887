// Who reads a share link, in Chromium (issue 44): the link form with its reader rules filled by a
// person (no mail server: the code and the mail shown disabled, with why), a link's page with
// its readers, axe-clean on desktop and phone, fitting a phone; screenshots for
// docs/dashboard.md. The forms' answers (refusals, the CSV, erasure, CSRF, isolation) are
// test/spec/dashboardReaders.spec.test.ts's.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { client, createFlipbook } from '../support/apiHelpers.ts';
import { axeViolations, DESKTOP, PHONE, useDashboard } from '../support/dashboard.ts';

const IMAGES = join(import.meta.dirname, '..', '..', 'docs', 'images');

/** A reader gives their address at the link's form, as the reader's page posts it. */
const identify = async (url: string, email: string) => {
  const reply = await fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin: new URL(url).origin,
    },
    body: new URLSearchParams({ step: 'email', email, accept: 'yes' }),
  });
  expect(reply.status).toBe(303);
};

describe('who reads a share link, in a browser', () => {
  const d = useDashboard('embedded', ['--workers', '0']);

  it('makes a link that asks for an address, lists its readers; axe-clean; screenshots', async () => {
    const api = client(d.fx.api, d.fx.key);
    const { flipbookId } = await createFlipbook(api, { title: 'Board pack, spring 2027' });
    const page = await d.signedIn('owner-readers@example.com', {
      context: { ...DESKTOP, bypassCSP: true },
    });
    await page.goto(`${d.url}/dashboard/flipbooks/${flipbookId}/links`);
    // Without a mail server: the code and the mail cannot be chosen, and the page says why.
    const code = page.getByLabel(/confirm it with a mailed code/);
    expect(await code.isDisabled()).toBe(true);
    expect(await page.getByLabel('Mail me when someone opens it').isDisabled()).toBe(true);
    expect(await page.getByText(/starts it with --smtp-url/).count()).toBe(1);
    await page.getByLabel('For whom').fill('Board members');
    await page.getByRole('radio', { name: 'Ask for an email address Each reader' }).check();
    await page
      .getByLabel('Terms to accept (optional)')
      .fill('These papers are confidential. Do not forward them.');
    await page.getByLabel('Only these readers (optional)').fill('acme.com\nchair@board.example');
    await page.getByLabel('Mark each page with the reader’s address').check();
    expect(await axeViolations(page), 'links page').toEqual([]);
    await page.locator('#create-title').scrollIntoViewIfNeeded();
    await page.screenshot({
      path: join(IMAGES, 'dashboard-link-readers-form.png'),
      fullPage: true,
    });
    await page.getByRole('button', { name: 'Create the link' }).click();
    await page.waitForURL(/\/links$/);
    const url = (await page.locator('#new-link').textContent()) ?? '';
    expect(url).toMatch(/\/s\//);

    for (const email of ['ann.lee@acme.com', 'chair@board.example', 'omar.haddad@acme.com']) {
      await identify(url, email);
    }
    await page.getByRole('link', { name: 'Board members' }).click();
    await page.waitForURL(/\/links\/[0-9a-f-]{36}$/);
    expect(await page.locator('h1').textContent()).toBe('Share link for Board members');
    expect(await page.locator('table.readers tbody tr').count()).toBe(3);
    expect(await page.getByRole('link', { name: 'Download CSV' }).getAttribute('href')).toMatch(
      /\/readers\.csv$/,
    );
    expect(await axeViolations(page), 'link page').toEqual([]);
    await page.screenshot({
      path: join(IMAGES, 'dashboard-link-readers-desktop.png'),
      fullPage: true,
    });
    const linkPage = page.url();

    const phone = await d.signedIn('phone-readers@example.com', {
      context: { ...PHONE, bypassCSP: true },
    });
    await phone.goto(linkPage);
    expect(await phone.locator('table.readers tbody tr').count()).toBe(3);
    expect(await axeViolations(phone), 'link page, phone').toEqual([]);
    expect(await phone.evaluate('document.documentElement.scrollWidth <= innerWidth')).toBe(true);
    await phone.screenshot({
      path: join(IMAGES, 'dashboard-link-readers-phone.png'),
      fullPage: true,
    });
    await phone.goto(`${d.url}/dashboard/flipbooks/${flipbookId}/links`);
    expect(await axeViolations(phone), 'links page, phone').toEqual([]);
    expect(await phone.evaluate('document.documentElement.scrollWidth <= innerWidth')).toBe(true);
  }, 120_000);
});
