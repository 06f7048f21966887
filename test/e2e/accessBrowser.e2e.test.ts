// Private publishing (docs/access.md) where it takes processes: two daemons sharing one
// PostgreSQL database and one bucket (a grant, a revocation, a new password and visibility
// changes felt at once on the other daemon), a browser (members reading, the dashboard's share
// links, axe and the screenshots), the operator's CLI, and the daemons' logs. Every wire answer of
// one app is test/spec/access.spec.test.ts's.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Client,
  CORPUS,
  client,
  expectJson,
  type Json,
  SMALL_PDF,
} from '../support/apiHelpers.ts';
import { type Daemon, flipbook, startDaemon } from '../support/cli.ts';
import { axeViolations, DESKTOP, PHONE, useDashboard } from '../support/dashboard.ts';
import {
  bookUrls,
  expectVisibilityFelt,
  grantRoot,
  newShareLink,
  processedBook,
  statusOf,
  unlock,
} from '../support/readerAccess.ts';

const IMAGES = join(import.meta.dirname, '../../docs/images');

describe('private publishing on two daemons', () => {
  const d = useDashboard('postgres', ['--workers', '1']);
  let b: Daemon; // a second daemon on the same database and bucket
  let c: Client;
  let book = { flipbookId: '', versionId: '' };

  beforeAll(async () => {
    c = client(d.fx.api, d.fx.key);
    b = await startDaemon([...d.fx.storeArgs, ...d.fx.blobArgs, '--workers', '0']);
    book = await processedBook(c, { visibility: 'links', title: 'Board pack' });
  });
  afterAll(async () => {
    await b?.stop();
  });

  const links = (path = '') => `/flipbooks/${book.flipbookId}/links${path}`;
  const newLink = (body: Json) => newShareLink(c, book.flipbookId, body);

  it('answers 404 on the other daemon at every URL of a links-only book, without a link', async () => {
    const slug = (await c.flipbook(book.flipbookId)).body.slug as string;
    for (const url of bookUrls(b.url, book, slug)) expect(await statusOf(url), url).toBe(404);
  });

  it('a grant one daemon gave opens on the other, with a 304 after the check', async () => {
    const link = await newLink({ label: 'Jane Doe, Acme' });
    const root = grantRoot(await (await fetch(link.url)).text(), d.url);
    const mid = `${root.replace(d.url, b.url)}/pages/${book.versionId}/1/mid.jpg`;
    const first = await fetch(mid);
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag') ?? '';
    expect(await statusOf(mid, { headers: { 'if-none-match': etag } })).toBe(304);
  });

  it('revoking a link ends it at once on the other daemon, for pages already open too', async () => {
    const link = await newLink({ label: 'to revoke' });
    const html = await (await fetch(link.url.replace(d.url, b.url))).text();
    const root = grantRoot(html, b.url);
    const mid = `${root}/pages/${book.versionId}/2/mid.jpg`;
    expect(await statusOf(mid)).toBe(200);
    expectJson(await c.del(links(`/${link.id}`)), 200);
    // No wait: every request asks the database.
    expect(await statusOf(mid)).toBe(404);
    expect(await statusOf(link.url.replace(d.url, b.url))).toBe(404);
    expect(await statusOf(`${link.url.replace(d.url, b.url)}/status.json`)).toBe(404);
  });

  it('a new password ends what the old one opened, on either daemon', async () => {
    const link = await newLink({ label: 'password changed', password: 'first password 1' });
    const right = await unlock(link.url, 'first password 1');
    expect(right.status).toBe(303);
    const cookie = (right.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const root = grantRoot(await (await fetch(link.url, { headers: { cookie } })).text(), d.url);
    const mid = `${root}/pages/${book.versionId}/1/mid.jpg`;
    expect(await statusOf(mid.replace(d.url, b.url))).toBe(200);
    const changed = await c.patch(links(`/${link.id}`), { password: 'second password 2' });
    expectJson(changed, 200);
    expect(await statusOf(mid)).toBe(404);
    expect(await statusOf(mid.replace(d.url, b.url))).toBe(404);
  });

  it('a workspace book in a browser: 404 for another workspace, the reader for members, on both daemons', async () => {
    const inside = await processedBook(c, { visibility: 'workspace' });
    const reader = `${d.url}/f/${inside.flipbookId}`;
    const member = await d.signedIn('mia@example.com', { role: 'member' });
    await member.goto(reader);
    await member.locator('.stage img').first().waitFor();
    expect(
      await member.evaluate("document.querySelector('.stage img')?.getAttribute('src')"),
    ).toContain('/a/');

    await d.fx.newWorkspace('others');
    const outsider = await d.signedIn('otto@example.com', { workspace: 'others' });
    const answer = await outsider.goto(reader);
    expect(answer?.status()).toBe(404);
    // Its readable address leads no one else to its id.
    const slug = (await c.flipbook(inside.flipbookId)).body.slug as string;
    const readable = `${d.url}/w/acme/${slug}`;
    expect((await outsider.goto(readable))?.status()).toBe(404);
    await member.goto(readable);
    expect(member.url().split('#')[0]).toBe(reader);

    // Made links-only, members still read it (they publish it); others see nothing of it.
    const src = (await member.evaluate(
      "document.querySelector('.stage img')?.getAttribute('src') ?? ''",
    )) as string;
    // Made public, its own URLs answer; made private again, they stop at once on every daemon.
    const own = `${b.url}/files/pages/${inside.versionId}/1/mid.jpg`;
    await expectVisibilityFelt(c, inside.flipbookId, {
      src: src.replace(d.url, b.url),
      reader,
      own,
    });
    // Removing the member (the operator's CLI) ends their reading at once on every daemon.
    const removed = await flipbook(['user', 'remove', 'mia@example.com', ...d.fx.storeArgs]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(await statusOf(src.replace(d.url, b.url))).toBe(404);
  });

  it('the dashboard: who can read it, and share links made, shown once, opened and revoked', async () => {
    const page = await d.signedIn('sam@example.com', { context: { ...DESKTOP, bypassCSP: true } });
    await page.goto(`${d.url}/dashboard/flipbooks/${book.flipbookId}`);
    const readers = page.getByRole('region', { name: 'Who can read it' });
    expect(await readers.getByLabel(/Only people with a share link/).isChecked()).toBe(true);
    await readers.getByRole('link', { name: 'Share links' }).click();
    await page.getByLabel('For whom').fill('Quinn <Board> Member');
    await page.getByLabel('Password (optional)').fill('a fine passphrase');
    await page.getByRole('button', { name: 'Create the link' }).click();
    const shown = (await page.locator('#new-link').textContent()) ?? '';
    expect(shown).toMatch(new RegExp(`^${d.url}/s/[A-Za-z0-9_-]{43}$`));
    expect(await axeViolations(page), 'share links').toEqual([]);
    await page.screenshot({
      path: join(IMAGES, 'dashboard-share-links-desktop.png'),
      fullPage: true,
    });
    await page.reload();
    expect(await page.locator('#new-link').count(), 'shown once').toBe(0);
    const row = page.getByRole('row', { name: /Quinn <Board> Member/ });
    expect(await row.textContent()).toContain('Yes');
    // Refused in words, the form kept.
    await page.getByLabel('For whom').fill('   ');
    await page.getByLabel('Expires on (optional)').fill('2020-01-01');
    await page.getByRole('button', { name: 'Create the link' }).click();
    const refusedText = await page.getByRole('alert').textContent();
    expect(refusedText).toMatch(/Invalid (label|expires_at)/);

    const phone = await d.signedIn('pat@example.com', { context: { ...PHONE, bypassCSP: true } });
    await phone.goto(`${d.url}/dashboard/flipbooks/${book.flipbookId}/links`);
    expect(await axeViolations(phone), 'share links, phone').toEqual([]);
    expect(await phone.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await phone.screenshot({
      path: join(IMAGES, 'dashboard-share-links-phone.png'),
      fullPage: true,
    });
    // A label of one 200-letter word wraps in its cell: neither page widens.
    await newLink({ label: 'L'.repeat(200) });
    for (const shown of [page, phone]) {
      await shown.reload();
      const fits = `document.documentElement.scrollWidth <= window.innerWidth &&
        document.querySelector('table.links').getBoundingClientRect().right <= window.innerWidth`;
      expect(await shown.evaluate(fits)).toBe(true);
    }
    // The notice naming a link just made wraps the same way.
    await page.goto(page.url());
    await page.getByLabel('For whom').fill('M'.repeat(200));
    await page.getByLabel('Expires on (optional)').fill('');
    await page.getByRole('button', { name: 'Create the link' }).click();
    await page.locator('#new-link').waitFor();
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(
      true,
    );

    await page.getByRole('button', { name: 'Revoke the link for Quinn <Board> Member' }).click();
    await page.getByText('The link is revoked').waitFor();
    expect(await statusOf(shown)).toBe(404);
    const audit = await d.auditLog();
    const types = audit.map((e) => e.type);
    expect(types).toContain('ShareLinkCreated');
    expect(types).toContain('ShareLinkRevoked');
    const made = audit.find(
      (e) => e.type === 'ShareLinkCreated' && e.data.label === 'Quinn <Board> Member',
    );
    expect(made?.metadata.actor).toMatchObject({ type: 'user', email: 'sam@example.com' });
    expect(JSON.stringify(audit)).not.toContain(shown.split('/s/')[1]);

    // Who can read it, chosen at upload.
    await page.goto(`${d.url}/dashboard/upload`);
    const choice = page.getByRole('group', { name: 'Who can read it' });
    expect(await choice.getByLabel(/Anyone with the link/).isChecked()).toBe(true);
    await choice.getByLabel(/Members of this workspace/).check();
    await page.getByLabel('PDF').setInputFiles(join(CORPUS, SMALL_PDF));
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    const manage = page.getByRole('link', { name: 'Manage this flipbook' });
    await manage.waitFor();
    const uploadedId = ((await manage.getAttribute('href')) ?? '').split('/').pop() ?? '';
    expect((await c.flipbook(uploadedId)).body).toMatchObject({ visibility: 'workspace' });
  });

  it('is axe-clean on a phone and a desktop: the password page, the reader, a locked reader', async () => {
    for (const [size, context] of [
      ['phone', PHONE],
      ['desktop', DESKTOP],
    ] as const) {
      const link = await newLink({ label: size, password: 'correct horse 9' });
      const page = await d.open({ ...context, bypassCSP: true });
      await page.goto(link.url);
      expect(await axeViolations(page), `password page, ${size}`).toEqual([]);
      await page.screenshot({ path: join(IMAGES, `reader-password-${size}.png`) });
      await page.getByLabel('Password').fill('wrong password 1');
      await page.getByRole('button', { name: 'Open' }).click();
      await page.getByRole('alert').waitFor();
      expect(await axeViolations(page), `wrong password, ${size}`).toEqual([]);
      await page.getByLabel('Password').fill('correct horse 9');
      await page.getByRole('button', { name: 'Open' }).click();
      await page.locator('.stage img').first().waitFor();
      await page.screenshot({ path: join(IMAGES, `reader-shared-${size}.png`) });
      // Its own reader URL, without a link: the same page as for a book that never was.
      const locked = await d.open({ ...context, bypassCSP: true });
      const answer = await locked.goto(`${d.url}/f/${book.flipbookId}`);
      expect(answer?.status()).toBe(404);
      expect(await axeViolations(locked), `not found, ${size}`).toEqual([]);
      await locked.screenshot({ path: join(IMAGES, `reader-locked-${size}.png`) });
    }
  });

  it('keeps tokens, grants and passwords out of both daemons’ logs', async () => {
    const link = await newLink({ label: 'logs', password: 'a secret for the logs' });
    const token = link.url.split('/s/')[1] as string;
    const right = await unlock(link.url.replace(d.url, b.url), 'a secret for the logs');
    const cookie = (right.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const html = await (await fetch(link.url, { headers: { cookie } })).text();
    const root = grantRoot(html, d.url);
    const grant = root.split('/a/')[1] as string;
    // Requests that log: broken grants and tokens, a client gone before its answer.
    await statusOf(`${root}x/pages/${book.versionId}/1/mid.jpg`);
    await statusOf(`${link.url}x/status.json`);
    const gone = new AbortController();
    const away = fetch(`${root}/originals/${book.versionId}`, { signal: gone.signal });
    gone.abort();
    await away.catch(() => {});
    await unlock(link.url, 'a wrong secret for the logs');
    const logs = d.fx.daemon.logs() + b.logs();
    for (const secret of [token, grant, 'a secret for the logs', 'a wrong secret for the logs']) {
      expect(logs.includes(secret), secret.slice(0, 12)).toBe(false);
    }
  });
});
