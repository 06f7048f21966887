// The Client API v1, black box: the whole app in process (test/support/appSpec.ts) on both stores
// (the embedded one with its blobs in a folder, PostgreSQL with a bucket), checked against
// ../shared/spec/client-api-v1.md (paths, fields, status codes and error texts).
// No processing here: a version is moved to `done` through the store directly.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey, revokeApiKey } from '../../src/app/apiKeys.ts';
import type { Store } from '../../src/store/store.ts';
import {
  addVersion,
  type Client,
  client,
  corpus,
  createFlipbook,
  expectError,
  expectJson,
  type Json,
  markDone,
  pdf,
  SMALL_PDF,
  send,
  UUID_RE,
  unknownKey,
} from '../support/apiHelpers.ts';
import { type AppUnderTest, startApp } from '../support/appSpec.ts';
import { storedKeys } from '../support/blobPlace.ts';
import { appFetch } from '../support/inProcess.ts';
import { TEST_METADATA } from '../support/metadata.ts';
import { STORE_KINDS } from '../support/stores.ts';

// The spec's keys, plus the additions docs/api.md lists under "Beyond the spec".
const FLIPBOOK_KEYS = [
  'allow_download',
  'availability',
  'created_at',
  'description',
  'direction',
  'embed_origins',
  'id',
  'slug',
  'status',
  'title',
  'updated_at',
  'url',
  'versions',
  'visibility',
];
const VERSION_KEYS = [
  'activate_on_done',
  'created_at',
  'file_name',
  'file_size',
  'file_type',
  'height',
  'id',
  'is_active',
  'mime_type',
  'status',
  'version',
  'width',
];
const PAGE_KEYS = ['height', 'id', 'img_max', 'img_mid', 'img_min', 'position', 'width'];
const STATUS_KEYS = [
  'file_name',
  'file_size',
  'is_active',
  'pages',
  'pages_done', // beyond the spec: progress
  'status',
  'step', // beyond the spec: which part of processing
  'version',
  'version_id',
];

const sortedKeys = (o: Json) => Object.keys(o).sort();
const nowUnix = () => Date.now() / 1000;
const text = (body: string, name = 'notes.txt', type = 'text/plain') => ({
  bytes: new TextEncoder().encode(body),
  name,
  type,
});

describe.each(STORE_KINDS)('Client API v1 on the %s store', (kind) => {
  let fx: AppUnderTest;
  let store: Store;
  let acme: Client;
  let globex: Client;
  // A key that expires an hour after the start; the clock is moved past it near the end.
  let expiring: { key: string; expiresAt: number; statusBefore: number };

  beforeAll(async () => {
    // The main suite makes far more than 120 requests a minute: no rate limit here.
    // (on the postgres store, the blobs are in a bucket: the suite runs on both blob stores)
    fx = await startApp({ store: kind, blobs: kind === 'postgres' ? 's3' : 'dir', rateLimit: 0 });
    acme = client(fx.api, fx.key);
    const expiresAt = fx.clock.now().getTime() + 3_600_000;
    const issued = await issueApiKey(
      fx.store,
      { workspace: 'acme', expires: new Date(expiresAt).toISOString() },
      TEST_METADATA,
      fx.clock.now(),
    );
    const before = (await client(fx.api, issued.key).list()).status;
    expiring = { key: issued.key, expiresAt, statusBefore: before };
    store = fx.store;
    globex = client(fx.api, (await fx.newWorkspace('globex')).key);
  });

  afterAll(async () => {
    await fx?.stop();
  });

  describe('POST /flipbooks', () => {
    it('creates a flipbook: 201 with ids, pending status, file size, estimate and time', async () => {
      const before = nowUnix();
      const reply = await acme.create(pdf('vec_tracemonkey.pdf'), { title: 'TraceMonkey paper' });
      expectJson(reply, 201);
      expect(sortedKeys(reply.body)).toEqual([
        'created_at_unix',
        'estimated_seconds',
        'file_size',
        'flipbook_id',
        'status',
        'title',
        'version_id',
      ]);
      const body = reply.body;
      expect(body.flipbook_id).toMatch(UUID_RE);
      expect(body.version_id).toMatch(UUID_RE);
      expect(body.version_id).not.toBe(body.flipbook_id);
      expect(body.title).toBe('TraceMonkey paper');
      expect(body.status).toBe('pending');
      expect(body.file_size).toBe(corpus('vec_tracemonkey.pdf').byteLength);
      expect(typeof body.estimated_seconds).toBe('number');
      expect(Number.isFinite(body.estimated_seconds)).toBe(true);
      expect(body.estimated_seconds).toBeGreaterThan(0);
      expect(Number.isInteger(body.created_at_unix)).toBe(true);
      expect(body.created_at_unix).toBeGreaterThanOrEqual(Math.floor(before) - 1);
      expect(body.created_at_unix).toBeLessThanOrEqual(Math.ceil(nowUnix()) + 1);

      // The new flipbook: one pending version, not active yet, so no pages.
      const got = await acme.flipbook(body.flipbook_id);
      expectJson(got, 200);
      expect(got.body).toMatchObject({
        id: body.flipbook_id,
        title: 'TraceMonkey paper',
        status: 'published',
        pages: [],
      });
      expect(got.body.versions).toHaveLength(1);
      expect(got.body.versions[0]).toMatchObject({
        id: body.version_id,
        version: 1,
        status: 'pending',
        is_active: false,
        activate_on_done: true,
        file_name: 'vec_tracemonkey.pdf',
        file_size: corpus('vec_tracemonkey.pdf').byteLength,
      });
    });

    it('defaults the title to the file name, and keeps a Unicode file name intact', async () => {
      const name = 'Ünïcødé ✓ 東京.pdf';
      const reply = await acme.create(pdf(SMALL_PDF, name));
      expectJson(reply, 201);
      expect(reply.body.title).toBe(name);
      const { flipbook_id: id, version_id: vid } = reply.body;

      const got = await acme.flipbook(id);
      expect(got.body.title).toBe(name);
      expect(got.body.versions[0].file_name).toBe(name);
      const status = await acme.status(id, vid);
      expectJson(status, 200);
      expect(status.body.file_name).toBe(name);

      const plain = await acme.create(pdf(SMALL_PDF, 'brochure.pdf'));
      expect(plain.body.title).toBe('brochure.pdf');
      const titled = await acme.create(pdf(SMALL_PDF), { title: 'Café — Ωmega' });
      expect(titled.body.title).toBe('Café — Ωmega');
      expect((await acme.flipbook(titled.body.flipbook_id)).body.title).toBe('Café — Ωmega');
    });
  });

  describe('GET /flipbooks/:id', () => {
    it('returns every version newest first and the pages of the active version', async () => {
      const { flipbookId, versionId: v1 } = await createFlipbook(acme, { title: 'Full' });
      await markDone(store, flipbookId, v1, 3);
      const v2 = await addVersion(acme, flipbookId, { activate: 'false' });
      const v3 = await addVersion(acme, flipbookId, {}, pdf('vec_tracemonkey.pdf'));

      const reply = await acme.flipbook(flipbookId);
      expectJson(reply, 200);
      const book = reply.body;
      expect(sortedKeys(book)).toEqual([...FLIPBOOK_KEYS, 'pages'].sort());
      expect(book.id).toBe(flipbookId);
      expect(book.title).toBe('Full');
      expect(typeof book.slug).toBe('string');
      expect(typeof book.description).toBe('string');
      expect(book.status).toBe('published');
      expect(book.url.startsWith(`${fx.base}/`)).toBe(true);
      expect(Number.isNaN(Date.parse(book.created_at))).toBe(false);
      expect(Number.isNaN(Date.parse(book.updated_at))).toBe(false);

      expect(book.versions.map((v: Json) => v.id)).toEqual([v3, v2, v1]);
      expect(book.versions.map((v: Json) => v.version)).toEqual([3, 2, 1]);
      for (const v of book.versions) {
        expect(sortedKeys(v)).toEqual(VERSION_KEYS);
        expect(typeof v.file_type).toBe('string');
        expect(typeof v.mime_type).toBe('string');
        expect(Number.isNaN(Date.parse(v.created_at))).toBe(false);
      }
      expect(book.versions[2]).toMatchObject({
        status: 'done',
        is_active: true,
        width: 612,
        height: 792,
        file_name: SMALL_PDF,
        file_size: corpus(SMALL_PDF).byteLength,
      });
      expect(book.versions[1]).toMatchObject({
        status: 'pending',
        is_active: false,
        activate_on_done: false,
      });
      expect(book.versions[0]).toMatchObject({
        status: 'pending',
        is_active: false,
        activate_on_done: true,
        file_name: 'vec_tracemonkey.pdf',
        file_size: corpus('vec_tracemonkey.pdf').byteLength,
      });

      expect(book.pages).toHaveLength(3);
      expect(book.pages.map((p: Json) => p.position)).toEqual([1, 2, 3]);
      const urls = new Set<string>();
      for (const page of book.pages) {
        expect(sortedKeys(page)).toEqual(PAGE_KEYS);
        expect(page.id).toMatch(UUID_RE);
        expect(page).toMatchObject({ width: 612, height: 792 });
        for (const size of ['img_max', 'img_mid', 'img_min']) {
          expect(page[size].startsWith(`${fx.base}/`)).toBe(true);
          urls.add(page[size]);
        }
      }
      expect(urls.size).toBe(9); // every rendition of every page has its own URL
    });

    it('accepts an upper-case UUID', async () => {
      const { flipbookId } = await createFlipbook(acme);
      const reply = await acme.flipbook(flipbookId.toUpperCase());
      expectJson(reply, 200);
      expect(reply.body.id).toBe(flipbookId);
    });

    it('404 Flipbook not found for an unknown id, 400 Invalid flipbook ID for a bad one', async () => {
      expectJson(await acme.flipbook(randomUUID()), 404, 'Flipbook not found');
      expectJson(await acme.flipbook('not-a-uuid'), 400, 'Invalid flipbook ID');
    });
  });

  describe('POST /flipbooks/:id/versions', () => {
    it('creates versions numbered 1, 2, 3 in order: 201 with the spec fields', async () => {
      const { flipbookId, versionId: v1 } = await createFlipbook(acme);
      const before = nowUnix();
      const reply = await acme.addVersion(flipbookId, pdf('vec_tracemonkey.pdf'));
      expectJson(reply, 201);
      expect(sortedKeys(reply.body)).toEqual([
        'activate_on_done',
        'created_at_unix',
        'estimated_seconds',
        'file_size',
        'version_id',
        'version_status',
      ]);
      expect(reply.body.version_id).toMatch(UUID_RE);
      expect(reply.body.version_status).toBe('pending');
      expect(reply.body.activate_on_done).toBe(true); // the default
      expect(reply.body.file_size).toBe(corpus('vec_tracemonkey.pdf').byteLength);
      expect(typeof reply.body.estimated_seconds).toBe('number');
      expect(reply.body.estimated_seconds).toBeGreaterThan(0);
      expect(Number.isInteger(reply.body.created_at_unix)).toBe(true);
      expect(reply.body.created_at_unix).toBeGreaterThanOrEqual(Math.floor(before) - 1);
      expect(reply.body.created_at_unix).toBeLessThanOrEqual(Math.ceil(nowUnix()) + 1);
      const v2 = reply.body.version_id;
      const v3 = await addVersion(acme, flipbookId);

      for (const [vid, number] of [
        [v1, 1],
        [v2, 2],
        [v3, 3],
      ] as const) {
        const status = await acme.status(flipbookId, vid);
        expectJson(status, 200);
        expect(status.body.version).toBe(number);
      }
    });

    it('reads the activate field in every accepted spelling, and refuses another', async () => {
      const { flipbookId } = await createFlipbook(acme);
      const spellings: [string, boolean][] = [
        ['true', true],
        ['TRUE', true],
        ['1', true],
        ['yes', true],
        ['Yes', true],
        ['on', true],
        ['ON', true],
        ['false', false],
        ['False', false],
        ['0', false],
        ['no', false],
        ['NO', false],
        ['off', false],
        ['Off', false],
      ];
      const expected = new Map<string, boolean>();
      for (const [spelling, value] of spellings) {
        const reply = await acme.addVersion(flipbookId, pdf(SMALL_PDF), { activate: spelling });
        expectJson(reply, 201);
        expect(reply.body.activate_on_done, `activate=${spelling}`).toBe(value);
        expected.set(reply.body.version_id, value);
      }
      const book = (await acme.flipbook(flipbookId)).body;
      for (const v of book.versions) {
        if (expected.has(v.id)) expect(v.activate_on_done).toBe(expected.get(v.id));
      }

      const refused = await acme.addVersion(flipbookId, pdf(SMALL_PDF), { activate: 'maybe' });
      expectError(refused, 400, /activate/);
      expect((await acme.flipbook(flipbookId)).body.versions).toHaveLength(spellings.length + 1);
    });

    it('numbers versions uploaded in parallel without gaps or repeats', async () => {
      const { flipbookId } = await createFlipbook(acme);
      const replies = await Promise.all(
        Array.from({ length: 5 }, () => acme.addVersion(flipbookId, pdf(SMALL_PDF))),
      );
      for (const reply of replies) expectJson(reply, 201);
      const book = (await acme.flipbook(flipbookId)).body;
      expect(book.versions.map((v: Json) => v.version)).toEqual([6, 5, 4, 3, 2, 1]);
      expect(new Set(book.versions.map((v: Json) => v.id)).size).toBe(6);
    });

    it('404 for an unknown flipbook, 400 Invalid flipbook ID for a bad one', async () => {
      expectJson(await acme.addVersion(randomUUID()), 404, 'Flipbook not found');
      expectJson(await acme.addVersion('nope'), 400, 'Invalid flipbook ID');
    });
  });

  describe('activate, status and delete', () => {
    it('status: the spec fields; pages 0 while pending, the page count once done', async () => {
      const { flipbookId, versionId } = await createFlipbook(acme, {}, pdf(SMALL_PDF, 'a.pdf'));
      const pending = await acme.status(flipbookId, versionId);
      expectJson(pending, 200);
      expect(sortedKeys(pending.body)).toEqual(STATUS_KEYS);
      expect(pending.body).toEqual({
        version_id: versionId,
        status: 'pending',
        is_active: false,
        version: 1,
        pages: 0,
        pages_done: 0,
        file_name: 'a.pdf',
        file_size: corpus(SMALL_PDF).byteLength,
        step: 'waiting',
      });

      await markDone(store, flipbookId, versionId, 3);
      const done = await acme.status(flipbookId, versionId);
      expectJson(done, 200);
      expect(done.body).toMatchObject({
        status: 'done',
        is_active: true,
        pages: 3,
        pages_done: 3,
        version: 1,
      });
      expect(done.body.step).toBe('finished');
    });

    it('activate: 200 with the new active version, the previous one deactivated', async () => {
      const { flipbookId, versionId: v1 } = await createFlipbook(acme);
      await markDone(store, flipbookId, v1, 2);
      const v2 = await addVersion(acme, flipbookId, { activate: 'false' });
      await markDone(store, flipbookId, v2, 5);
      // activate_on_done false: done, but v1 stays active
      expect((await acme.status(flipbookId, v2)).body).toMatchObject({
        status: 'done',
        is_active: false,
      });
      expect((await acme.status(flipbookId, v1)).body.is_active).toBe(true);

      const reply = await acme.activate(flipbookId, v2);
      expectJson(reply, 200);
      expect(reply.body).toEqual({ success: true, active_version_id: v2 });
      const book = (await acme.flipbook(flipbookId)).body;
      expect(book.versions.map((v: Json) => [v.id, v.is_active])).toEqual([
        [v2, true],
        [v1, false],
      ]);
      expect(book.pages).toHaveLength(5); // the pages of v2 now

      // A version uploaded with activate on (the default) takes over once it is done.
      const v3 = await addVersion(acme, flipbookId);
      expect((await acme.status(flipbookId, v3)).body.is_active).toBe(false);
      await markDone(store, flipbookId, v3, 4);
      expect((await acme.status(flipbookId, v3)).body.is_active).toBe(true);
      expect((await acme.status(flipbookId, v2)).body.is_active).toBe(false);
      expect((await acme.flipbook(flipbookId)).body.pages).toHaveLength(4);
    });

    it('activate: 422 for a version still pending, nothing changes', async () => {
      const { flipbookId, versionId: v1 } = await createFlipbook(acme);
      await markDone(store, flipbookId, v1, 2);
      const v2 = await addVersion(acme, flipbookId, { activate: 'no' });
      expectError(await acme.activate(flipbookId, v2), 422);
      expect((await acme.status(flipbookId, v2)).body).toMatchObject({
        status: 'pending',
        is_active: false,
      });
      expect((await acme.status(flipbookId, v1)).body.is_active).toBe(true);
    });

    it('delete: 200 {"success": true} for an inactive version, 422 for the active one', async () => {
      const { flipbookId, versionId: v1 } = await createFlipbook(acme);
      await markDone(store, flipbookId, v1, 2);
      const v2 = await addVersion(acme, flipbookId, { activate: 'false' });
      await markDone(store, flipbookId, v2, 2);
      const v3 = await addVersion(acme, flipbookId, { activate: 'false' }); // pending, inactive

      const removed = await acme.remove(flipbookId, v2);
      expectJson(removed, 200);
      expect(removed.body).toEqual({ success: true });
      expectJson(await acme.status(flipbookId, v2), 404, 'Version not found');
      expectJson(await acme.remove(flipbookId, v3), 200);
      expect(removed.text.replace(/\s/g, '')).toBe('{"success":true}');

      expectError(await acme.remove(flipbookId, v1), 422);
      const book = (await acme.flipbook(flipbookId)).body;
      expect(book.versions.map((v: Json) => [v.id, v.is_active])).toEqual([[v1, true]]);
      expect(book.pages).toHaveLength(2);
    });

    it('concurrent activations leave exactly one active version', async () => {
      const { flipbookId, versionId: v1 } = await createFlipbook(acme);
      await markDone(store, flipbookId, v1, 1);
      const versions = [v1];
      for (let i = 0; i < 4; i++)
        versions.push(await addVersion(acme, flipbookId, { activate: '0' }));
      // version i has i+1 pages, so the pages shown tell which version they belong to
      for (const [i, vid] of versions.entries())
        if (i > 0) await markDone(store, flipbookId, vid, i + 1);

      for (let round = 0; round < 2; round++) {
        const replies = await Promise.all(versions.map((vid) => acme.activate(flipbookId, vid)));
        for (const [i, reply] of replies.entries()) {
          expectJson(reply, 200);
          expect(reply.body).toEqual({ success: true, active_version_id: versions[i] });
        }
        const book = (await acme.flipbook(flipbookId)).body;
        const active = book.versions.filter((v: Json) => v.is_active);
        expect(active).toHaveLength(1);
        const index = versions.indexOf(active[0].id);
        expect(book.pages).toHaveLength(index + 1);
        const listed = (
          await acme.list(new URLSearchParams({ search: book.title, per_page: '100' }).toString())
        ).body.flipbooks.find((f: Json) => f.id === flipbookId);
        expect(listed.versions.map((v: Json) => v.id)).toEqual([active[0].id]);
      }
    });

    it('404 Version not found for an unknown version or one of another flipbook', async () => {
      const a = await createFlipbook(acme);
      const b = await createFlipbook(acme);
      expectJson(await acme.status(a.flipbookId, randomUUID()), 404, 'Version not found');
      expectJson(await acme.status(randomUUID(), randomUUID()), 404, 'Version not found');
      expectJson(await acme.status(a.flipbookId, b.versionId), 404, 'Version not found');
      expectError(await acme.activate(a.flipbookId, randomUUID()), 404);
      expectError(await acme.activate(a.flipbookId, b.versionId), 404);
      expectError(await acme.remove(a.flipbookId, randomUUID()), 404);
      expectError(await acme.remove(a.flipbookId, b.versionId), 404);
      // b's version is untouched
      expect((await acme.status(b.flipbookId, b.versionId)).status).toBe(200);
    });
  });

  describe('GET /flipbooks (list)', () => {
    let lister: Client;
    const ids = new Map<string, string>();
    let alphaV1: string;

    beforeAll(async () => {
      lister = client(fx.api, (await fx.newWorkspace('lister')).key);
      for (const title of [
        'Charlie sortme',
        'Alpha sortme',
        'delta sortme',
        'bravo sortme',
        '100% done',
        '1000 done',
        'a_b',
        'axb',
      ]) {
        ids.set(title, (await createFlipbook(lister, { title })).flipbookId);
        fx.clock.advance(1000); // distinct creation times
      }
      const alpha = ids.get('Alpha sortme') ?? '';
      alphaV1 = (await lister.flipbook(alpha)).body.versions[0].id;
      await markDone(store, alpha, alphaV1, 2);
      await addVersion(lister, alpha); // pending: not in the list
      fx.clock.advance(1000);
      await addVersion(lister, ids.get('Charlie sortme') ?? ''); // the most recently updated
    });

    const titles = (reply: Json) => reply.body.flipbooks.map((f: Json) => f.title);
    const list = (params: Record<string, string>) =>
      lister.list(new URLSearchParams(params).toString());

    it('lists with defaults: paging fields, the active version only, no pages', async () => {
      const reply = await lister.list();
      expectJson(reply, 200);
      expect(sortedKeys(reply.body)).toEqual(['flipbooks', 'page', 'per_page', 'total_pages']);
      expect(reply.body).toMatchObject({ page: 1, per_page: 20, total_pages: 1 });
      expect(reply.body.flipbooks).toHaveLength(8);
      for (const item of reply.body.flipbooks) {
        expect(sortedKeys(item)).toEqual(FLIPBOOK_KEYS);
        expect(item).not.toHaveProperty('pages');
        expect(item.url.startsWith(`${fx.base}/`)).toBe(true);
      }
      const alpha = reply.body.flipbooks.find((f: Json) => f.title === 'Alpha sortme');
      expect(alpha.versions).toHaveLength(1);
      expect(sortedKeys(alpha.versions[0])).toEqual(VERSION_KEYS);
      expect(alpha.versions[0]).toMatchObject({ id: alphaV1, is_active: true, version: 1 });
      const charlie = reply.body.flipbooks.find((f: Json) => f.title === 'Charlie sortme');
      expect(charlie.versions).toEqual([]); // two versions, none active
    });

    it('pages through the list', async () => {
      const seen: string[] = [];
      for (const [page, count] of [
        [1, 3],
        [2, 3],
        [3, 2],
      ] as const) {
        const reply = await list({ page: String(page), per_page: '3' });
        expectJson(reply, 200);
        expect(reply.body).toMatchObject({ page, per_page: 3, total_pages: 3 });
        expect(reply.body.flipbooks).toHaveLength(count);
        seen.push(...reply.body.flipbooks.map((f: Json) => f.id));
      }
      expect(new Set(seen)).toEqual(new Set(ids.values()));
      const past = await list({ page: '4', per_page: '3' });
      expectJson(past, 200);
      expect(past.body.flipbooks).toEqual([]);
      expect(past.body.total_pages).toBe(3);
      expect((await list({ per_page: '1' })).body).toMatchObject({ per_page: 1, total_pages: 8 });
      expect((await list({ per_page: '100' })).body.flipbooks).toHaveLength(8);
    });

    it('refuses out-of-range or non-integer page and per_page with a 400 naming them', async () => {
      for (const value of ['0', '101', 'abc', '1.5', '-1']) {
        expectError(await list({ per_page: value }), 400, /per_page/);
      }
      for (const value of ['0', 'abc', '1.5', '-1']) {
        const reply = await list({ page: value });
        expectError(reply, 400, /\bpage\b/);
        expect(reply.body.error).not.toMatch(/per_page/);
      }
    });

    it('searches titles case-insensitively, with % and _ taken literally', async () => {
      expect(titles(await list({ search: 'SORTME' })).sort()).toEqual(
        ['Alpha sortme', 'Charlie sortme', 'bravo sortme', 'delta sortme'].sort(),
      );
      expect(titles(await list({ search: 'aLpHa' }))).toEqual(['Alpha sortme']);
      expect(titles(await list({ search: '100%' }))).toEqual(['100% done']);
      expect(titles(await list({ search: '%' }))).toEqual(['100% done']);
      expect(titles(await list({ search: 'a_b' }))).toEqual(['a_b']);
      expect(titles(await list({ search: '_' }))).toEqual(['a_b']);
      expect(titles(await list({ search: '1000' }))).toEqual(['1000 done']);
      const none = await list({ search: 'no such title' });
      expectJson(none, 200);
      expect(none.body.flipbooks).toEqual([]);
    });

    it('filters by status', async () => {
      expect((await list({ status: 'published' })).body.flipbooks).toHaveLength(8);
      const archived = await list({ status: 'archived' });
      expectJson(archived, 200);
      expect(archived.body.flipbooks).toEqual([]);
      expectError(await list({ status: 'bogus' }), 400, /status/);
    });

    it('sorts by created_at (default, desc), updated_at and title, in both directions', async () => {
      const sorted = async (params: Record<string, string>) => {
        const reply = await list({ search: 'sortme', ...params });
        expectJson(reply, 200);
        return titles(reply);
      };
      const created = ['Charlie sortme', 'Alpha sortme', 'delta sortme', 'bravo sortme'];
      const updated = ['delta sortme', 'bravo sortme', 'Alpha sortme', 'Charlie sortme'];
      const byTitle = ['Alpha sortme', 'bravo sortme', 'Charlie sortme', 'delta sortme'];
      expect(await sorted({})).toEqual([...created].reverse());
      expect(await sorted({ sort: 'created_at' })).toEqual([...created].reverse());
      expect(await sorted({ dir: 'asc' })).toEqual(created);
      expect(await sorted({ sort: 'created_at', dir: 'asc' })).toEqual(created);
      expect(await sorted({ sort: 'created_at', dir: 'desc' })).toEqual([...created].reverse());
      expect(await sorted({ sort: 'updated_at', dir: 'asc' })).toEqual(updated);
      expect(await sorted({ sort: 'updated_at', dir: 'desc' })).toEqual([...updated].reverse());
      expect(await sorted({ sort: 'title', dir: 'asc' })).toEqual(byTitle);
      expect(await sorted({ sort: 'title', dir: 'desc' })).toEqual([...byTitle].reverse());
    });

    it('refuses an unknown sort or dir with a 400 naming it', async () => {
      expectError(await list({ sort: 'size' }), 400, /sort/);
      expectError(await list({ sort: 'title; DROP TABLE flipbooks' }), 400, /sort/);
      expectError(await list({ dir: 'sideways' }), 400, /dir/);
      expect((await lister.list()).body.flipbooks).toHaveLength(8);
    });
  });

  describe('authentication', () => {
    it('401 Unauthorized without a key, on every endpoint', async () => {
      const { flipbookId, versionId } = await createFlipbook(acme);
      const anon = client(fx.api, null);
      const replies = [
        await anon.list(),
        await anon.flipbook(flipbookId),
        await anon.create(pdf(SMALL_PDF), { title: 'anonymous upload' }),
        await anon.addVersion(flipbookId),
        await anon.activate(flipbookId, versionId),
        await anon.status(flipbookId, versionId),
        await anon.remove(flipbookId, versionId),
      ];
      for (const reply of replies) expectJson(reply, 401, 'Unauthorized');
      expect((await acme.flipbook(flipbookId)).body.versions).toHaveLength(1);
      const search = await acme.list('search=anonymous+upload');
      expect(search.body.flipbooks).toEqual([]);
    });

    it('401 for malformed keys and well-formed keys nobody issued', async () => {
      const malformed: Record<string, string>[] = [
        { authorization: 'Bearer' },
        { authorization: 'Bearer ' },
        { authorization: 'Bearer not-a-key' },
        { authorization: `Bearer ${fx.key}0` },
        { authorization: `Bearer ${fx.key.slice(0, -1)}` },
        { authorization: `Bearer ${fx.key.replace('svc_', 'sk_')}` },
        { authorization: `Basic ${Buffer.from(`x:${fx.key}`).toString('base64')}` },
        { authorization: fx.key },
        { 'x-api-key': 'garbage' },
        { 'x-api-key': '' },
        { 'x-api-key': `${fx.key}x` },
        { authorization: `Bearer ${unknownKey()}` },
        { 'x-api-key': unknownKey() },
      ];
      for (const headers of malformed) {
        const reply = await send(`${fx.api}/flipbooks`, { headers });
        expect(reply.status, JSON.stringify(headers)).toBe(401);
        expectJson(reply, 401, 'Unauthorized');
      }
    });

    it('accepts Bearer and X-Api-Key; Authorization wins when both are sent', async () => {
      expectJson(await client(fx.api, { bearer: fx.key }).list(), 200);
      expectJson(await client(fx.api, { apiKey: fx.key }).list(), 200);
      expectJson(
        await client(fx.api, { headers: { authorization: `bearer ${fx.key}` } }).list(),
        200,
      );
      const both = (authorization: string, apiKey: string) =>
        client(fx.api, { headers: { authorization, 'x-api-key': apiKey } }).list();
      expectJson(await both(`Bearer ${fx.key}`, 'garbage'), 200);
      expectJson(await both(`Bearer ${fx.key}`, unknownKey()), 200);
      expectJson(await both('Bearer garbage', fx.key), 401, 'Unauthorized');
      expectJson(await both(`Bearer ${unknownKey()}`, fx.key), 401, 'Unauthorized');
    });

    it('401 for a revoked key', async () => {
      const { id, key } = await issueApiKey(
        fx.store,
        { workspace: 'acme' },
        TEST_METADATA,
        fx.clock.now(),
      );
      expectJson(await client(fx.api, key).list(), 200);
      await revokeApiKey(fx.store, { keyId: id }, TEST_METADATA, fx.clock.now());
      expectJson(await client(fx.api, key).list(), 401, 'Unauthorized');
      expectJson(await client(fx.api, { apiKey: key }).list(), 401, 'Unauthorized');
    });

    it('401 for an expired key', async () => {
      expect(expiring.statusBefore).toBe(200);
      fx.clock.advance(expiring.expiresAt - fx.clock.now().getTime() + 1000);
      expectJson(await client(fx.api, expiring.key).list(), 401, 'Unauthorized');
      expectJson(await client(fx.api, { apiKey: expiring.key }).list(), 401, 'Unauthorized');
    });
  });

  describe('workspace isolation', () => {
    it("another workspace's key finds nothing of acme's and changes nothing", async () => {
      const title = `Isolated ${randomUUID()}`;
      const { flipbookId, versionId: v1 } = await createFlipbook(acme, { title });
      await markDone(store, flipbookId, v1, 2);
      const v2 = await addVersion(acme, flipbookId, { activate: 'false' });
      await markDone(store, flipbookId, v2, 2);

      expectJson(await globex.flipbook(flipbookId), 404, 'Flipbook not found');
      expectJson(await globex.addVersion(flipbookId), 404, 'Flipbook not found');
      expectError(await globex.activate(flipbookId, v2), 404);
      expectJson(await globex.status(flipbookId, v1), 404, 'Version not found');
      expectError(await globex.remove(flipbookId, v2), 404);

      const all = await globex.list('per_page=100');
      expectJson(all, 200);
      expect(all.body.flipbooks.map((f: Json) => f.id)).not.toContain(flipbookId);
      const search = await globex.list(new URLSearchParams({ search: title }).toString());
      expect(search.body.flipbooks).toEqual([]);

      const book = (await acme.flipbook(flipbookId)).body;
      expect(book.versions.map((v: Json) => [v.id, v.is_active])).toEqual([
        [v2, false],
        [v1, true],
      ]);
      const own = await acme.list(new URLSearchParams({ search: title }).toString());
      expect(own.body.flipbooks.map((f: Json) => f.id)).toEqual([flipbookId]);
    });
  });

  describe('input errors', () => {
    it('400 Invalid flipbook ID / Invalid IDs for a bad UUID in every path', async () => {
      const { flipbookId, versionId } = await createFlipbook(acme);
      const bad = [
        'not-a-uuid',
        '123',
        flipbookId.replaceAll('-', ''),
        `${flipbookId}0`,
        `g${flipbookId.slice(1)}`,
        `${flipbookId.slice(0, 8)}_${flipbookId.slice(9)}`,
      ];
      for (const id of bad) {
        expectJson(await acme.flipbook(id), 400, 'Invalid flipbook ID');
        expectJson(await acme.addVersion(id), 400, 'Invalid flipbook ID');
        for (const [f, v] of [
          [id, versionId],
          [flipbookId, id],
          [id, id],
        ] as const) {
          expectJson(await acme.activate(f, v), 400, 'Invalid IDs');
          expectJson(await acme.status(f, v), 400, 'Invalid IDs');
          expectJson(await acme.remove(f, v), 400, 'Invalid IDs');
        }
      }
      expect((await acme.flipbook(flipbookId)).body.versions).toHaveLength(1);
    });

    it('400 file is required: no file part, another content type, no body', async () => {
      const { flipbookId } = await createFlipbook(acme);
      const required = 'file is required';
      expectJson(await acme.create(null, { title: 'only a title' }), 400, required);
      expectJson(
        await acme.post('/flipbooks', {
          body: JSON.stringify({ title: 'json' }),
          headers: { 'content-type': 'application/json' },
        }),
        400,
        required,
      );
      expectJson(
        await acme.post('/flipbooks', {
          body: 'title=x',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        }),
        400,
        required,
      );
      expectJson(await acme.post('/flipbooks'), 400, required);
      // the file under another field name is not the file
      const elsewhere = new FormData();
      elsewhere.append(
        'document',
        new Blob([corpus(SMALL_PDF) as Uint8Array<ArrayBuffer>]),
        'x.pdf',
      );
      expectJson(await acme.post('/flipbooks', { body: elsewhere }), 400, required);

      expectJson(await acme.addVersion(flipbookId, null, { activate: 'true' }), 400, required);
      expectJson(
        await acme.post(`/flipbooks/${flipbookId}/versions`, {
          body: '{}',
          headers: { 'content-type': 'application/json' },
        }),
        400,
        required,
      );
      expect((await acme.flipbook(flipbookId)).body.versions).toHaveLength(1);
      expect((await acme.list('search=only+a+title')).body.flipbooks).toEqual([]);
    });

    it('422 for files that are not readable PDFs', async () => {
      const { flipbookId } = await createFlipbook(acme);
      const title = `rejected ${randomUUID()}`;
      const files = [
        text('just some text, not a PDF'),
        text('just some text, not a PDF', 'disguised.pdf', 'application/pdf'),
        pdf('bad_invalid.pdf'),
        { bytes: new Uint8Array(0), name: 'empty.pdf', type: 'application/pdf' },
      ];
      for (const file of files) {
        expectError(await acme.create(file, { title }), 422);
        expectError(await acme.addVersion(flipbookId, file), 422);
      }
      expect(
        (await acme.list(new URLSearchParams({ search: title }).toString())).body.flipbooks,
      ).toEqual([]);
      expect((await acme.flipbook(flipbookId)).body.versions).toHaveLength(1);
      // refused uploads leave no temporary file behind
      expect(await storedKeys(fx.blobPlace, 'tmp')).toEqual([]);
    });

    it.each([
      [
        'a multipart body that does not hold its declared boundary',
        'multipart/form-data; boundary=----xyz',
        'this is not a multipart body at all',
      ],
      [
        'a multipart content type without a boundary',
        'multipart/form-data; charset=utf-8',
        'whatever',
      ],
    ])('400 JSON for %s', async (_, contentType, body) => {
      expectError(
        await acme.post('/flipbooks', { body, headers: { 'content-type': contentType } }),
        400,
      );
      expectJson(await acme.list(), 200); // still answering
    });

    it('unknown routes under /api/v1 are a JSON 404', async () => {
      for (const path of ['/nope', '/flipbooks/x/y/z/w', `/flipbooks/${randomUUID()}/pages`, '']) {
        const reply = await acme.get(path);
        expectError(reply, 404);
      }
    });

    it('a method a path does not have is a JSON 405 naming those it has (Allow)', async () => {
      const id = randomUUID();
      for (const [method, path, allow] of [
        ['PUT', '/flipbooks', 'GET, POST, HEAD'],
        ['POST', `/flipbooks/${id}`, 'GET, PATCH, DELETE, HEAD'],
        ['GET', `/flipbooks/${id}/versions`, 'POST'],
        ['DELETE', '/openapi.json', 'GET, HEAD'],
      ] as const) {
        // (with a key and without: the method is wrong whoever asks)
        for (const headers of [{ authorization: `Bearer ${fx.key}` }, {}]) {
          const res = await appFetch(`${fx.api}${path}`, { method, headers });
          expect(res.status, `${method} ${path}`).toBe(405);
          expect(res.headers.get('allow')).toBe(allow);
          expect(await res.json()).toEqual({ error: `Method not allowed: use ${allow}` });
        }
      }
    });

    it('413 JSON for a body over 10 MB to a non-upload endpoint', async () => {
      const { flipbookId, versionId } = await createFlipbook(acme);
      const path = `/flipbooks/${flipbookId}/versions/${versionId}/activate`;
      const big = new Uint8Array(11 * 1024 * 1024);
      expectError(await acme.post(path, { body: big }), 413);
      // the same without a declared length (chunked)
      let sent = 0;
      const chunk = new Uint8Array(1024 * 1024);
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= 11) return controller.close();
          sent++;
          controller.enqueue(chunk.slice());
        },
      });
      expectError(
        await acme.del(`/flipbooks/${flipbookId}/versions/${versionId}`, {
          body: stream,
          duplex: 'half',
        } as RequestInit),
        413,
      );
      // a body under the limit is read and ignored
      const small = await acme.post(path, { body: new Uint8Array(1024 * 1024) });
      expectError(small, 422); // still pending: cannot be activated
      expectJson(await acme.list(), 200);
    });

    it('answers many requests without a 429 when started with --rate-limit 0', async () => {
      const statuses: number[] = [];
      for (let batch = 0; batch < 13; batch++) {
        const replies = await Promise.all(
          Array.from({ length: 10 }, () => acme.list('per_page=1')),
        );
        statuses.push(...replies.map((r) => r.status));
        for (const r of replies) expect(r.headers.get('retry-after')).toBeNull();
      }
      expect(statuses).toHaveLength(130);
      expect(statuses.filter((s) => s !== 200)).toEqual([]);
    });
  });

  describe('plan limits (free workspace)', () => {
    let hobby: Client;
    beforeAll(async () => {
      hobby = client(fx.api, (await fx.newWorkspace('hobby', 'free')).key);
    });

    it('422 naming the page limit for a 352-page PDF', async () => {
      const reply = await hobby.create(pdf('text_freeculture.pdf'));
      expectError(reply, 422, /200 pages/);
      expect((await hobby.list()).body.flipbooks).toEqual([]);
      // the same PDF is fine on the team plan
      expectJson(await acme.create(pdf('text_freeculture.pdf')), 201);
    });

    it('422 naming the flipbook limit for the 11th flipbook', async () => {
      for (let i = 1; i <= 10; i++) {
        expectJson(await hobby.create(pdf('vec_vector.pdf'), { title: `free ${i}` }), 201);
      }
      const reply = await hobby.create(pdf('vec_vector.pdf'), { title: 'free 11' });
      expectError(reply, 422, /flipbook/i);
      expect(reply.body.error).toMatch(/\b10\b/);
      const listed = await hobby.list('per_page=100');
      expect(listed.body.flipbooks).toHaveLength(10);
      expect(listed.body.flipbooks.map((f: Json) => f.title)).not.toContain('free 11');
    });
  });
});
