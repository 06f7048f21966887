// Members and Profile, the forms' answers without a browser (the app in process,
// test/support/dashboardSpec.ts): an owner invites (the link shown once), the invited person
// joins; roles change but a workspace keeps an owner; a member cannot manage people; removal
// signs the person out at once; pending invitations renewed and revoked, one live link per
// email, reset links; pages in words for a mistyped address; a password change needs the
// current one (wrong ones throttled) and signs the other sessions out; sessions are listed and
// revoked. Axe on these pages is test/e2e/dashboardPeople.e2e.test.ts's.
import { describe, expect, it } from 'vitest';
import { useApp } from '../support/appSpec.ts';
import { PASSWORD } from '../support/dashboard.ts';
import {
  alertsOf,
  buttonsOf,
  dashboardOf,
  formActionsOf,
  h1Of,
  inputValueOf,
  linksOf,
  rowsOf,
  statusesOf,
  textOf,
} from '../support/dashboardSpec.ts';

const PHONE_AGENT =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1';
const NEW_PASSWORD = 'another fine secret 7';

describe('dashboard members and profile', () => {
  const app = useApp();
  const d = () => dashboardOf(app);

  const row = (html: string, text: string) => {
    const [found] = rowsOf(html, text);
    if (!found) throw new Error(`no row with ${text}`);
    return found;
  };
  /** The one form action of a row that ends with `ending`. */
  const action = (rowHtml: string, ending: string) => {
    const found = formActionsOf(rowHtml).find((a) => a.endsWith(ending));
    if (!found) throw new Error(`no ${ending} form in ${textOf(rowHtml)}`);
    return found;
  };
  /** The Remove link's address in a member's row. */
  const removeLink = (rowHtml: string) =>
    /<a class="button danger-link" href="([^"]*)">Remove<\/a>/.exec(rowHtml)?.[1] ?? '';
  /** The rows of the profile's sessions table, the header's included. */
  const sessionRows = (html: string) => {
    const table = /<table id="sessions"[\s\S]*?<\/table>/.exec(html)?.[0] ?? '';
    return [...table.matchAll(/<tr\b[\s\S]*?<\/tr>/g)].map((m) => m[0]);
  };

  it('an owner invites someone, who joins with the link; roles change, the last owner stays', async () => {
    const olga = await d().signedIn('olga@example.com', { role: 'owner' });
    await olga.get('/dashboard/members');
    const invited = await olga.post('/dashboard/members/invite', {
      email: 'Pete@Example.com',
      role: 'member',
    });
    const link = inputValueOf(invited.text, 'invite-link') ?? '';
    expect(link).toMatch(new RegExp(`^${app.base}/invite/[A-Za-z0-9_-]{43}$`));
    expect(rowsOf(invited.text, 'pete@example.com')).toHaveLength(1); // pending, lower-cased
    // Shown once: the page again has no link.
    expect(inputValueOf((await olga.get('/dashboard/members')).text, 'invite-link')).toBe(
      undefined,
    );

    await d().join(link);

    const page = (await olga.get('/dashboard/members')).text;
    expect(page).toContain('<h2>Pending invitations</h2>');
    expect(page).toContain('<p class="hint">None.</p>');
    // The only owner is offered neither a role change nor Remove; forced, it is refused in words.
    const olgaRow = row(page, 'olga@example.com');
    expect(olgaRow).not.toContain('Role of');
    expect(linksOf(olgaRow)).not.toContain('Remove');
    expect(textOf(olgaRow)).toContain('(the only one)');
    const olgaId = await d().userId('olga@example.com');
    const forced = await olga.post(`/dashboard/members/${olgaId}/role`, { role: 'member' });
    expect(forced.status).toBe(422);
    expect(forced.text).toContain('keeps at least one owner');
    // Pete becomes an owner; then Olga may step down.
    await olga.get('/dashboard/members');
    const peteRow = row((await olga.get('/dashboard/members')).text, 'pete@example.com');
    const changed = await olga.post(action(peteRow, '/role'), { role: 'owner' });
    expect(changed.url).toBe(`${app.base}/dashboard/members?notice=role-changed`);
    expect(row(changed.text, 'pete@example.com')).toContain('<option value="owner" selected>');
  });

  it('a member sees the people but cannot manage them, even by forcing a form', async () => {
    const quinn = await d().signedIn('quinn@example.com', { role: 'member' });
    const page = (await quinn.get('/dashboard/members')).text;
    expect(buttonsOf(page)).not.toContain('Invite');
    expect(textOf(page)).toContain('Only owners invite people');
    const forced = await quinn.post('/dashboard/members/invite', {
      email: 'x@example.com',
      role: 'owner',
    });
    expect(forced.status).toBe(403);
    expect(forced.text).toContain('Only owners');
  });

  it('removing someone signs them out at once; another workspace’s member is unknown', async () => {
    const rita = await d().signedIn('rita@example.com');
    const sam = await d().signedIn('sam@example.com', { role: 'member' });
    const remove = removeLink(row((await rita.get('/dashboard/members')).text, 'sam@example.com'));
    expect(h1Of((await rita.get(remove)).text)).toBe('Remove sam@example.com?');
    const removed = await rita.post(remove, {});
    expect(removed.url).toBe(`${app.base}/dashboard/members?notice=member-removed`);
    expect(rowsOf(removed.text, 'sam@example.com')).toHaveLength(0);
    expect(new URL((await sam.get('/dashboard')).url).pathname).toBe('/login');

    await app.newWorkspace('initech');
    const tom = await d().signedIn('tom@example.com', { workspace: 'initech' });
    expect(rowsOf((await tom.get('/dashboard/members')).text, 'tom@example.com')).toHaveLength(1);
    const tomId = await d().userId('tom@example.com');
    expect((await rita.get(`/dashboard/members/${tomId}/remove`)).status).toBe(404);
  });

  it('renews and revokes a pending invitation: the old link stops working', async () => {
    const uma = await d().signedIn('uma@example.com');
    await uma.get('/dashboard/members');
    const invited = await uma.post('/dashboard/members/invite', {
      email: 'vic@example.com',
      role: 'member',
    });
    const first = inputValueOf(invited.text, 'invite-link') ?? '';
    const renewed = await uma.post(action(row(invited.text, 'vic@example.com'), '/renew'), {});
    const second = inputValueOf(renewed.text, 'invite-link') ?? '';
    expect(second).toMatch(/\/invite\//);
    expect(second).not.toBe(first);
    const check = d().visitor();
    expect((await check.get(first)).status).toBe(404);
    expect((await check.get(second)).status).toBe(200);
    const page = (await uma.get('/dashboard/members')).text;
    const revoked = await uma.post(action(row(page, 'vic@example.com'), '/revoke'), {});
    expect(revoked.url).toBe(`${app.base}/dashboard/members?notice=invitation-revoked`);
    expect(rowsOf(revoked.text, 'vic@example.com')).toHaveLength(0);
    expect((await check.get(second)).status).toBe(404);
  });

  it('keeps one live link per email; a reset link is named as one, and goes with a removed member', async () => {
    const yan = await d().signedIn('yan@example.com');
    await yan.get('/dashboard/members');
    const invite = async (email: string, role = 'member') => {
      const page = await yan.post('/dashboard/members/invite', { email, role });
      return { link: inputValueOf(page.text, 'invite-link') ?? '', page: page.text };
    };
    const first = (await invite('zed@example.com')).link;
    const second = await invite('zed@example.com');
    expect(rowsOf(second.page, 'zed@example.com')).toHaveLength(1); // one pending invitation
    const check = d().visitor();
    expect((await check.get(first)).status).toBe(404); // the earlier link ended at once
    await d().join(second.link, check);
    expect((await check.get(first)).status).toBe(404);

    // Zed is a member: inviting them as an owner makes a password link, and says so.
    await yan.get('/dashboard/members');
    const reset = await invite('zed@example.com', 'owner');
    expect(reset.page).toMatch(/<h2 id="link-title">Password link/);
    expect(textOf(reset.page)).toContain('Their role stays');
    const pending = rowsOf(reset.page, 'zed@example.com').filter((r) =>
      textOf(r).includes('New password'),
    );
    expect(pending).toHaveLength(1);
    expect(textOf(pending[0] ?? '')).toContain('Member');
    // Removed, their reset link goes with them.
    const remove = removeLink(row(reset.page, 'zed@example.com'));
    await yan.get(remove);
    const removed = await yan.post(remove, {});
    expect(removed.url).toBe(`${app.base}/dashboard/members?notice=member-removed`);
    expect(rowsOf(removed.text, 'zed@example.com')).toHaveLength(0);
    expect((await check.get(reset.link)).status).toBe(404);
  });

  it('answers a mistyped address or a hand-edited query with a page in words', async () => {
    const abe = await d().signedIn('abe@example.com');
    const missing = await abe.get('/dashboard/no-such-page');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toContain('text/html');
    expect(h1Of(missing.text)).toBe('Page not found');
    expect(missing.text).toContain('<nav aria-label="Dashboard">');
    const anonymous = await d().visitor().get('/dashboard/%5Cevil');
    expect(anonymous.status).toBe(404);
    expect(h1Of(anonymous.text)).toBe('Page not found');
    // A list query the API refuses: the grid with the reason, not a bare error page.
    const bad = await abe.get('/dashboard?sort=colour');
    expect(bad.status).toBe(400);
    expect(alertsOf(bad.text)[0]).toContain('Invalid sort');
    expect(bad.text).toMatch(/<[^>]+role="search"/);
    // A notice is a fixed text by name; an inherited name shows nothing.
    for (const name of ['constructor', '__proto__', 'toString']) {
      for (const path of ['/dashboard/profile', '/dashboard']) {
        const page = await abe.get(`${path}?notice=${name}`);
        expect(page.status, path).toBe(200);
        expect(page.text, `${path} ${name}`).not.toContain('class="alert');
      }
    }
  });

  it('throttles wrong current passwords on the profile page like wrong sign-ins', async () => {
    const bea = await d().signedIn('bea@example.com');
    await bea.get('/dashboard/profile');
    for (let i = 0; i < 5; i++) {
      const wrong = await bea.post('/dashboard/profile/password', {
        current: `wrong guess number ${i}`,
        next: NEW_PASSWORD,
      });
      expect(alertsOf(wrong.text)).toEqual(['The current password is not right']);
    }
    const answer = await bea.post('/dashboard/profile/password', {
      current: PASSWORD,
      next: NEW_PASSWORD,
    });
    expect(answer.status).toBe(429);
    expect(alertsOf(answer.text)[0]).toContain('Too many wrong attempts');
  });

  it('changes the password with the current one, signing the other sessions out; sessions are revoked one by one', async () => {
    const laptop = await d().signedIn('wes@example.com');
    const phone = await d().signInAgain('wes@example.com', PASSWORD, PHONE_AGENT);

    const profile = (await laptop.get('/dashboard/profile')).text;
    const rows = sessionRows(profile);
    expect(rows).toHaveLength(3); // the header and two sessions
    expect(rows.filter((r) => textOf(r).includes('This device'))).toHaveLength(1);
    const other = rows.find((r) => r.includes('<td') && !textOf(r).includes('This device'));
    const revoked = await laptop.post(action(other ?? '', '/revoke'), {});
    expect(revoked.url).toBe(`${app.base}/dashboard/profile?notice=session-revoked`);
    expect(statusesOf(revoked.text)[0]).toBe('The session is signed out.');
    expect(sessionRows(revoked.text)).toHaveLength(2);
    expect(new URL((await phone.get('/dashboard')).url).pathname).toBe('/login');

    const wrong = await laptop.post('/dashboard/profile/password', {
      current: 'not my password at all',
      next: NEW_PASSWORD,
    });
    expect(alertsOf(wrong.text)).toEqual(['The current password is not right']);
    // post/redirect/get: a reload shows the page, it does not send the form again
    const changed = await laptop.post('/dashboard/profile/password', {
      current: PASSWORD,
      next: NEW_PASSWORD,
    });
    expect(changed.url).toBe(`${app.base}/dashboard/profile?notice=password-changed`);
    expect(statusesOf(changed.text)[0]).toContain('password is changed');

    const old = await d().visitor().signIn('wes@example.com', PASSWORD);
    expect(old.status).toBe(401);
    expect(alertsOf(old.text)[0]).toContain('not right');
    const fresh = await d().signInAgain('wes@example.com', NEW_PASSWORD);

    // Two more devices, then every other session signed out at once; this one stays.
    const tablet = await d().signInAgain('wes@example.com', NEW_PASSWORD, PHONE_AGENT);
    expect(sessionRows((await laptop.get('/dashboard/profile')).text)).toHaveLength(4);
    const all = await laptop.post('/dashboard/profile/sessions/revoke-others', {});
    expect(all.url).toBe(`${app.base}/dashboard/profile?notice=sessions-revoked`);
    expect(sessionRows(all.text)).toHaveLength(2);
    for (const gone of [fresh, tablet]) {
      expect(new URL((await gone.get('/dashboard')).url).pathname).toBe('/login');
    }
  });
});
