// Signing in to the dashboard in Chromium: the sign-in form typed in, the browser sent back to
// the page it asked for, the cookie it keeps (flags), the sign-out button; axe and the phone
// layout. The forms' answers (invitations, refusals, the throttle, CSRF, expiry, isolation, the
// audit trail) are test/spec/dashboardAuth.spec.test.ts's. One store: the browser's behaviour
// does not depend on which PostgreSQL holds the events.
import { describe, expect, it } from 'vitest';
import { axeViolations, PASSWORD, PHONE, useDashboard } from '../support/dashboard.ts';

describe('dashboard sign-in in a browser', () => {
  const d = useDashboard('embedded');

  it('signs in with email and password, comes back to the page asked for, and signs out', async () => {
    await (await d.signedIn('bob@example.com', { role: 'member' })).close();
    const page = await d.open();
    await page.goto(`${d.url}/dashboard?status=archived`);
    await page.waitForURL(/\/login\?next=/);
    await page.getByLabel('Email').fill('BOB@Example.com '); // case and spaces do not matter
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${d.url}/dashboard?status=archived`);
    expect(await page.locator('#status').inputValue()).toBe('archived');
    const [cookie] = await page.context().cookies();
    expect(cookie).toMatchObject({ name: 'flipbook_session', httpOnly: true, sameSite: 'Lax' });
    expect(cookie?.secure).toBe(false); // http here; https gives __Host- and Secure (unit test)

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${d.url}/login`);
    expect(await page.context().cookies()).toEqual([]);
    await page.goto(`${d.url}/dashboard`);
    await page.waitForURL(/\/login\?next=%2Fdashboard$/);
  });

  it('is axe-clean and fits a phone', async () => {
    const link = await d.invite('ivy@example.com', 'member');
    for (const options of [{ viewport: { width: 1280, height: 860 } }, PHONE]) {
      const page = await d.open({ ...options, bypassCSP: true });
      await page.goto(`${d.url}/login`);
      expect(await axeViolations(page), 'login').toEqual([]);
      await page.goto(link);
      expect(await axeViolations(page), 'invitation').toEqual([]);
      expect(await page.evaluate('document.documentElement.scrollWidth <= innerWidth')).toBe(true);
    }
    const page = await d.signedIn('jo@example.com', { context: { ...PHONE, bypassCSP: true } });
    expect(await axeViolations(page), 'flipbooks').toEqual([]);
    expect(await page.evaluate('document.documentElement.scrollWidth <= innerWidth')).toBe(true);
  });
});
