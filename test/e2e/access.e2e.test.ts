// Private publishing (docs/access.md): who may read a flipbook, tried at every URL kind of a book,
// on two daemons sharing one PostgreSQL database and one bucket. A book only share links open,
// one for the workspace's members, share links with and without a password; revocation and
// visibility changes felt at once on the other daemon, also by URLs a browser already holds.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Client,
  CORPUS,
  client,
  createFlipbook,
  expectJson,
  type Json,
  pdf,
  SMALL_PDF,
  send,
  sleep,
} from '../support/apiHelpers.ts';
import { type Daemon, flipbook, startDaemon } from '../support/cli.ts';
import { axeViolations, DESKTOP, PHONE, postSignIn, useDashboard } from '../support/dashboard.ts';

const IMAGES = join(import.meta.dirname, '../../docs/images');

/** Every URL of a version's files, at a root (`/files` or `/a/<grant>`), with the text JSON. */
const fileUrls = (root: string, versionId: string) => [
  `${root}/pages/${versionId}/1/mid.jpg`,
  `${root}/pages/${versionId}/1/min.jpg`,
  `${root}/pages/${versionId}/1/max.jpg`,
  `${root}/pages/${versionId}/1/text.txt`,
  `${root}/pages/${versionId}/1/words.json`,
  `${root}/pages/${versionId}/document.json`,
  `${root}/pages/${versionId}/text.json`,
  `${root}/originals/${versionId}`,
];

/** The grant a reader page gives its files: `/a/<grant>` as it appears in the HTML. */
const grantRoot = (html: string, base: string) => {
  const found = /\/a\/([A-Za-z0-9._-]+)\/pages\//.exec(html);
  if (!found) throw new Error('no /a/<grant>/ URL in the page');
  return `${base}/a/${found[1]}`;
};

const statusOf = async (url: string, init: RequestInit = {}) =>
  (await fetch(url, { redirect: 'manual', ...init })).status;

/** The password form of a share link, posted. */
const unlock = (url: string, password: string) =>
  fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ password }).toString(),
  });

const waitDone = async (c: Client, flipbookId: string, versionId: string) => {
  for (let i = 0; i < 600; i++) {
    const reply = await c.status(flipbookId, versionId);
    if (reply.body.status === 'done') return;
    if (reply.body.status === 'error') throw new Error(reply.text);
    await sleep(100);
  }
  throw new Error('not done in 60 s');
};

describe('private publishing on two daemons', () => {
  const d = useDashboard('postgres', ['--workers', '1']);
  let b: Daemon; // a second daemon on the same database and bucket
  let c: Client;
  let book = { flipbookId: '', versionId: '' };

  beforeAll(async () => {
    c = client(d.fx.api, d.fx.key);
    b = await startDaemon([...d.fx.storeArgs, ...d.fx.blobArgs, '--workers', '0']);
    book = await createFlipbook(c, { visibility: 'links', title: 'Board pack' }, pdf(SMALL_PDF));
    await waitDone(c, book.flipbookId, book.versionId);
  });
  afterAll(async () => {
    await b?.stop();
  });

  const links = (path = '') => `/flipbooks/${book.flipbookId}/links${path}`;
  const newLink = async (body: Json) => {
    const reply = await c.post(links(), {
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });
    expectJson(reply, 201);
    return reply.body;
  };

  it('answers 404 at every URL of a links-only book, without a link', async () => {
    const flipbook = await c.flipbook(book.flipbookId);
    expect(flipbook.body).toMatchObject({ visibility: 'links', embed_origins: [] });
    const slug = flipbook.body.slug as string;
    for (const base of [d.url, b.url]) {
      const urls = [
        `${base}/f/${book.flipbookId}`,
        `${base}/f/${book.flipbookId}/text`,
        `${base}/f/${book.flipbookId}/status.json`,
        `${base}/w/acme/${slug}`,
        ...fileUrls(`${base}/files`, book.versionId),
      ];
      for (const url of urls) expect(await statusOf(url), url).toBe(404);
    }
    // The same answer as for an id that never was, headers and all.
    const headersOf = async (url: string) => {
      const { headers } = await fetch(url);
      return ['cache-control', 'referrer-policy', 'x-robots-tag', 'content-security-policy'].map(
        (name) => headers.get(name),
      );
    };
    expect(await headersOf(`${d.url}/f/${book.flipbookId}`)).toEqual(
      await headersOf(`${d.url}/f/00000000-0000-4000-8000-000000000000`),
    );
    // The API key of its workspace still reads the images its answers name.
    const img = flipbook.body.pages[0].img_mid as string;
    const withKey = await fetch(img, { headers: { authorization: `Bearer ${d.fx.key}` } });
    expect(withKey.status).toBe(200);
    expect(withKey.headers.get('cache-control')).toBe('private, no-cache');
    const other = await d.fx.newWorkspace('rivals');
    expect(await statusOf(img, { headers: { authorization: `Bearer ${other.key}` } })).toBe(404);
  });

  it('opens through a share link: private headers, no previews, files under a grant', async () => {
    const link = await newLink({ label: 'Jane Doe, Acme' });
    expect(link).toMatchObject({ label: 'Jane Doe, Acme', has_password: false, opens: 0 });
    expect(link.url).toMatch(new RegExp(`^${d.url}/s/[A-Za-z0-9_-]{43}$`));
    const page = await fetch(link.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('x-robots-tag')).toBe('noindex, nofollow');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'self'");
    expect(page.headers.get('set-cookie')).toBeNull();
    const html = await page.text();
    expect(html).not.toContain('og:image');
    expect(html).toContain('<meta name="robots" content="noindex, nofollow">');
    expect(html).not.toContain(`${d.url}/files/`);
    const root = grantRoot(html, d.url);
    for (const url of fileUrls(root, book.versionId)) {
      const res = await fetch(url);
      expect(res.status, url).toBe(200);
      expect(res.headers.get('cache-control'), url).toBe('private, no-cache');
      await res.arrayBuffer();
    }
    // The same grant on the other daemon, and a 304 after the check.
    const mid = `${root.replace(d.url, b.url)}/pages/${book.versionId}/1/mid.jpg`;
    const first = await fetch(mid);
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag') ?? '';
    expect(await statusOf(mid, { headers: { 'if-none-match': etag } })).toBe(304);
    // A grant for another book, or tampered with, opens nothing.
    expect(await statusOf(`${root}x/pages/${book.versionId}/1/mid.jpg`)).toBe(404);
    const listed = await c.get(links());
    expectJson(listed, 200);
    expect(listed.body.links).toHaveLength(1);
    expect(listed.body.links[0]).toMatchObject({ id: link.id, opens: 1 });
    expect(JSON.stringify(listed.body)).not.toContain(link.url.split('/s/')[1]);
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
    expect((await c.del(links(`/${link.id}`))).status).toBe(404);
  });

  it('asks for a password: one answer for every wrong one, throttled, then the reader', async () => {
    const link = await newLink({ label: 'with a password', password: 'correct horse 9' });
    expect(link.has_password).toBe(true);
    const ask = await fetch(link.url);
    expect(ask.status).toBe(200);
    const form = await ask.text();
    expect(form).toContain('<form class="password-form" method="post"');
    expect(form).not.toContain('/a/');
    const post = (password: string) => unlock(link.url, password);
    const wrong = await post('not it at all');
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('That password is not right');
    const right = await post('correct horse 9');
    expect(right.status).toBe(303);
    const cookie = right.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(
      /^flipbook_link=[^;]+; Path=\/s\/[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Lax/,
    );
    const reader = await fetch(link.url, { headers: { cookie: cookie.split(';')[0] as string } });
    expect(reader.status).toBe(200);
    expect(await reader.text()).toContain('/a/');
    // Throttled per link and address: 5 wrong in the window (the one before the right password
    // still counts: a right one clears nothing), then 429 even for the right one.
    for (let i = 0; i < 4; i++) expect((await post(`wrong ${i} guess`)).status).toBe(401);
    const throttled = await post('correct horse 9');
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBe('900');
  });

  it('a new password ends what the old one opened; guesses sent at once count one by one', async () => {
    const link = await newLink({ label: 'password changed', password: 'first password 1' });
    const right = await unlock(link.url, 'first password 1');
    expect(right.status).toBe(303);
    const cookie = (right.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const root = grantRoot(await (await fetch(link.url, { headers: { cookie } })).text(), d.url);
    const mid = `${root}/pages/${book.versionId}/1/mid.jpg`;
    expect(await statusOf(mid)).toBe(200);
    const changed = await send(`${d.fx.api}${links(`/${link.id}`)}`, {
      method: 'PATCH',
      body: JSON.stringify({ password: 'second password 2' }),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${d.fx.key}` },
    });
    expectJson(changed, 200);
    // The old password's grant opens nothing, on either daemon, and its cookie asks again.
    expect(await statusOf(mid)).toBe(404);
    expect(await statusOf(mid.replace(d.url, b.url))).toBe(404);
    const asked = await (await fetch(link.url, { headers: { cookie } })).text();
    expect(asked).toContain('<form class="password-form" method="post"');
    expect(asked).not.toContain('/a/');
    expect((await unlock(link.url, 'first password 1')).status).toBe(401);
    // Twenty guesses at once: the throttle counts each before its check, so no more than the
    // account's five (less the one above) are checked; the rest are refused unchecked.
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => unlock(link.url, `guess number ${i}`)),
    );
    const statuses = replies.map((reply) => reply.status);
    expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(4);
    expect(statuses.filter((status) => status !== 401 && status !== 429)).toEqual([]);
    await Promise.all(replies.map((reply) => reply.arrayBuffer()));
  });

  it('refuses hostile labels, origins, passwords and dates with a clear 400, and serves on', async () => {
    const json = (method: string, path: string, body: unknown) =>
      send(`${d.fx.api}${path}`, {
        method,
        body: typeof body === 'string' ? body : JSON.stringify(body),
        headers: { 'content-type': 'application/json', authorization: `Bearer ${d.fx.key}` },
      });
    const refusals: [string, string, unknown][] = [
      ['POST', links(), {}],
      ['POST', links(), { label: '' }],
      ['POST', links(), { label: '   ' }],
      ['POST', links(), { label: 'x'.repeat(201) }],
      ['POST', links(), { label: 'a\u0000b' }],
      ['POST', links(), { label: 'bell\u0007' }],
      ['POST', links(), { label: ['Jane'] }],
      ['POST', links(), { label: 'Jane', password: 'short' }],
      ['POST', links(), { label: 'Jane', password: 'p'.repeat(257) }],
      ['POST', links(), { label: 'Jane', password: 12345678 }],
      ['POST', links(), { label: 'Jane', password: 'a\u0000bcdefghij' }],
      ['POST', links(), { label: 'Jane', password: '          ' }],
      ['POST', links(), { label: 'Jane', expires_at: 'tomorrow' }],
      ['POST', links(), { label: 'Jane', expires_at: '2020-01-01T00:00:00Z' }],
      ['POST', links(), { label: 'Jane', expires_at: '2999-01-01T00:00:00Z' }],
      ['POST', links(), { label: 'Jane', allow_download: 'yes' }],
      ['POST', links(), { label: 'Jane', token: 'mine' }],
      ['POST', links(), '{"label": "Jane"'],
      ['PATCH', links('/not-a-uuid'), { label: 'x' }],
      ['PATCH', `/flipbooks/${book.flipbookId}`, { visibility: 'private' }],
      ['PATCH', `/flipbooks/${book.flipbookId}`, { visibility: null }],
      ...[
        'javascript:alert(1)',
        'https://*.com',
        'https://*',
        '*',
        'https://example.com/path',
        'https://exa mple.com',
        'https://example.com\r\nX-Evil: 1',
        "https://example.com'; script-src *",
        `https://${'a'.repeat(300)}.com`,
        'data:text/html,hi',
        '',
      ].map(
        (origin) =>
          ['PATCH', `/flipbooks/${book.flipbookId}`, { embed_origins: [origin] }] as [
            string,
            string,
            unknown,
          ],
      ),
      [
        'PATCH',
        `/flipbooks/${book.flipbookId}`,
        { embed_origins: Array.from({ length: 101 }, (_, i) => `https://s${i}.example.com`) },
      ],
      ['PATCH', `/flipbooks/${book.flipbookId}`, { embed_origins: 'https://example.com' }],
    ];
    for (const [method, path, body] of refusals) {
      const reply = await json(method, path, body);
      const what = `${method} ${path} ${JSON.stringify(body).slice(0, 80)}`;
      expect(reply.status, what).toBe(path.endsWith('/not-a-uuid') ? 404 : 400);
      expect(typeof reply.body.error, what).toBe('string');
    }
    // The label is kept as given (HTML and all) and shown escaped; the book is as it was.
    const odd = await newLink({ label: '<img src=x onerror=alert(1)> «Jane» 😀' });
    expect(odd.label).toBe('<img src=x onerror=alert(1)> «Jane» 😀');
    const flipbook = await c.flipbook(book.flipbookId);
    expect(flipbook.body).toMatchObject({ visibility: 'links', embed_origins: [] });
  });

  it('a workspace book: the sign-in page for no one, 404 for another workspace, the reader for members', async () => {
    const inside = await createFlipbook(c, { visibility: 'workspace' }, pdf(SMALL_PDF));
    await waitDone(c, inside.flipbookId, inside.versionId);
    const reader = `${d.url}/f/${inside.flipbookId}`;
    const anonymous = await fetch(reader, { redirect: 'manual' });
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toBe(
      `/login?next=${encodeURIComponent(`/f/${inside.flipbookId}`)}`,
    );
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
    // Its readable address leads no one else to its id: sign in first, or the 404 of a wrong slug.
    const slug = (await c.flipbook(inside.flipbookId)).body.slug as string;
    const readable = `${d.url}/w/acme/${slug}`;
    const unsigned = await fetch(readable, { redirect: 'manual' });
    expect(unsigned.status).toBe(303);
    expect(unsigned.headers.get('location')).toBe(
      `/login?next=${encodeURIComponent(`/w/acme/${slug}`)}`,
    );
    expect((await outsider.goto(readable))?.status()).toBe(404);
    await member.goto(readable);
    expect(member.url().split('#')[0]).toBe(reader);

    // Made links-only, members still read it (they publish it); others see nothing of it.
    const src = (await member.evaluate(
      "document.querySelector('.stage img')?.getAttribute('src') ?? ''",
    )) as string;
    const edit = (visibility: string) =>
      send(`${d.fx.api}/flipbooks/${inside.flipbookId}`, {
        method: 'PATCH',
        body: JSON.stringify({ visibility }),
        headers: { 'content-type': 'application/json', authorization: `Bearer ${d.fx.key}` },
      });
    expectJson(await edit('links'), 200);
    expect(await statusOf(src.replace(d.url, b.url))).toBe(200);
    expect(await statusOf(reader)).toBe(404);
    // Made public, its own URLs answer; made private again, they stop at once on every daemon.
    const own = `${b.url}/files/pages/${inside.versionId}/1/mid.jpg`;
    expectJson(await edit('public'), 200);
    expect(await statusOf(own)).toBe(200);
    expectJson(await edit('workspace'), 200);
    expect(await statusOf(own)).toBe(404);
    // Removing the member ends their reading at once (their session ends).
    const removed = await flipbook(['user', 'remove', 'mia@example.com', ...d.fx.storeArgs]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(await statusOf(src.replace(d.url, b.url))).toBe(404);
  });

  it('describes public books only: Open Graph tags and oEmbed, announced by the reader', async () => {
    const open = await createFlipbook(c, { title: 'Spring <catalogue>' }, pdf(SMALL_PDF));
    await waitDone(c, open.flipbookId, open.versionId);
    const reader = `${d.url}/f/${open.flipbookId}`;
    const html = await (await fetch(reader)).text();
    expect(html).toContain('<meta property="og:title" content="Spring &lt;catalogue&gt;">');
    const discovery = /<link rel="alternate" type="application\/json\+oembed" href="([^"]+)"/.exec(
      html,
    );
    expect(discovery).not.toBeNull();
    const href = (discovery?.[1] ?? '').replaceAll('&amp;', '&');
    const embed = await fetch(href);
    expect(embed.status).toBe(200);
    const body = (await embed.json()) as Json;
    expect(body).toMatchObject({
      version: '1.0',
      type: 'rich',
      title: 'Spring <catalogue>',
      width: 800,
    });
    expect(body.html).toContain(`<iframe src="${reader}"`);
    expect(body.html).toContain('title="Spring &lt;catalogue&gt;"');
    expect(body.thumbnail_url).toContain(`/pages/${open.versionId}/1/mid.jpg`);
    const narrow = (await (await fetch(`${href}&maxwidth=320`)).json()) as Json;
    expect(narrow.width).toBe(320);
    const oembed = (url: string, format = 'json') =>
      statusOf(`${d.url}/oembed?url=${encodeURIComponent(url)}&format=${format}`);
    expect(await oembed(`${d.url}/f/${book.flipbookId}`)).toBe(404); // links-only
    expect(await oembed('https://elsewhere.example/f/0b9f6c2e-5d1a-4c3b-9e8f-1a2b3c4d5e6f')).toBe(
      404,
    );
    expect(await oembed(reader, 'xml')).toBe(501);
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

  // Last: it uses up this address's tries at link passwords.
  it('guesses at link passwords from one address do not lock its people out of the dashboard', async () => {
    let throttled = 0;
    for (let i = 0; i < 8; i++) {
      const link = await newLink({ label: `guessed ${i}`, password: 'the right one 42' });
      const replies = await Promise.all(
        Array.from({ length: 5 }, (_, n) => unlock(link.url, `wrong guess ${n}`)),
      );
      throttled += replies.filter((reply) => reply.status === 429).length;
    }
    // 30 wrong per address in the window: the rest were refused unchecked.
    expect(throttled).toBeGreaterThanOrEqual(10);
    await (await d.signedIn('lee@example.com', { role: 'member' })).context().close();
    const signIn = await postSignIn(d.url, 'lee@example.com');
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get('set-cookie')).toMatch(/flipbook_session=/);
  });
});
