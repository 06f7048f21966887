// Managing flipbooks after publishing, on both stores: PATCH (every field, every refusal), slugs
// and the readable address, archive (410 reader page, files 404) and restore, DELETE (everything of
// it gone but its events, a running render stopped, the quota freed), workspace isolation, Range
// requests on file URLs. The whole app in process (test/support/appSpec.ts) with one processing
// lane, real PostgreSQL, real poppler; the CLI's commands are test/e2e/manageCli.e2e.test.ts's.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  client,
  corpus,
  createFlipbook,
  expectError,
  expectJson,
  type Json,
  pdf,
  type Reply,
  SMALL_PDF,
  send,
  waitActive,
} from '../support/apiHelpers.ts';
import { useApp } from '../support/appSpec.ts';
import { storedKeys } from '../support/blobPlace.ts';
import { appFetch } from '../support/inProcess.ts';
import { STORE_KINDS } from '../support/stores.ts';

const LONG_PDF = 'text_why3-manual.pdf'; // 184 pages: still rendering when deleted
const OWN_PDF = 'vec_vector.pdf'; // used by no other flipbook here: its original goes with it
const SHARED_PDF = 'odd_wide-issue19207.pdf'; // uploaded to two flipbooks: one original

/** Polls until `check` returns a value other than undefined/false; fails after `ms`. */
const waitFor = async <T>(what: string, check: () => Promise<T>, ms = 60_000): Promise<T> => {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe.each(STORE_KINDS)('managing flipbooks (%s store)', (kind) => {
  /** whether any of the version's page files, or the original, is stored */
  const hasPages = async (versionId: string) =>
    (await storedKeys(fx.blobPlace, `pages/${versionId}`)).length > 0;
  const hasOriginal = async (sum: string) =>
    (await storedKeys(fx.blobPlace, 'originals')).includes(`${sum.slice(0, 2)}/${sum}.pdf`);
  // the embedded store keeps its blobs in a directory, the postgres store in a bucket
  const fx = useApp({ store: kind, blobs: kind === 'postgres' ? 's3' : 'dir', workers: 1 });

  const patch = (id: string, body: unknown, headers: Record<string, string> = {}) =>
    send(`${fx.api}/flipbooks/${id}`, {
      method: 'PATCH',
      headers: {
        authorization: `Bearer ${fx.key}`,
        'content-type': 'application/json',
        ...headers,
      },
      body: typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body),
    });
  const web = (path: string, init: RequestInit = {}) =>
    appFetch(`${fx.base}${path}`, { redirect: 'manual', ...init });
  /** A processed flipbook: its ids, one page image URL and the original's URL. */
  const processed = async (fields: Record<string, string> = {}, file = SMALL_PDF) => {
    const ids = await createFlipbook(fx.c, fields, pdf(file));
    await waitActive(fx.c, ids.flipbookId, ids.versionId);
    return {
      ...ids,
      page: `/files/pages/${ids.versionId}/1/max.jpg`,
      text: `/files/pages/${ids.versionId}/1/text.txt`,
      original: `/files/originals/${ids.versionId}`,
    };
  };
  it('changes each field with PATCH, alone or together, and answers the flipbook', async () => {
    const { flipbookId } = await createFlipbook(fx.c, { title: 'Before' });
    expect((await fx.c.flipbook(flipbookId)).body.allow_download).toBe(true);
    let reply = await patch(flipbookId, { title: '  After  ' });
    expectJson(reply, 200);
    expect(reply.body).toMatchObject({ id: flipbookId, title: 'After', slug: 'before' });

    reply = await patch(flipbookId, { slug: 'after-2026', description: 'Spring <b>range</b>' });
    expectJson(reply, 200);
    expect(reply.body).toMatchObject({ slug: 'after-2026', description: 'Spring <b>range</b>' });

    reply = await patch(flipbookId, { description: '' });
    expect(reply.body.description).toBe('');

    reply = await patch(flipbookId, { status: 'archived' });
    expect(reply.body.status).toBe('archived');
    reply = await patch(flipbookId, { status: 'published', allow_download: false });
    expect(reply.body).toMatchObject({ status: 'published', allow_download: false });

    // an empty edit changes nothing and is no error
    reply = await patch(flipbookId, {});
    expectJson(reply, 200);
    const shown = (await fx.c.flipbook(flipbookId)).body;
    expect(shown).toMatchObject({
      title: 'After',
      slug: 'after-2026',
      description: '',
      status: 'published',
      allow_download: false,
    });
    const listed = (await fx.c.list()).body.flipbooks as { id: string; allow_download: boolean }[];
    expect(listed.find((f) => f.id === flipbookId)?.allow_download).toBe(false);
  });

  it('refuses every malformed edit with a 400 naming the field (413 past 64 KB), changing nothing', async () => {
    const { flipbookId } = await createFlipbook(fx.c, { title: 'Untouched' });
    const before = (await fx.c.flipbook(flipbookId)).body;
    const refused: [unknown, RegExp][] = [
      [{ title: 5 }, /^Invalid title: must be a string$/],
      [{ title: null }, /^Invalid title/],
      [{ title: '   ' }, /^Invalid title: it must not be blank$/],
      [{ title: 'x'.repeat(256) }, /^Invalid title: at most 255 characters$/],
      [{ title: 'a\u0000b' }, /^Invalid title: .*NUL/],
      [{ description: 'a\u0000b' }, /^Invalid description: .*NUL/],
      [{ description: 7 }, /^Invalid description: must be a string$/],
      [{ description: 'd'.repeat(5001) }, /^Invalid description: at most 5000 characters$/],
      [{ slug: 'Bad Slug' }, /^Invalid slug: .*"bad-slug"/],
      [{ slug: 'double--hyphen' }, /^Invalid slug/],
      [{ slug: '-edge' }, /^Invalid slug/],
      [{ slug: '' }, /^Invalid slug/],
      [{ slug: 's'.repeat(101) }, /^Invalid slug/],
      [{ slug: 12 }, /^Invalid slug: must be a string$/],
      [{ status: 'deleted' }, /^Invalid status: must be "published" or "archived"$/],
      [{ status: true }, /^Invalid status/],
      [{ allow_download: 'yes' }, /^Invalid allow_download: must be true or false$/],
      [{ color: 'red' }, /^Unknown field "color"/],
      [{ title: 'Fine', id: 'x' }, /^Unknown field "id"/],
      [[], /must be a JSON object/],
      [['title'], /must be a JSON object/],
      ['"just a string"', /must be a JSON object/],
      ['null', /must be a JSON object/],
      ['42', /must be a JSON object/],
      ['{"title": ', /^Malformed JSON body$/],
      ['', /^Malformed JSON body$/],
      // JSON is UTF-8 (RFC 8259): bytes that are not are refused, not kept as U+FFFD
      [Buffer.from('{"title":"\xff\xfe"}', 'latin1'), /^Malformed JSON body: it is not UTF-8/],
    ];
    for (const [body, message] of refused) {
      const reply = await patch(flipbookId, body);
      expectError(reply, 400, message);
    }
    // not JSON at all
    expectError(
      await patch(flipbookId, 'title=x', { 'content-type': 'application/x-www-form-urlencoded' }),
      400,
      /JSON/,
    );
    // past 64 KB, even when the JSON would be fine
    expectError(await patch(flipbookId, { description: 'x'.repeat(70 * 1024) }), 413, /64 KB/);
    // a field right at its limit is fine
    expectJson(await patch(flipbookId, { slug: 's'.repeat(100) }), 200);
    const after = (await fx.c.flipbook(flipbookId)).body;
    // (its version may have been processed meanwhile: only the flipbook's own fields are compared)
    const own = ({ title, description, status, url }: Json) => ({
      title,
      description,
      status,
      url,
    });
    expect(own(after)).toEqual(own(before));
    expect(after.slug).toBe('s'.repeat(100));

    // unknown and malformed ids
    expectError(await patch('3df4228e-437a-4f1c-b162-a57a57a87f40', { title: 'x' }), 404);
    expectError(await patch('not-a-uuid', { title: 'x' }), 400);
  });

  it('keeps slugs unique in a workspace: same titles get -2, a taken slug is a 422', async () => {
    const first = await createFlipbook(fx.c, { title: 'Annual Report' });
    const second = await createFlipbook(fx.c, { title: 'Annual Report' });
    expect((await fx.c.flipbook(first.flipbookId)).body.slug).toBe('annual-report');
    expect((await fx.c.flipbook(second.flipbookId)).body.slug).toBe('annual-report-2');

    expectError(
      await patch(second.flipbookId, { slug: 'annual-report' }),
      422,
      /^Slug "annual-report" is already used by another flipbook in this workspace$/,
    );
    // its own slug is not "taken"
    expectJson(await patch(first.flipbookId, { slug: 'annual-report' }), 200);
    // once freed, another may take it
    expectJson(await patch(first.flipbookId, { slug: 'annual-report-2025' }), 200);
    expectJson(await patch(second.flipbookId, { slug: 'annual-report' }), 200);

    // create with a description and a slug; the same slug again is a 422, a bad one a 400
    const created = await fx.c.create(pdf(SMALL_PDF), {
      title: 'Catalogue',
      slug: 'spring-2026',
      description: 'Everything we sell',
    });
    expectJson(created, 201);
    const shown = (await fx.c.flipbook(created.body.flipbook_id)).body;
    expect(shown).toMatchObject({ slug: 'spring-2026', description: 'Everything we sell' });
    expectError(
      await fx.c.create(pdf(SMALL_PDF), { slug: 'spring-2026' }),
      422,
      /^Slug "spring-2026" is already used/,
    );
    expectError(await fx.c.create(pdf(SMALL_PDF), { slug: 'Spring 2026' }), 400, /^Invalid slug/);
    expectError(
      await fx.c.create(pdf(SMALL_PDF), { description: 'd'.repeat(5001) }),
      400,
      /^Invalid description/,
    );
    // another workspace may use the same slug
    const other = await fx.newWorkspace(`slugs-${kind}`);
    expectJson(
      await client(fx.api, other.key).create(pdf(SMALL_PDF), { slug: 'spring-2026' }),
      201,
    );
  });

  it('redirects /w/<workspace>/<slug> to the flipbook url, following slug changes', async () => {
    const { flipbookId } = await createFlipbook(fx.c, { title: 'Readable', slug: 'readable-one' });
    const url = (await fx.c.flipbook(flipbookId)).body.url as string;
    let res = await web('/w/acme/readable-one');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(url);
    expect(res.headers.get('cache-control')).toBe('no-cache');

    await patch(flipbookId, { slug: 'readable-two' });
    expect((await web('/w/acme/readable-one')).status).toBe(404);
    res = await web('/w/acme/readable-two');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(url);
    // the 404s are the reader's HTML page, for a workspace or slug unknown or malformed
    for (const path of [
      '/w/nobody/readable-two',
      '/w/acme/nothing',
      '/w/acme/%E0%A4%A',
      '/w/acme%00/readable-two',
    ]) {
      const missing = await web(path);
      expect(missing.status, path).toBe(404);
      expect(missing.headers.get('content-type'), path).toMatch(/^text\/html/);
    }

    // a workspace name that needs percent-encoding
    const spaced = await fx.newWorkspace(`Acme Corp ${kind}`);
    const theirs = await createFlipbook(client(fx.api, spaced.key), { slug: 'readable-two' });
    res = await web(`/w/${encodeURIComponent(`Acme Corp ${kind}`)}/readable-two`);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${fx.base}/f/${theirs.flipbookId}`);
  });

  it('archives: listed as archived, the reader a 410 page with nothing of it, its files 404; restoring brings all back', async () => {
    const book = await processed({
      title: 'Secret <plans>',
      slug: 'secret-plans',
      description: 'Hidden words',
    });
    const url = (await fx.c.flipbook(book.flipbookId)).body.url as string;
    for (const path of [book.page, book.text, book.original]) {
      expect((await web(path)).status, path).toBe(200);
    }
    expect((await appFetch(url)).status).toBe(200);

    const archived = await patch(book.flipbookId, { status: 'archived' });
    expectJson(archived, 200);
    expect(archived.body.status).toBe('archived');
    const listed = (status: string) =>
      fx.c
        .list(`status=${status}&per_page=100`)
        .then((r: Reply) => r.body.flipbooks.map((f: Json) => f.id));
    expect(await listed('archived')).toContain(book.flipbookId);
    expect(await listed('published')).not.toContain(book.flipbookId);
    // still the owner's to see over the API
    expectJson(await fx.c.flipbook(book.flipbookId), 200);

    const gone = await appFetch(url);
    expect(gone.status).toBe(410);
    expect(gone.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(gone.headers.get('cache-control')).toBe('no-cache');
    expect(gone.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await gone.text();
    expect(html).toContain('This flipbook is not available');
    expect(html).toContain('noindex');
    for (const leak of ['Secret', 'plans', 'Hidden', '/files/', book.versionId]) {
      expect(html).not.toContain(leak);
    }
    for (const path of [book.page, book.text, book.original]) {
      const res = await web(path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('cache-control') ?? '', path).not.toContain('immutable');
    }
    // the readable address still leads to the url, which says it is not available
    const redirect = await web('/w/acme/secret-plans');
    expect(redirect.status).toBe(302);
    expect((await appFetch(redirect.headers.get('location') ?? '')).status).toBe(410);

    const restored = await patch(book.flipbookId, { status: 'published' });
    expect(restored.body.status).toBe('published');
    expect(restored.body.url).toBe(url);
    const back = await appFetch(url);
    expect(back.status).toBe(200);
    expect(await back.text()).toContain('Secret &lt;plans&gt;');
    for (const path of [book.page, book.text, book.original]) {
      expect((await web(path)).status, path).toBe(200);
    }
  });

  it('serves byte ranges of an original and of a page file', async () => {
    const book = await processed({ title: 'Ranges' }, SHARED_PDF);
    const bytes = corpus(SHARED_PDF);
    const size = bytes.length;

    let res = await web(book.original, { headers: { range: 'bytes=0-99' } });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes 0-99/${size}`);
    expect(res.headers.get('content-length')).toBe('100');
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('cache-control')).toContain('immutable');
    const etag = res.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"/);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes.slice(0, 100));

    res = await web(book.original, { headers: { range: 'bytes=-100' } });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes ${size - 100}-${size - 1}/${size}`);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes.slice(size - 100));

    res = await web(book.original, { headers: { range: `bytes=${size - 10}-` } });
    expect(res.status).toBe(206);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes.slice(size - 10));

    // a suffix longer than the file is the whole file
    res = await web(book.original, { headers: { range: `bytes=-${size * 2}` } });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes 0-${size - 1}/${size}`);
    expect((await res.arrayBuffer()).byteLength).toBe(size);

    for (const range of [`bytes=${size}-`, `bytes=${size + 5}-${size + 10}`, 'bytes=-0']) {
      res = await web(book.original, { headers: { range } });
      expect(res.status, range).toBe(416);
      expect(res.headers.get('content-range'), range).toBe(`bytes */${size}`);
      expect(((await res.json()) as Json).error).toBe('Range not satisfiable');
    }

    // If-Range: the range only while the file is the one named
    res = await web(book.original, { headers: { range: 'bytes=0-9', 'if-range': etag } });
    expect(res.status).toBe(206);
    expect((await res.arrayBuffer()).byteLength).toBe(10);
    res = await web(book.original, { headers: { range: 'bytes=0-9', 'if-range': '"stale"' } });
    expect(res.status).toBe(200);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);

    // revalidation and HEAD
    res = await web(book.original, { headers: { 'if-none-match': etag } });
    expect(res.status).toBe(304);
    res = await web(book.original, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(size));
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect((await res.arrayBuffer()).byteLength).toBe(0);

    // a page image: the same rules
    const whole = new Uint8Array(await (await web(book.page)).arrayBuffer());
    expect(whole.length).toBeGreaterThan(100);
    res = await web(book.page, { headers: { range: 'bytes=10-19' } });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-type')).toBe('image/jpeg');
    expect(res.headers.get('content-range')).toBe(`bytes 10-19/${whole.length}`);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(whole.slice(10, 20));
    res = await web(book.page, { headers: { range: `bytes=${whole.length}-` } });
    expect(res.status).toBe(416);
    expect(res.headers.get('content-range')).toBe(`bytes */${whole.length}`);
  });

  it('keeps workspaces apart: another workspace cannot edit or delete a flipbook', async () => {
    const { flipbookId } = await createFlipbook(fx.c, { title: 'Ours' });
    const other = await fx.newWorkspace(`others-${kind}`);
    const theirs = client(fx.api, other.key);
    expectError(
      await theirs.patch(`/flipbooks/${flipbookId}`, { title: 'Theirs' }),
      404,
      /^Flipbook not found$/,
    );
    expectError(await theirs.del(`/flipbooks/${flipbookId}`), 404, /^Flipbook not found$/);
    const shown = await fx.c.flipbook(flipbookId);
    expectJson(shown, 200);
    expect(shown.body.title).toBe('Ours');
  });

  it('deletes a flipbook: 200, then every request about it and its files 404, its blobs gone, its events kept', async () => {
    const book = await processed({ title: 'Doomed', slug: 'doomed' }, OWN_PDF);
    const sum = sha256(corpus(OWN_PDF));
    expect(await hasPages(book.versionId)).toBe(true);
    expect(await hasOriginal(sum)).toBe(true);
    const url = (await fx.c.flipbook(book.flipbookId)).body.url as string;

    const deleted = await fx.c.del(`/flipbooks/${book.flipbookId}`);
    expectJson(deleted, 200);
    expect(deleted.body).toEqual({ success: true });

    const id = book.flipbookId;
    const notFound = /^Flipbook not found$/;
    expectError(await fx.c.flipbook(id), 404, notFound);
    expectError(await patch(id, { title: 'Back?' }), 404, notFound);
    expectError(await fx.c.del(`/flipbooks/${id}`), 404, notFound);
    expectError(await fx.c.addVersion(id), 404, notFound);
    expectError(await fx.c.status(id, book.versionId), 404);
    expectError(await fx.c.activate(id, book.versionId), 404);
    expectError(await fx.c.remove(id, book.versionId), 404);
    // every URL of it is a 404, its trail and its past included (the events stay: see below)
    expectError(await fx.c.get(`/flipbooks/${id}/events`), 404, notFound);
    expectError(await fx.c.get(`/flipbooks/${id}?at=${new Date().toISOString()}`), 404, notFound);
    expect((await fx.c.list('per_page=100')).body.flipbooks.map((f: Json) => f.id)).not.toContain(
      id,
    );
    expect((await appFetch(url)).status).toBe(404);
    expect((await web('/w/acme/doomed')).status).toBe(404);
    for (const path of [book.page, book.text, book.original]) {
      expect((await web(path)).status, path).toBe(404);
    }
    expect(await hasPages(book.versionId)).toBe(false);
    expect(await hasOriginal(sum)).toBe(false);
    // the slug is free again
    expectJson(await fx.c.create(pdf(SMALL_PDF), { slug: 'doomed' }), 201);

    const trail = (await fx.eventsOf(id)) as Json[];
    expect(trail[0].type).toBe('FlipbookCreated');
    expect(trail.map((e) => e.type)).toContain('VersionProcessed');
    const last = trail.at(-1);
    expect(last.type).toBe('FlipbookDeleted');
    expect(last.metadata.actor.type).toBe('api_key');
  });

  it('keeps an original another flipbook still uses, until that one goes too', async () => {
    const one = await processed({ title: 'Shared one' }, SHARED_PDF);
    const two = await processed({ title: 'Shared two' }, SHARED_PDF);
    const sum = sha256(corpus(SHARED_PDF));
    expectJson(await fx.c.del(`/flipbooks/${one.flipbookId}`), 200);
    expect(await hasPages(one.versionId)).toBe(false);
    expect(await hasPages(two.versionId)).toBe(true);
    expect((await web(one.original)).status).toBe(404);
    const kept = await web(two.original);
    expect(kept.status).toBe(200);
    expect(new Uint8Array(await kept.arrayBuffer())).toEqual(corpus(SHARED_PDF));
    expect(await hasOriginal(sum)).toBe(true);
    // (the range test's flipbook uses these bytes too; delete every user of them)
    const users = (await fx.c.list('per_page=100')).body.flipbooks.filter((f: Json) =>
      ['Shared two', 'Ranges'].includes(f.title),
    );
    for (const f of users) expectJson(await fx.c.del(`/flipbooks/${f.id}`), 200);
    expect(await hasOriginal(sum)).toBe(false);
  });

  it('frees a place in the plan: a free workspace at its 10-flipbook limit can create again after a delete', async () => {
    const free = await fx.newWorkspace(`free-${kind}`, 'free');
    const theirs = client(fx.api, free.key);
    const ids: string[] = [];
    for (let i = 0; i < 10; i++)
      ids.push((await createFlipbook(theirs, { title: `F${i}` })).flipbookId);
    expectError(
      await theirs.create(pdf(SMALL_PDF)),
      422,
      /^Flipbook limit reached: the free plan allows 10 flipbooks$/,
    );
    expectJson(await theirs.del(`/flipbooks/${ids[3]}`), 200);
    expectJson(await theirs.create(pdf(SMALL_PDF), { title: 'Again' }), 201);
    expectError(await theirs.create(pdf(SMALL_PDF)), 422, /^Flipbook limit reached/);
  }, 120_000);

  it('stops a running render when its flipbook is deleted; the app goes on', async () => {
    const { flipbookId, versionId } = await createFlipbook(fx.c, { title: 'Long' }, pdf(LONG_PDF));
    // processing, some pages written, most still to come (184 pages)
    await waitFor(
      'the render to be under way',
      async () =>
        (await hasPages(versionId)) &&
        (await fx.c.status(flipbookId, versionId)).body.status === 'processing',
    );
    expectJson(await fx.c.del(`/flipbooks/${flipbookId}`), 200);

    // the worker is free again: the next upload is processed to the end
    const next = await createFlipbook(fx.c, { title: 'Next' });
    await waitActive(fx.c, next.flipbookId, next.versionId);
    expect((await appFetch(`${fx.base}/healthz`)).status).toBe(200);
    // nothing of the stopped render was left behind or recorded after the deletion
    await waitFor('the stopped render to leave no files', async () => !(await hasPages(versionId)));
    const trail = await fx.eventsOf(flipbookId);
    expect(trail.at(-1)?.type).toBe('FlipbookDeleted');
    expect(trail.map((e) => e.type)).not.toContain('VersionProcessed');
  }, 180_000);
});
