// Members and Profile in Chromium: an owner invites (the link shown once), the invited person
// joins; roles change but a workspace keeps an owner; a member cannot manage people; removal
// signs the person out at once; pending invitations renewed and revoked; a password change needs
// the current one and signs the other sessions out; sessions are listed and revoked.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  axeViolations,
  type DashboardFixture,
  DESKTOP,
  PASSWORD,
  PHONE,
  startDashboard,
} from '../support/dashboard.ts';

describe('dashboard members and profile (embedded store)', () => {
  let d: DashboardFixture;
  let url = '';

  beforeAll(async () => {
    d = await startDashboard('embedded');
    url = d.fx.daemon.url;
  });
  afterEach(async () => {
    await d.closeContexts();
    expect(d.problems).toEqual([]);
  });
  afterAll(async () => {
    await d?.stop();
  });

  const row = (page: import('playwright-core').Page, text: string) =>
    page.getByRole('row').filter({ hasText: text });

  it('an owner invites someone, who joins with the link; roles change, the last owner stays', async () => {
    const owner = await d.signedIn('olga@example.com', { role: 'owner' });
    await owner.getByRole('link', { name: 'Members', exact: true }).click();
    await owner.getByLabel('Email').fill('Pete@Example.com');
    await owner.getByLabel('Role', { exact: true }).selectOption('member');
    await owner.getByRole('button', { name: 'Invite' }).click();
    const link = await owner.getByLabel('Invitation link', { exact: true }).inputValue();
    expect(link).toMatch(new RegExp(`^${url}/invite/[A-Za-z0-9_-]{43}$`));
    expect(await row(owner, 'pete@example.com').count()).toBe(1); // pending, lower-cased
    // Shown once: the page again has no link.
    await owner.reload();
    expect(await owner.getByLabel('Invitation link', { exact: true }).count()).toBe(0);

    const pete = await d.open();
    await pete.goto(link);
    await pete.getByLabel('Password').fill(PASSWORD);
    await pete.getByRole('button', { name: 'Create my account' }).click();
    await pete.waitForURL(`${url}/dashboard`);

    await owner.reload();
    expect(await owner.getByRole('heading', { name: 'Pending invitations' }).count()).toBe(1);
    expect(await owner.getByText('None.').count()).toBe(1);
    // The only owner cannot demote herself: refused in words.
    await row(owner, 'olga@example.com')
      .getByLabel(/Role of/)
      .selectOption('member');
    await row(owner, 'olga@example.com').getByRole('button', { name: 'Save role' }).click();
    expect(await owner.getByRole('alert').textContent()).toContain('keeps at least one owner');
    // Pete becomes an owner; then Olga may step down.
    await owner.goto(`${url}/dashboard/members`);
    await row(owner, 'pete@example.com')
      .getByLabel(/Role of/)
      .selectOption('owner');
    await row(owner, 'pete@example.com').getByRole('button', { name: 'Save role' }).click();
    await owner.waitForURL(`${url}/dashboard/members`);
    expect(
      await row(owner, 'pete@example.com')
        .getByLabel(/Role of/)
        .inputValue(),
    ).toBe('owner');
  });

  it('a member sees the people but cannot manage them, even by forcing a form', async () => {
    const member = await d.signedIn('quinn@example.com', { role: 'member' });
    await member.goto(`${url}/dashboard/members`);
    expect(await member.getByRole('button', { name: 'Invite' }).count()).toBe(0);
    expect(await member.getByText('Only owners invite people').count()).toBe(1);
    const csrf = await member.locator('input[name="_csrf"]').first().inputValue();
    const forced = await member.request.post(`${url}/dashboard/members/invite`, {
      form: { _csrf: csrf, email: 'x@example.com', role: 'owner' },
      headers: { origin: url },
    });
    expect(forced.status()).toBe(403);
    expect(await forced.text()).toContain('Only owners');
  });

  it('removing someone signs them out at once; another workspace’s member is unknown', async () => {
    const owner = await d.signedIn('rita@example.com');
    const sam = await d.signedIn('sam@example.com', { role: 'member' });
    await owner.goto(`${url}/dashboard/members`);
    await row(owner, 'sam@example.com').getByRole('link', { name: 'Remove' }).click();
    expect(await owner.locator('h1').textContent()).toBe('Remove sam@example.com?');
    await owner.getByRole('button', { name: 'Remove' }).click();
    await owner.waitForURL(`${url}/dashboard/members`);
    expect(await row(owner, 'sam@example.com').count()).toBe(0);
    await sam.reload();
    expect(new URL(sam.url()).pathname).toBe('/login');

    await d.fx.newWorkspace('initech');
    const other = await d.signedIn('tom@example.com', { workspace: 'initech' });
    const tomId = await other.evaluate(async () => {
      const res = await fetch('/dashboard/members');
      return /\/dashboard\/members\/([0-9a-f-]{36})\/remove/.exec(await res.text())?.[1];
    });
    expect(tomId).toMatch(/^[0-9a-f-]{36}$/);
    const probe = await owner.goto(`${url}/dashboard/members/${tomId}/remove`);
    expect(probe?.status()).toBe(404);
  });

  it('renews and revokes a pending invitation: the old link stops working', async () => {
    const owner = await d.signedIn('uma@example.com');
    await owner.goto(`${url}/dashboard/members`);
    await owner.getByLabel('Email').fill('vic@example.com');
    await owner.getByRole('button', { name: 'Invite' }).click();
    const first = await owner.getByLabel('Invitation link', { exact: true }).inputValue();
    await row(owner, 'vic@example.com').getByRole('button', { name: 'New link' }).click();
    const second = await owner.getByLabel('Invitation link', { exact: true }).inputValue();
    expect(second).not.toBe(first);
    const check = await d.open();
    expect((await check.goto(first))?.status()).toBe(404);
    expect((await check.goto(second))?.status()).toBe(200);
    await owner.goto(`${url}/dashboard/members`);
    await row(owner, 'vic@example.com').getByRole('button', { name: 'Revoke' }).click();
    await owner.waitForURL(`${url}/dashboard/members`);
    expect(await row(owner, 'vic@example.com').count()).toBe(0);
    expect((await check.goto(second))?.status()).toBe(404);
  });

  it('changes the password with the current one, signing the other sessions out; sessions are revoked one by one', async () => {
    const laptop = await d.signedIn('wes@example.com');
    const phone = await d.open(PHONE);
    await phone.goto(`${url}/login`);
    await phone.getByLabel('Email').fill('wes@example.com');
    await phone.getByLabel('Password').fill(PASSWORD);
    await phone.getByRole('button', { name: 'Sign in', exact: true }).click();
    await phone.waitForURL(`${url}/dashboard`);

    await laptop.goto(`${url}/dashboard/profile`);
    const sessions = laptop.locator('#sessions');
    expect(await sessions.getByRole('row').count()).toBe(3); // the header and two sessions
    expect(await sessions.getByText('This device').count()).toBe(1);
    await sessions
      .getByRole('row')
      .filter({ hasNotText: 'This device' })
      .getByRole('button', { name: 'Revoke' })
      .click();
    await laptop.waitForURL(`${url}/dashboard/profile`);
    expect(await laptop.locator('#sessions').getByRole('row').count()).toBe(2);
    await phone.reload();
    expect(new URL(phone.url()).pathname).toBe('/login');

    await laptop.getByLabel('Current password').fill('not my password at all');
    await laptop.getByLabel('New password').fill('another fine secret 7');
    await laptop.getByRole('button', { name: 'Change password' }).click();
    expect(await laptop.getByRole('alert').textContent()).toBe('The current password is not right');
    await laptop.getByLabel('Current password').fill(PASSWORD);
    await laptop.getByLabel('New password').fill('another fine secret 7');
    await laptop.getByRole('button', { name: 'Change password' }).click();
    expect(await laptop.getByRole('status').first().textContent()).toContain('password is changed');

    const fresh = await d.open(DESKTOP);
    await fresh.goto(`${url}/login`);
    await fresh.getByLabel('Email').fill('wes@example.com');
    await fresh.getByLabel('Password').fill(PASSWORD);
    await fresh.getByRole('button', { name: 'Sign in', exact: true }).click();
    expect(await fresh.getByRole('alert').textContent()).toContain('not right');
    await fresh.getByLabel('Password').fill('another fine secret 7');
    await fresh.getByRole('button', { name: 'Sign in', exact: true }).click();
    await fresh.waitForURL(`${url}/dashboard`);
  });

  it('is axe-clean on Members and Profile, desktop and phone', async () => {
    for (const context of [DESKTOP, PHONE]) {
      const page = await d.signedIn(`xena${context === PHONE ? 'p' : 'd'}@example.com`, {
        context: { ...context, bypassCSP: true },
      });
      for (const path of ['/dashboard/members', '/dashboard/profile']) {
        await page.goto(`${url}${path}`);
        expect(await axeViolations(page), path).toEqual([]);
        expect(
          await page.evaluate('document.documentElement.scrollWidth <= innerWidth'),
          path,
        ).toBe(true);
      }
    }
  });
});
