// Private publishing (docs/access.md): who may read a flipbook, tried at every URL kind of a book.
// A book only share links open, one for the workspace's members, share links with and without a
// password; revocation and visibility changes felt at once, also by URLs a reader already holds.
// The whole app in process (test/support/appSpec.ts) with one processing lane, on PostgreSQL and
// a bucket. What a second daemon on the same database, a browser and the daemons' logs show is
// test/e2e/accessBrowser.e2e.test.ts's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  acceptInvitation,
  findPerson,
  inviteUser,
  removeMember,
} from '../../src/app/accounts/people.ts';
import { type Client, client, expectJson, type Json, send } from '../support/apiHelpers.ts';
import { type AppUnderTest, startApp } from '../support/appSpec.ts';
import { PASSWORD, postSignIn } from '../support/dashboard.ts';
import { appFetch } from '../support/inProcess.ts';
import { TEST_METADATA } from '../support/metadata.ts';
import {
  bookUrls,
  expectVisibilityFelt,
  fileUrls,
  grantRoot,
  newShareLink,
  processedBook,
  statusOf,
  unlock,
} from '../support/readerAccess.ts';

describe('private publishing', () => {
  let app: AppUnderTest;
  let c: Client;
  let book = { flipbookId: '', versionId: '' };

  beforeAll(async () => {
    app = await startApp({ store: 'postgres', blobs: 's3', workers: 1 });
    c = client(app.api, app.key);
    book = await processedBook(c, { visibility: 'links', title: 'Board pack' });
  });
  afterAll(async () => {
    await app?.stop();
  });

  /** A person of `workspace` with the password PASSWORD (invited, the invitation accepted). */
  const joined = async (email: string, role: 'owner' | 'member', workspace: string) => {
    const workspaceId =
      workspace === 'acme' ? app.workspaceId : (await app.newWorkspace(workspace)).workspaceId;
    const { token } = await inviteUser(
      app.store,
      { workspaceId, email, role },
      TEST_METADATA,
      app.clock,
    );
    await acceptInvitation(app.store, { token, password: PASSWORD }, {}, app.clock);
  };
  /** The same, signed in: their session cookie. */
  const signedIn = async (
    email: string,
    role: 'owner' | 'member' = 'owner',
    workspace = 'acme',
  ) => {
    await joined(email, role, workspace);
    const signIn = await postSignIn(app.base, email);
    expect(signIn.status).toBe(303);
    return (signIn.headers.get('set-cookie') ?? '').split(';')[0] as string;
  };

  const links = (path = '') => `/flipbooks/${book.flipbookId}/links${path}`;
  const newLink = (body: Json) => newShareLink(c, book.flipbookId, body);

  it('answers 404 at every URL of a links-only book, without a link', async () => {
    const flipbook = await c.flipbook(book.flipbookId);
    expect(flipbook.body).toMatchObject({ visibility: 'links', embed_origins: [] });
    const slug = flipbook.body.slug as string;
    for (const url of bookUrls(app.base, book, slug)) expect(await statusOf(url), url).toBe(404);
    // The same answer as for an id that never was, headers and all.
    const headersOf = async (url: string) => {
      const { headers } = await appFetch(url);
      return ['cache-control', 'referrer-policy', 'x-robots-tag', 'content-security-policy'].map(
        (name) => headers.get(name),
      );
    };
    expect(await headersOf(`${app.base}/f/${book.flipbookId}`)).toEqual(
      await headersOf(`${app.base}/f/00000000-0000-4000-8000-000000000000`),
    );
    // The API key of its workspace still reads the images its answers name.
    const img = flipbook.body.pages[0].img_mid as string;
    const withKey = await appFetch(img, { headers: { authorization: `Bearer ${app.key}` } });
    expect(withKey.status).toBe(200);
    expect(withKey.headers.get('cache-control')).toBe('private, no-cache');
    const other = await app.newWorkspace('rivals');
    expect(await statusOf(img, { headers: { authorization: `Bearer ${other.key}` } })).toBe(404);
  });

  it('opens through a share link: private headers, no previews, files under a grant', async () => {
    const link = await newLink({ label: 'Jane Doe, Acme' });
    expect(link).toMatchObject({ label: 'Jane Doe, Acme', has_password: false, opens: 0 });
    expect(link.url).toMatch(new RegExp(`^${app.base}/s/[A-Za-z0-9_-]{43}$`));
    const page = await appFetch(link.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('x-robots-tag')).toBe('noindex, nofollow');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'self'");
    expect(page.headers.get('set-cookie')).toBeNull();
    const html = await page.text();
    expect(html).not.toContain('og:image');
    expect(html).toContain('<meta name="robots" content="noindex, nofollow">');
    expect(html).not.toContain(`${app.base}/files/`);
    const root = grantRoot(html, app.base);
    for (const url of fileUrls(root, book.versionId)) {
      const res = await appFetch(url);
      expect(res.status, url).toBe(200);
      expect(res.headers.get('cache-control'), url).toBe('private, no-cache');
      await res.arrayBuffer();
    }
    // A 304 after the check (the same grant on another daemon: accessBrowser.e2e).
    const mid = `${root}/pages/${book.versionId}/1/mid.jpg`;
    const first = await appFetch(mid);
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

  it('revoking a link ends it at once, for pages already open too', async () => {
    const link = await newLink({ label: 'to revoke' });
    const html = await (await appFetch(link.url)).text();
    const root = grantRoot(html, app.base);
    const mid = `${root}/pages/${book.versionId}/2/mid.jpg`;
    expect(await statusOf(mid)).toBe(200);
    expectJson(await c.del(links(`/${link.id}`)), 200);
    // No wait: every request asks the database.
    expect(await statusOf(mid)).toBe(404);
    expect(await statusOf(link.url)).toBe(404);
    expect(await statusOf(`${link.url}/status.json`)).toBe(404);
    expect((await c.del(links(`/${link.id}`))).status).toBe(404);
  });

  it('asks for a password: one answer for every wrong one, throttled, then the reader', async () => {
    const link = await newLink({ label: 'with a password', password: 'correct horse 9' });
    expect(link.has_password).toBe(true);
    const ask = await appFetch(link.url);
    expect(ask.status).toBe(200);
    const form = await ask.text();
    expect(form).toContain('<form class="password-form" method="post"');
    expect(form).not.toContain('/a/');
    // Framed as its book is: its flipbook's embedding sites, else its own site only.
    const framing = async () =>
      /frame-ancestors [^;]*/.exec(
        (await appFetch(link.url)).headers.get('content-security-policy') ?? '',
      )?.[0];
    expect(await framing()).toBe("frame-ancestors 'self'");
    await c.patch(`/flipbooks/${book.flipbookId}`, { embed_origins: ['https://intranet.example'] });
    expect(await framing()).toBe("frame-ancestors 'self' https://intranet.example");
    await c.patch(`/flipbooks/${book.flipbookId}`, { embed_origins: [] });
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
    const reader = await appFetch(link.url, {
      headers: { cookie: cookie.split(';')[0] as string },
    });
    expect(reader.status).toBe(200);
    expect(await reader.text()).toContain('/a/');
    // The right password posted by another site's page: refused, no cookie.
    const forged = await unlock(link.url, 'correct horse 9', { origin: 'https://evil.example' });
    expect(forged.status).toBe(403);
    expect(forged.headers.getSetCookie()).toEqual([]);
    expect(await forged.text()).toContain('<form class="password-form" method="post"');
    // The link's own page posts with Origin null (it is sent no-referrer), Sec-Fetch-Site ours.
    const own = await unlock(link.url, 'correct horse 9', {
      origin: 'null',
      'sec-fetch-site': 'same-origin',
    });
    expect(own.status).toBe(303);
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
    const root = grantRoot(
      await (await appFetch(link.url, { headers: { cookie } })).text(),
      app.base,
    );
    const mid = `${root}/pages/${book.versionId}/1/mid.jpg`;
    expect(await statusOf(mid)).toBe(200);
    const changed = await c.patch(links(`/${link.id}`), { password: 'second password 2' });
    expectJson(changed, 200);
    // The old password's grant opens nothing, and its cookie asks again.
    expect(await statusOf(mid)).toBe(404);
    const asked = await (await appFetch(link.url, { headers: { cookie } })).text();
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
      send(`${app.api}${path}`, {
        method,
        body: typeof body === 'string' ? body : JSON.stringify(body),
        headers: { 'content-type': 'application/json', authorization: `Bearer ${app.key}` },
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
    const inside = await processedBook(c, { visibility: 'workspace' });
    const reader = `${app.base}/f/${inside.flipbookId}`;
    const anonymous = await appFetch(reader, { redirect: 'manual' });
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toBe(
      `/login?next=${encodeURIComponent(`/f/${inside.flipbookId}`)}`,
    );
    const member = await signedIn('mia@example.com', 'member');
    const read = await appFetch(reader, { headers: { cookie: member } });
    expect(read.status).toBe(200);
    const src = `${grantRoot(await read.text(), app.base)}/pages/${inside.versionId}/1/mid.jpg`;
    expect(await statusOf(src)).toBe(200);

    const outsider = await signedIn('otto@example.com', 'owner', 'others');
    expect(await statusOf(reader, { headers: { cookie: outsider } })).toBe(404);
    // Its readable address leads no one else to its id: sign in first, or the 404 of a wrong slug.
    const slug = (await c.flipbook(inside.flipbookId)).body.slug as string;
    const readable = `${app.base}/w/acme/${slug}`;
    const unsigned = await appFetch(readable, { redirect: 'manual' });
    expect(unsigned.status).toBe(303);
    expect(unsigned.headers.get('location')).toBe(
      `/login?next=${encodeURIComponent(`/w/acme/${slug}`)}`,
    );
    expect(await statusOf(readable, { headers: { cookie: outsider } })).toBe(404);
    const led = await appFetch(readable, { redirect: 'manual', headers: { cookie: member } });
    expect(led.status).toBe(302);
    expect(led.headers.get('location')).toBe(reader);

    // Made links-only, members still read it (they publish it); others see nothing of it. Made
    // public, its own URLs answer; made private again, they stop at once.
    const own = `${app.base}/files/pages/${inside.versionId}/1/mid.jpg`;
    await expectVisibilityFelt(c, inside.flipbookId, { src, reader, own });
    // Removing the member ends their reading at once (their session ends).
    const mia = await findPerson(app.store, 'mia@example.com');
    await removeMember(
      app.store,
      { workspaceId: app.workspaceId, userId: mia.id },
      TEST_METADATA,
      app.clock,
    );
    expect(await statusOf(src)).toBe(404);
  });

  it('describes public books only: Open Graph tags and oEmbed, announced by the reader', async () => {
    const open = await processedBook(c, { title: 'Spring <catalogue>' });
    const reader = `${app.base}/f/${open.flipbookId}`;
    const html = await (await appFetch(reader)).text();
    expect(html).toContain('<meta property="og:title" content="Spring &lt;catalogue&gt;">');
    const discovery = /<link rel="alternate" type="application\/json\+oembed" href="([^"]+)"/.exec(
      html,
    );
    expect(discovery).not.toBeNull();
    const href = (discovery?.[1] ?? '').replaceAll('&amp;', '&');
    const embed = await appFetch(href);
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
    const narrow = (await (await appFetch(`${href}&maxwidth=320`)).json()) as Json;
    expect(narrow.width).toBe(320);
    const oembed = (url: string, format = 'json') =>
      statusOf(`${app.base}/oembed?url=${encodeURIComponent(url)}&format=${format}`);
    expect(await oembed(`${app.base}/f/${book.flipbookId}`)).toBe(404); // links-only
    expect(await oembed('https://elsewhere.example/f/0b9f6c2e-5d1a-4c3b-9e8f-1a2b3c4d5e6f')).toBe(
      404,
    );
    expect(await oembed(reader, 'xml')).toBe(501);
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
    await joined('lee@example.com', 'member', 'acme');
    const signIn = await postSignIn(app.base, 'lee@example.com');
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get('set-cookie')).toMatch(/flipbook_session=/);
  });
});
