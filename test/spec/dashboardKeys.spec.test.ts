// The API keys pages' answers without a browser (the app in process,
// test/support/dashboardSpec.ts): create (the key shown once on a no-store answer, working
// against the API, gone after, "last used" set after a call), refusals in words, roll with a
// grace, revoke (401 at once), who may roll and revoke, the Team-plan rule on a free workspace,
// isolation between workspaces, CSRF, the audit trail's actor. What Chromium does (the keyboard,
// the copy button, the lines run in a shell, axe, the screenshots) is
// test/e2e/dashboardKeys.e2e.test.ts's. "Last used" is written at every use here (the harness's
// keyUsageIntervalMs is 0).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { listApiKeys } from '../../src/app/apiKeys.ts';
import { useApp } from '../support/appSpec.ts';
import {
  alertsOf,
  buttonsOf,
  cellOf,
  dashboardOf,
  h1Of,
  rowsOf,
  statusesOf,
  textOf,
  type Visitor,
} from '../support/dashboardSpec.ts';
import { appFetch } from '../support/inProcess.ts';

const TEAM_ONLY =
  'API keys are available on the Team plan only; workspace "hobby" is on the free plan';

const fingerprint = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 8);

describe('dashboard API keys', () => {
  const app = useApp();
  const d = () => dashboardOf(app);

  /** The status of one API call with the key. */
  const call = async (key: string) =>
    (await appFetch(`${app.api}/flipbooks`, { headers: { authorization: `Bearer ${key}` } }))
      .status;
  /** The table row of the key with this fingerprint, in a page. */
  const row = (html: string, fp: string) => {
    const [found] = rowsOf(html, fp);
    if (!found) throw new Error(`no row for key ${fp}`);
    return found;
  };
  const cell = (html: string, fp: string, label: string) => cellOf(row(html, fp), label);
  /** The key a page shows once. */
  const shownKey = (html: string) =>
    textOf(/<code id="new-key"[^>]*>([^<]*)<\/code>/.exec(html)?.[1] ?? '');
  /** A key's id, as the admin CLI's list has it. */
  const keyIdOf = async (workspace: string, fp: string) => {
    const found = (await listApiKeys(app.store, workspace, app.clock.now())).find(
      (k) => k.fingerprint === fp,
    );
    if (!found) throw new Error(`no key ${fp} in ${workspace}`);
    return found.id;
  };

  /** "Create key" posted; the page that shows the key, and the key. */
  const createKey = async (visitor: Visitor, name: string, expiry = '30') => {
    await visitor.get('/dashboard/keys');
    const page = await visitor.post('/dashboard/keys', { name, expiry });
    expect(page.url).toBe(`${app.base}/dashboard/keys/new`);
    const key = shownKey(page.text);
    expect(key).toMatch(/^svc_[0-9a-f]{48}$/);
    return { key, page };
  };

  it('creates a key, shows it once on a no-store page, and it works against the API', async () => {
    const kim = await d().signedIn('kim@example.com');
    const list = await kim.get('/dashboard/keys');
    expect(h1Of(list.text)).toBe('API keys');
    // The app's own key, made by the use case as the operator "test", is listed with them.
    expect(cell(list.text, fingerprint(app.key), 'Created by')).toBe('operator test');

    // POST, redirect, GET: the key is shown by the page after the redirect, once.
    const posted = await kim.post(
      '/dashboard/keys',
      { name: 'laptop', expiry: '30' },
      { follow: false },
    );
    expect([posted.status, posted.location]).toEqual([303, '/dashboard/keys/new']); // in no URL
    const shown = await kim.get('/dashboard/keys/new');
    expect(shown.status).toBe(200);
    expect(shown.headers.get('cache-control')).toBe('no-store');
    const key = shownKey(shown.text);
    expect(key).toMatch(/^svc_[0-9a-f]{48}$/);
    expect(statusesOf(shown.text)[0]).toContain('“laptop” is ready');
    const line = (id: string) =>
      textOf(new RegExp(`<code id="${id}"[^>]*>([^<]*)</code>`).exec(shown.text)?.[1] ?? '');
    expect(line('login-line')).toBe(`flipbook login --url ${app.base} --api-key ${key}`);
    expect(line('install-line')).toBe(`npm install -g ${app.base}/downloads/flipbook-cli.tgz`);

    // The list again shows the key's row, not the key, and there is no second key.
    const again = await kim.get('/dashboard/keys');
    expect(again.headers.get('cache-control')).toBe('no-store');
    expect(again.text).not.toContain(key);
    expect(rowsOf(again.text, 'laptop')).toHaveLength(1);
    const fp = fingerprint(key);
    expect(cell(again.text, fp, 'Name')).toBe('laptop');
    expect(cell(again.text, fp, 'Created by')).toBe('kim@example.com');
    expect(cell(again.text, fp, 'Last used')).toBe('Never');
    expect(cell(again.text, fp, 'Status')).toContain('Active');
    const expires = Date.parse(
      /<time datetime="([^"]*)"/.exec(
        /<td data-label="Expires">[\s\S]*?<\/td>/.exec(row(again.text, fp))?.[0] ?? '',
      )?.[1] ?? '',
    );
    expect(Math.abs(expires - app.clock.now().getTime() - 30 * 86_400_000)).toBeLessThan(120_000);
    // The page that showed it, asked for again: the list instead.
    const shownAgain = await kim.get('/dashboard/keys/new');
    expect(shownAgain.url).toBe(`${app.base}/dashboard/keys`);
    expect(shownAgain.text).not.toContain(key);

    expect(await call(key)).toBe(200);
    await expect
      .poll(async () => cell((await kim.get('/dashboard/keys')).text, fp, 'Last used'))
      .not.toBe('Never');

    // The event's actor is the person, as the audit trail shows it.
    const issued = (await d().auditLog()).filter(
      (e) => e.type === 'ApiKeyIssued' && e.data.label === 'laptop',
    );
    expect(issued).toHaveLength(1);
    expect(issued[0]?.metadata.actor).toMatchObject({ type: 'user', email: 'kim@example.com' });
  });

  it('creates a key that never expires; a refused form keeps what was typed and says why', async () => {
    const kit = await d().signedIn('kit@example.com');
    await createKey(kit, 'archive sync', 'none');
    const list = await kit.get('/dashboard/keys');
    expect(cellOf(rowsOf(list.text, 'archive sync')[0] ?? '', 'Expires')).toBe('Never');

    const refused = await kit.post('/dashboard/keys', {
      name: 'no date',
      expiry: 'date',
      expires_on: '',
    });
    expect(alertsOf(refused.text)).toEqual(['Choose the day the key expires']);
    expect(refused.text).toContain('value="no date"');
    expect(refused.text).toContain('name="expiry" value="date" checked');
  });

  // What a key's expiry may not be, refused with the form's answer and its words.
  type Refusal = {
    what: string;
    email: string;
    form: Record<string, string>;
    status: number;
    says: string;
  };
  it.each<Refusal>([
    // the decider's to refuse (the date field's min stops it in a browser)
    {
      what: 'a day in the past',
      email: 'kat@example.com',
      form: { name: 'past', expiry: 'date', expires_on: '2001-01-01' },
      status: 422,
      says: 'already be expired',
    },
    // refused rather than moved to another day
    {
      what: 'a day that does not exist',
      email: 'pim@example.com',
      form: { name: 'odd', expiry: 'date', expires_on: '2099-02-30' },
      status: 400,
      says: 'a day that does not exist: 2099-02-30',
    },
    // whatever its name (a Map, not an object)
    {
      what: 'a value the form never offers',
      email: 'pia@example.com',
      form: { name: 'odd', expiry: 'constructor' },
      status: 400,
      says: 'Choose when the key expires',
    },
  ])('refuses $what ($status)', async ({ email, form, status, says }) => {
    const person = await d().signedIn(email);
    const answer = await person.post('/dashboard/keys', form);
    expect(answer.status).toBe(status);
    expect(answer.text).toContain(says);
  });

  it('rolls a key: the old one works for the grace chosen, or is refused at once', async () => {
    const lee = await d().signedIn('lee@example.com');
    const first = (await createKey(lee, 'deploy')).key;
    const firstId = await keyIdOf('acme', fingerprint(first));
    expect(h1Of((await lee.get(`/dashboard/keys/${firstId}/roll`)).text)).toBe('Roll “deploy”');
    const rolled = await lee.post(`/dashboard/keys/${firstId}/roll`, { grace: '1h' });
    const second = shownKey(rolled.text);
    expect(second).toMatch(/^svc_[0-9a-f]{48}$/);
    expect(statusesOf(rolled.text)[0]).toMatch(
      new RegExp(`old one \\(${fingerprint(first)}\\) works until`),
    );
    expect([await call(first), await call(second)]).toEqual([200, 200]);

    const list = (await lee.get('/dashboard/keys')).text;
    expect(cell(list, fingerprint(first), 'Status')).toMatch(/Rolled\s+works until/);
    expect(cell(list, fingerprint(second), 'Name')).toBe('deploy');
    expect(cell(list, fingerprint(second), 'Created by')).toBe('lee@example.com');
    // A rolled key cannot be rolled again, but it can be revoked before its grace ends.
    expect(buttonsOf(row(list, fingerprint(first)))).toEqual(['Revoke']);

    const secondId = await keyIdOf('acme', fingerprint(second));
    const again = await lee.post(`/dashboard/keys/${secondId}/roll`, { grace: 'now' });
    const third = shownKey(again.text);
    expect(statusesOf(again.text)[0]).toContain('refused from now on');
    expect([await call(second), await call(third), await call(first)]).toEqual([401, 200, 200]);
    // Rolled without a grace: past it at once, and shown as rolled (it was replaced), not expired.
    const after = (await lee.get('/dashboard/keys')).text;
    expect(cell(after, fingerprint(second), 'Status')).toMatch(/Rolled\s+stopped/);
  });

  it('a member rolls and revokes only the keys they created; owners any key', async () => {
    const noor = await d().signedIn('noor@example.com');
    const ownersKey = (await createKey(noor, 'owner ci')).key;
    const ozzy = await d().signedIn('ozzy@example.com', { role: 'member' });
    const membersKey = (await createKey(ozzy, 'oz laptop')).key;
    const list = (await ozzy.get('/dashboard/keys')).text;
    expect(buttonsOf(row(list, fingerprint(ownersKey)))).toEqual([]);
    expect(buttonsOf(row(list, fingerprint(membersKey)))).toEqual(['Roll', 'Revoke']);
    expect(textOf(list)).toContain('You can roll and revoke the keys you created');
    // Forced by hand: refused in words, and the key still works.
    const id = await keyIdOf('acme', fingerprint(ownersKey));
    for (const action of ['roll', 'revoke']) {
      const forced = await ozzy.post(
        `/dashboard/keys/${id}/${action}`,
        { grace: '1h' },
        { follow: false },
      );
      expect(forced.status).toBe(403);
      expect(forced.text).toContain('Only owners can roll or revoke a key someone else created');
      expect((await ozzy.get(`/dashboard/keys/${id}/${action}`)).status).toBe(403);
    }
    expect(await call(ownersKey)).toBe(200);
    // The owner manages the member's key too.
    const owners = (await noor.get('/dashboard/keys')).text;
    expect(buttonsOf(row(owners, fingerprint(membersKey)))).toEqual(['Roll', 'Revoke']);
  });

  it('revokes a key after a confirmation: the API refuses it at once', async () => {
    const max = await d().signedIn('max@example.com');
    const { key } = await createKey(max, 'old laptop');
    expect(await call(key)).toBe(200);
    const id = await keyIdOf('acme', fingerprint(key));
    const confirm = await max.get(`/dashboard/keys/${id}/revoke`);
    expect(h1Of(confirm.text)).toBe('Revoke “old laptop”?');
    expect(await call(key)).toBe(200); // nothing happens before the confirmation
    const done = await max.post(`/dashboard/keys/${id}/revoke`, {});
    expect(done.url).toMatch(/\/dashboard\/keys\?revoked=/);
    expect(statusesOf(done.text)[0]).toContain(`“old laptop” (${fingerprint(key)}) is revoked`);
    expect(await call(key)).toBe(401);
    expect(cell(done.text, fingerprint(key), 'Status')).toBe('Revoked');
    expect(buttonsOf(row(done.text, fingerprint(key)))).toEqual([]);

    const revoked = (await d().auditLog()).filter((e) => e.type === 'ApiKeyRevoked');
    expect(revoked.at(-1)?.metadata.actor).toMatchObject({
      type: 'user',
      email: 'max@example.com',
    });
  });

  it('on the free plan: no form, a forced request refused with the reason, revoke still works', async () => {
    const hobby = await app.newWorkspace('hobby', 'free');
    const nia = await d().signedIn('nia@example.com', { workspace: 'hobby' });
    const page = (await nia.get('/dashboard/keys')).text;
    expect(page).toContain('>Creating keys needs the Team plan</h2>');
    expect(page).not.toContain('id="key-name"');
    expect(buttonsOf(page)).not.toContain('Create key');
    const fp = fingerprint(hobby.key);
    expect(buttonsOf(row(page, fp))).not.toContain('Roll');

    // A form forced into the page: the server refuses it with the decider's reason, in words.
    const forced = await nia.post('/dashboard/keys', { name: 'forced', expiry: '30' });
    expect(forced.status).toBe(422);
    expect(alertsOf(forced.text)).toEqual([TEAM_ONLY]);
    expect(forced.text).not.toContain('id="new-key"');
    const id = await keyIdOf('hobby', fp);
    const rolled = await nia.post(`/dashboard/keys/${id}/roll`, { grace: 'now' });
    expect(rolled.status).toBe(422);
    expect(rolled.text).toContain(TEAM_ONLY.replaceAll('"', '&quot;'));
    expect(await call(hobby.key)).toBe(200);

    expect((await nia.get(`/dashboard/keys/${id}/revoke`)).status).toBe(200);
    const done = await nia.post(`/dashboard/keys/${id}/revoke`, {});
    expect(done.url).toMatch(/\/dashboard\/keys\?revoked=/);
    expect(cell(done.text, fp, 'Status')).toBe('Revoked');
    expect(await call(hobby.key)).toBe(401);
  });

  it("another workspace's key is a 404 for every action", async () => {
    const other = await app.newWorkspace('other');
    const otherId = await keyIdOf('other', fingerprint(other.key));
    const oli = await d().signedIn('oli@example.com');
    expect((await oli.get('/dashboard/keys')).text).not.toContain(fingerprint(other.key));
    for (const path of [`/dashboard/keys/${otherId}/revoke`, `/dashboard/keys/${otherId}/roll`]) {
      expect((await oli.get(path)).status, path).toBe(404);
    }
    for (const [path, form] of [
      [`/dashboard/keys/${otherId}/revoke`, {}],
      [`/dashboard/keys/${otherId}/roll`, { grace: 'now' }],
      ['/dashboard/keys/not-a-key/revoke', {}],
    ] as const) {
      expect((await oli.post(path, form)).status, path).toBe(404);
    }
    expect(await call(other.key)).toBe(200);
  });

  it('refuses a form without its CSRF token, or from another site, with 403', async () => {
    const pat = await d().signedIn('pat@example.com');
    const { key } = await createKey(pat, 'staging server');
    const csrf = pat.csrf();
    const id = await keyIdOf('acme', fingerprint(key));
    const status = async (path: string, form: Record<string, string>, origin?: string) =>
      (await pat.post(path, form, { follow: false, ...(origin ? { origin } : {}) })).status;
    const sneaky = { name: 'sneaky', expiry: '30' };
    expect(await status('/dashboard/keys', { ...sneaky, _csrf: '' })).toBe(403);
    expect(await status('/dashboard/keys', { ...sneaky, _csrf: 'x'.repeat(csrf.length) })).toBe(
      403,
    );
    expect(await status('/dashboard/keys', sneaky, 'https://evil.example')).toBe(403);
    expect(await status(`/dashboard/keys/${id}/revoke`, { _csrf: '' })).toBe(403);
    expect(await status(`/dashboard/keys/${id}/roll`, { _csrf: '', grace: 'now' })).toBe(403);
    expect(await call(key)).toBe(200);
    expect(rowsOf((await pat.get('/dashboard/keys')).text, 'sneaky')).toHaveLength(0);
  });
});
