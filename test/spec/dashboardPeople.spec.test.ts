// Members and Profile in Chromium: an owner invites (the link shown once), the invited person
// joins; roles change but a workspace keeps an owner; a member cannot manage people; removal
// signs the person out at once; pending invitations renewed and revoked; a password change needs
// the current one and signs the other sessions out; sessions are listed and revoked.
import { describe, expect, it } from 'vitest';
import { flipbook } from '../support/cli.ts';
import { axeViolations, DESKTOP, PASSWORD, PHONE, useDashboard } from '../support/dashboard.ts';

describe('dashboard members and profile (embedded store)', () => {
  const d = useDashboard('embedded');

  const row = (page: import('playwright-core').Page, text: string) =>
    page.getByRole('row').filter({ hasText: text });
  /** A person's id, from the operator's `flipbook user list`. */
  const userId = async (email: string) => {
    const listed = await flipbook(['user', 'list', '--json', ...d.fx.storeArgs]);
    expect(listed.code, listed.stderr).toBe(0);
    const people = JSON.parse(listed.stdout) as { id: string; email: string }[];
    const found = people.find((p) => p.email === email);
    if (!found) throw new Error(`no user ${email}`);
    return found.id;
  };

  it('an owner invites someone, who joins with the link; roles change, the last owner stays', async () => {
    const owner = await d.signedIn('olga@example.com', { role: 'owner' });
    await owner.getByRole('link', { name: 'Members', exact: true }).click();
    await owner.getByLabel('Email').fill('Pete@Example.com');
    await owner.getByLabel('Role', { exact: true }).selectOption('member');
    await owner.getByRole('button', { name: 'Invite' }).click();
    const link = await owner.getByLabel('Invitation link', { exact: true }).inputValue();
    expect(link).toMatch(new RegExp(`^${d.url}/invite/[A-Za-z0-9_-]{43}$`));
    expect(await row(owner, 'pete@example.com').count()).toBe(1); // pending, lower-cased
    // Shown once: the page again has no link.
    await owner.reload();
    expect(await owner.getByLabel('Invitation link', { exact: true }).count()).toBe(0);

    const pete = await d.open();
    await pete.goto(link);
    await pete.getByLabel('Password').fill(PASSWORD);
    await pete.getByRole('button', { name: 'Create my account' }).click();
    await pete.waitForURL(`${d.url}/dashboard`);

    await owner.reload();
    expect(await owner.getByRole('heading', { name: 'Pending invitations' }).count()).toBe(1);
    expect(await owner.getByText('None.').count()).toBe(1);
    // The only owner is offered neither a role change nor Remove; forced, it is refused in words.
    const olga = row(owner, 'olga@example.com');
    expect(await olga.getByLabel(/Role of/).count()).toBe(0);
    expect(await olga.getByRole('link', { name: 'Remove' }).count()).toBe(0);
    expect(await olga.textContent()).toContain('(the only one)');
    const olgaId = await userId('olga@example.com');
    const forced = await owner.request.post(`${d.url}/dashboard/members/${olgaId}/role`, {
      form: {
        _csrf: await owner.locator('input[name="_csrf"]').first().inputValue(),
        role: 'member',
      },
      headers: { origin: d.url },
    });
    expect(forced.status()).toBe(422);
    expect(await forced.text()).toContain('keeps at least one owner');
    // Pete becomes an owner; then Olga may step down.
    await owner.goto(`${d.url}/dashboard/members`);
    await row(owner, 'pete@example.com')
      .getByLabel(/Role of/)
      .selectOption('owner');
    await row(owner, 'pete@example.com').getByRole('button', { name: 'Save role' }).click();
    await owner.waitForURL(`${d.url}/dashboard/members?notice=role-changed`);
    expect(
      await row(owner, 'pete@example.com')
        .getByLabel(/Role of/)
        .inputValue(),
    ).toBe('owner');
  });

  it('a member sees the people but cannot manage them, even by forcing a form', async () => {
    const member = await d.signedIn('quinn@example.com', { role: 'member' });
    await member.goto(`${d.url}/dashboard/members`);
    expect(await member.getByRole('button', { name: 'Invite' }).count()).toBe(0);
    expect(await member.getByText('Only owners invite people').count()).toBe(1);
    const csrf = await member.locator('input[name="_csrf"]').first().inputValue();
    const forced = await member.request.post(`${d.url}/dashboard/members/invite`, {
      form: { _csrf: csrf, email: 'x@example.com', role: 'owner' },
      headers: { origin: d.url },
    });
    expect(forced.status()).toBe(403);
    expect(await forced.text()).toContain('Only owners');
  });

  it('removing someone signs them out at once; another workspace’s member is unknown', async () => {
    const owner = await d.signedIn('rita@example.com');
    const sam = await d.signedIn('sam@example.com', { role: 'member' });
    await owner.goto(`${d.url}/dashboard/members`);
    await row(owner, 'sam@example.com').getByRole('link', { name: 'Remove' }).click();
    expect(await owner.locator('h1').textContent()).toBe('Remove sam@example.com?');
    await owner.getByRole('button', { name: 'Remove' }).click();
    await owner.waitForURL(`${d.url}/dashboard/members?notice=member-removed`);
    expect(await row(owner, 'sam@example.com').count()).toBe(0);
    await sam.reload();
    expect(new URL(sam.url()).pathname).toBe('/login');

    await d.fx.newWorkspace('initech');
    const other = await d.signedIn('tom@example.com', { workspace: 'initech' });
    await other.goto(`${d.url}/dashboard/members`);
    expect(await row(other, 'tom@example.com').count()).toBe(1);
    const tomId = await userId('tom@example.com');
    const probe = await owner.goto(`${d.url}/dashboard/members/${tomId}/remove`);
    expect(probe?.status()).toBe(404);
  });

  it('renews and revokes a pending invitation: the old link stops working', async () => {
    const owner = await d.signedIn('uma@example.com');
    await owner.goto(`${d.url}/dashboard/members`);
    await owner.getByLabel('Email').fill('vic@example.com');
    await owner.getByRole('button', { name: 'Invite' }).click();
    const first = await owner.getByLabel('Invitation link', { exact: true }).inputValue();
    await row(owner, 'vic@example.com').getByRole('button', { name: 'New link' }).click();
    const second = await owner.getByLabel('Invitation link', { exact: true }).inputValue();
    expect(second).not.toBe(first);
    const check = await d.open();
    expect((await check.goto(first))?.status()).toBe(404);
    expect((await check.goto(second))?.status()).toBe(200);
    await owner.goto(`${d.url}/dashboard/members`);
    await row(owner, 'vic@example.com').getByRole('button', { name: 'Revoke' }).click();
    await owner.waitForURL(`${d.url}/dashboard/members?notice=invitation-revoked`);
    expect(await row(owner, 'vic@example.com').count()).toBe(0);
    expect((await check.goto(second))?.status()).toBe(404);
  });

  it('keeps one live link per email; a reset link is named as one, and goes with a removed member', async () => {
    const owner = await d.signedIn('yan@example.com');
    await owner.goto(`${d.url}/dashboard/members`);
    const invite = async (email: string, role = 'member') => {
      await owner.getByLabel('Email').fill(email);
      await owner.getByLabel('Role', { exact: true }).selectOption(role);
      await owner.getByRole('button', { name: 'Invite' }).click();
      return owner.locator('#invite-link').inputValue();
    };
    const first = await invite('zed@example.com');
    const second = await invite('zed@example.com');
    expect(await row(owner, 'zed@example.com').count()).toBe(1); // one pending invitation
    const check = await d.open();
    expect((await check.goto(first))?.status()).toBe(404); // the earlier link ended at once
    await check.goto(second);
    await check.getByLabel('Password').fill(PASSWORD);
    await check.getByRole('button', { name: 'Create my account' }).click();
    await check.waitForURL(`${d.url}/dashboard`);
    expect((await check.goto(first))?.status()).toBe(404);

    // Zed is a member: inviting them as an owner makes a password link, and says so.
    await owner.goto(`${d.url}/dashboard/members`);
    const reset = await invite('zed@example.com', 'owner');
    expect(await owner.getByRole('heading', { name: /Password link/ }).count()).toBe(1);
    expect(await owner.getByText('Their role stays').count()).toBe(1);
    const pending = owner
      .locator('table')
      .nth(1)
      .getByRole('row')
      .filter({ hasText: 'zed@example.com' });
    expect(await pending.textContent()).toContain('New password');
    expect(await pending.textContent()).toContain('Member');
    // Removed, their reset link goes with them.
    await row(owner, 'zed@example.com').getByRole('link', { name: 'Remove' }).click();
    await owner.getByRole('button', { name: 'Remove' }).click();
    await owner.waitForURL(`${d.url}/dashboard/members?notice=member-removed`);
    expect(await row(owner, 'zed@example.com').count()).toBe(0);
    expect((await check.goto(reset))?.status()).toBe(404);
  });

  it('answers a mistyped address or a hand-edited query with a page in words', async () => {
    const page = await d.signedIn('abe@example.com');
    const missing = await page.goto(`${d.url}/dashboard/no-such-page`);
    expect(missing?.status()).toBe(404);
    expect(missing?.headers()['content-type']).toContain('text/html');
    expect(await page.locator('h1').textContent()).toBe('Page not found');
    expect(await page.getByRole('navigation', { name: 'Dashboard' }).count()).toBe(1);
    const anonymous = await d.open();
    expect((await anonymous.goto(`${d.url}/dashboard/%5Cevil`))?.status()).toBe(404);
    expect(await anonymous.locator('h1').textContent()).toBe('Page not found');
    // A list query the API refuses: the grid with the reason, not a bare error page.
    const bad = await page.goto(`${d.url}/dashboard?sort=colour`);
    expect(bad?.status()).toBe(400);
    expect(await page.getByRole('alert').textContent()).toContain('Invalid sort');
    expect(await page.getByRole('search').count()).toBe(1);
    // A notice is a fixed text by name; an inherited name shows nothing.
    for (const name of ['constructor', '__proto__', 'toString']) {
      await page.goto(`${d.url}/dashboard/profile?notice=${name}`);
      expect(await page.locator('.alert').count()).toBe(0);
      await page.goto(`${d.url}/dashboard?notice=${name}`);
      expect(await page.locator('.alert').count()).toBe(0);
    }
  });

  it('throttles wrong current passwords on the profile page like wrong sign-ins', async () => {
    const page = await d.signedIn('bea@example.com');
    await page.goto(`${d.url}/dashboard/profile`);
    for (let i = 0; i < 5; i++) {
      await page.getByLabel('Current password').fill(`wrong guess number ${i}`);
      await page.getByLabel('New password').fill('another fine secret 7');
      await page.getByRole('button', { name: 'Change password' }).click();
      expect(await page.getByRole('alert').textContent()).toBe('The current password is not right');
    }
    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByLabel('New password').fill('another fine secret 7');
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Change password' }).click(),
    ]);
    expect(answer.status()).toBe(429);
    expect(await page.getByRole('alert').textContent()).toContain('Too many wrong attempts');
  });

  it('changes the password with the current one, signing the other sessions out; sessions are revoked one by one', async () => {
    const laptop = await d.signedIn('wes@example.com');
    const phone = await d.open(PHONE);
    await phone.goto(`${d.url}/login`);
    await phone.getByLabel('Email').fill('wes@example.com');
    await phone.getByLabel('Password').fill(PASSWORD);
    await phone.getByRole('button', { name: 'Sign in', exact: true }).click();
    await phone.waitForURL(`${d.url}/dashboard`);

    await laptop.goto(`${d.url}/dashboard/profile`);
    const sessions = laptop.locator('#sessions');
    expect(await sessions.getByRole('row').count()).toBe(3); // the header and two sessions
    expect(await sessions.getByText('This device').count()).toBe(1);
    await sessions
      .getByRole('row')
      .filter({ hasNotText: 'This device' })
      .getByRole('button', { name: 'Revoke' })
      .click();
    await laptop.waitForURL(`${d.url}/dashboard/profile?notice=session-revoked`);
    expect(await laptop.getByRole('status').first().textContent()).toBe(
      'The session is signed out.',
    );
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
    // post/redirect/get: a reload shows the page, it does not send the form again
    await laptop.waitForURL(`${d.url}/dashboard/profile?notice=password-changed`);
    expect(await laptop.getByRole('status').first().textContent()).toContain('password is changed');

    const fresh = await d.open(DESKTOP);
    await fresh.goto(`${d.url}/login`);
    await fresh.getByLabel('Email').fill('wes@example.com');
    await fresh.getByLabel('Password').fill(PASSWORD);
    await fresh.getByRole('button', { name: 'Sign in', exact: true }).click();
    expect(await fresh.getByRole('alert').textContent()).toContain('not right');
    await fresh.getByLabel('Password').fill('another fine secret 7');
    await fresh.getByRole('button', { name: 'Sign in', exact: true }).click();
    await fresh.waitForURL(`${d.url}/dashboard`);

    // Two more devices, then every other session signed out at once; this one stays.
    const tablet = await d.open(PHONE);
    await tablet.goto(`${d.url}/login`);
    await tablet.getByLabel('Email').fill('wes@example.com');
    await tablet.getByLabel('Password').fill('another fine secret 7');
    await tablet.getByRole('button', { name: 'Sign in', exact: true }).click();
    await tablet.waitForURL(`${d.url}/dashboard`);
    await laptop.goto(`${d.url}/dashboard/profile`);
    expect(await laptop.locator('#sessions').getByRole('row').count()).toBe(4);
    await laptop.getByRole('button', { name: 'Sign out every other session' }).click();
    await laptop.waitForURL(`${d.url}/dashboard/profile?notice=sessions-revoked`);
    expect(await laptop.locator('#sessions').getByRole('row').count()).toBe(2);
    for (const other of [fresh, tablet]) {
      await other.reload();
      expect(new URL(other.url()).pathname).toBe('/login');
    }
  });

  it('is axe-clean on Members and Profile, desktop and phone', async () => {
    for (const context of [DESKTOP, PHONE]) {
      const page = await d.signedIn(`xena${context === PHONE ? 'p' : 'd'}@example.com`, {
        context: { ...context, bypassCSP: true },
      });
      for (const path of ['/dashboard/members', '/dashboard/profile']) {
        await page.goto(`${d.url}${path}`);
        expect(await axeViolations(page), path).toEqual([]);
        expect(
          await page.evaluate('document.documentElement.scrollWidth <= innerWidth'),
          path,
        ).toBe(true);
      }
    }
  });
});
