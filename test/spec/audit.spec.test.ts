// The audit trail over HTTP: who did what (an API key, an admin, the worker) with the request and
// the client recorded on API events (or not, when the operator turned client info off), request
// ids from answer to event, the trail served a page at a time and only to its own workspace, and
// ?at=. The whole app in process (test/support/appSpec.ts) with one processing lane, on one store:
// the trail and ?at= are the same SQL on both, and the metadata is written by the HTTP layer. The
// CLI's side (`events`, `--as`, `show --at`, `audit log`, export, replay, verify) is
// test/e2e/auditCli.e2e.test.ts's. Tests run in order and build on the first one's flipbook.
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '../../src/app/apiKeys.ts';
import { setDownload } from '../../src/app/downloads.ts';
import {
  type Client,
  client,
  createFlipbook,
  expectJson,
  type Json,
  UUID_RE,
  waitDone,
} from '../support/apiHelpers.ts';
import { type AppUnderTest, useApp } from '../support/appSpec.ts';
import {
  PROCESSING,
  trailActivated,
  trailOf,
  typesBesideProgress,
  uploadReport,
} from '../support/auditTrail.ts';
import { appFetch } from '../support/inProcess.ts';
import { TEST_METADATA } from '../support/metadata.ts';
import { waitFor } from '../support/waitFor.ts';

/** A key named ci-bot in the app's first workspace, as `key create --name ci-bot` makes it. */
const ciBot = (app: AppUnderTest) =>
  issueApiKey(app.store, { workspace: 'acme', label: 'ci-bot' }, TEST_METADATA, app.clock.now());

describe('the audit trail over HTTP', () => {
  const app = useApp({ workers: 1 });
  let ci: { id: string; key: string };
  let api: Client;
  beforeAll(async () => {
    ci = await ciBot(app);
    api = client(app.api, ci.key);
  });

  const trail = (flipbookId: string) => trailOf(api, flipbookId);

  let book: { flipbookId: string; versionId: string };

  it('records the API key, the request and the client on API events, the worker on processing', async () => {
    const uploadRequest = `upload-${Date.now()}`;
    const userAgent = `audit-test/1.0\t${'x'.repeat(300)}`;
    const created = await uploadReport(app.api, ci.key, uploadRequest, userAgent);
    expectJson(created, 201);
    expect(created.headers.get('x-request-id')).toBe(uploadRequest);
    book = { flipbookId: created.body.flipbook_id, versionId: created.body.version_id };
    await waitDone(api, book.flipbookId, book.versionId);
    const events = await trailActivated(api, book.flipbookId);
    expect(typesBesideProgress(events)).toEqual([
      'FlipbookCreated',
      'VersionUploaded',
      ...PROCESSING,
    ]);

    const byKey = {
      actor: { type: 'api_key', id: ci.id, name: 'ci-bot' },
      request_id: uploadRequest,
      client_ip: expect.stringMatching(/^(::ffff:)?127\.0\.0\.1$/),
      // control characters never reach the log, and it is cut at 256 characters
      user_agent: `audit-test/1.0${'x'.repeat(242)}`,
      correlation_id: uploadRequest,
      causation_id: null,
    };
    expect(events[0].metadata).toEqual(byKey);
    expect(events[1].metadata).toEqual(byKey);
    const uploaded = events[1];
    expect(uploaded.id).toMatch(UUID_RE);

    // Processing carries the upload's story on: its request, and the event that caused it.
    const workers = new Set<string>();
    for (const event of events.slice(2)) {
      expect(event.metadata, event.type).toEqual({
        actor: { type: 'worker', id: expect.stringMatching(new RegExp(`^${hostname()}:\\d+$`)) },
        request_id: null,
        client_ip: null,
        user_agent: null,
        correlation_id: uploadRequest,
        causation_id: uploaded.id,
      });
      workers.add(event.metadata.actor.id);
    }
    expect(workers.size).toBe(1);
  });

  it('shows an admin’s change in the flipbook’s HTTP trail', async () => {
    const bob = { actor: { type: 'admin', id: 'auditor-bob' } } as const;
    await setDownload(app.store, book.flipbookId, false, bob, app.clock.now());
    const last = (await trail(book.flipbookId)).at(-1);
    expect(last.type).toBe('FlipbookDownloadChanged');
    expect(last.metadata.actor).toEqual({ type: 'admin', id: 'auditor-bob' });
    expect(last.metadata).toMatchObject({ request_id: null, client_ip: null, user_agent: null });
  });

  it('sends X-Request-Id on every answer, keeping a well-formed one and replacing any other', async () => {
    const unauthenticated = client(app.api, null);
    const sent = async (path: string, id?: string, c: Client = api) =>
      (await c.get(path, id === undefined ? {} : { headers: { 'x-request-id': id } })).headers.get(
        'x-request-id',
      );
    expect(await sent('/flipbooks', 'trace.7:abc/DEF+=@_-')).toBe('trace.7:abc/DEF+=@_-');
    const longest = 'r'.repeat(128);
    expect(await sent('/flipbooks', longest)).toBe(longest);
    for (const malformed of ['has spaces', 'x'.repeat(200), 'r'.repeat(129), 'semi;colon']) {
      const answered = await sent('/flipbooks', malformed);
      expect(answered).not.toBe(malformed);
      expect(answered).toMatch(UUID_RE);
    }
    // Two answers never share a fresh id.
    const a = await sent('/flipbooks');
    expect(a).toMatch(UUID_RE);
    expect(await sent('/flipbooks')).not.toBe(a);

    // Errors, the reader, page files and the health check carry one too.
    expect(await sent('/flipbooks', 'on-401', unauthenticated)).toBe('on-401');
    expect(await sent('/nowhere', 'on-404')).toBe('on-404');
    expect(await sent(`/flipbooks/${book.flipbookId}?at=bad`, 'on-400')).toBe('on-400');
    const shown = await api.flipbook(book.flipbookId);
    const image = shown.body.pages[0].img_min as string;
    for (const url of [image, shown.body.url, `${app.base}/healthz`]) {
      const res = await appFetch(url, { headers: { 'x-request-id': 'outside-api' } });
      await res.arrayBuffer();
      expect(res.status, url).toBe(200);
      expect(res.headers.get('x-request-id'), url).toBe('outside-api');
    }

    // A replaced id is the one the events record: the answer tells which story to look for.
    const version = await api.addVersion(book.flipbookId, undefined, { activate: 'no' });
    expectJson(version, 201);
    const fresh = version.headers.get('x-request-id');
    expect(fresh).toMatch(UUID_RE);
    const events = await trail(book.flipbookId);
    const upload = events.find((e) => e.data.versionId === version.body.version_id);
    expect(upload.metadata.request_id).toBe(fresh);
    await waitDone(api, book.flipbookId, version.body.version_id);
  });

  it('serves the trail a page at a time, to its own workspace only, without key hashes or paths', async () => {
    const all = await trail(book.flipbookId);
    expect(all.length).toBeGreaterThanOrEqual(9);
    expect(all.map((e) => e.position)).toEqual(all.map((_, i) => i + 1));
    const pages: Json[] = [];
    for (let page = 1; ; page++) {
      const reply = await api.get(`/flipbooks/${book.flipbookId}/events?page=${page}&per_page=4`);
      expectJson(reply, 200);
      expect(reply.body).toMatchObject({
        page,
        per_page: 4,
        total_pages: Math.ceil(all.length / 4),
      });
      if (reply.body.events.length === 0) break;
      pages.push(...reply.body.events);
    }
    expect(pages).toEqual(all);

    // Another workspace's flipbook, an unknown one and a bad id: like every other endpoint.
    const other = await app.newWorkspace('initech');
    const outsider = client(app.api, other.key);
    const refused = await outsider.get(`/flipbooks/${book.flipbookId}/events`);
    expectJson(refused, 404, 'Flipbook not found');
    const refusedAt = await outsider.get(`/flipbooks/${book.flipbookId}?at=2100-01-01T00:00:00Z`);
    expectJson(refusedAt, 404, 'Flipbook not found');
    expectJson(await api.get(`/flipbooks/${crypto.randomUUID()}/events`), 404);
    expectJson(await api.get('/flipbooks/nope/events'), 400, 'Invalid flipbook ID');
    expectJson(await api.get(`/flipbooks/${book.flipbookId}/events?per_page=101`), 400);

    // Key hashes and file paths stay inside (the workspace's `audit log` is checked by the CLI's
    // test): neither the data folder nor the blob folder is named.
    const text = JSON.stringify(all);
    expect(text).not.toMatch(/keyHash|key_hash/);
    expect(text).not.toContain(join(tmpdir(), 'flipbook-'));
    expect(text).not.toContain('/blobs/');
  });

  it('shows a flipbook as it was: ?at=', async () => {
    const made = await createFlipbook(api, { title: 'Catalogue' });
    await waitDone(api, made.flipbookId, made.versionId);
    const firstDone = await waitFor('version 1 active', async () => {
      const events = await trail(made.flipbookId);
      return events.find((e) => e.type === 'VersionActivated')?.at as string | undefined;
    });
    const between = new Date(Date.parse(firstDone) + 1).toISOString();
    const before = await api.flipbook(made.flipbookId);
    // Version 2 comes a second later: nothing of it falls at `between`.
    app.clock.advance(1000);
    const v2 = (await api.addVersion(made.flipbookId)).body.version_id as string;
    await waitDone(api, made.flipbookId, v2);
    await waitFor('version 2 active', async () =>
      (await api.flipbook(made.flipbookId)).body.versions[0].is_active ? true : undefined,
    );
    // Version 1 is gone now: its files too.
    expectJson(await api.remove(made.flipbookId, made.versionId), 200);

    const then = await api.get(`/flipbooks/${made.flipbookId}?at=${encodeURIComponent(between)}`);
    expectJson(then, 200);
    expect(then.body.title).toBe('Catalogue');
    expect(then.body.versions.map((v: Json) => [v.id, v.version, v.status, v.is_active])).toEqual([
      [made.versionId, 1, 'done', true],
    ]);
    // As the reader's API showed it then, to the field, pages included...
    expect(then.body).toEqual(before.body);
    // ...but the deleted version's images are no longer served.
    const image = await appFetch(then.body.pages[0].img_min);
    await image.arrayBuffer();
    expect(image.status).toBe(404);

    const now = await api.get(`/flipbooks/${made.flipbookId}?at=${app.clock.now().toISOString()}`);
    expectJson(now, 200);
    expect(now.body.versions.map((v: Json) => [v.id, v.is_active])).toEqual([[v2, true]]);
    expect(now.body).toEqual((await api.flipbook(made.flipbookId)).body);

    // Any offset, the same moment.
    const offset = between.replace('Z', '+00:00');
    const same = await api.get(`/flipbooks/${made.flipbookId}?at=${encodeURIComponent(offset)}`);
    expect(same.body).toEqual(then.body);

    const created = Date.parse(
      (await trail(made.flipbookId)).find((e) => e.type === 'FlipbookCreated').at,
    );
    const tooEarly = new Date(created - 1000).toISOString();
    expectJson(
      await api.get(`/flipbooks/${made.flipbookId}?at=${tooEarly}`),
      404,
      'Flipbook not found',
    );
    for (const bad of ['yesterday', '2026-13-01T00:00:00Z', '2026-01-01', '2026-01-01T00:00:00']) {
      const reply = await api.get(`/flipbooks/${made.flipbookId}?at=${encodeURIComponent(bad)}`);
      expectJson(reply, 400);
      expect(reply.body.error, bad).toMatch(/^Invalid at/);
    }
    expectJson(await api.get(`/flipbooks/${made.flipbookId}?at=${between}&at=${between}`), 400);
  });
});

describe('an app that records no client info (serve --no-client-info)', () => {
  const quiet = useApp({ workers: 1, recordClientInfo: false });

  it('records no client IP or user agent, in the trail or in the stored metadata', async () => {
    const ci = await ciBot(quiet);
    const c = client(quiet.api, ci.key);
    const made = await c.create(undefined, {});
    expectJson(made, 201);
    await waitDone(c, made.body.flipbook_id, made.body.version_id);
    const events = (await trailOf(c, made.body.flipbook_id)).slice(0, 2);
    expect(typesBesideProgress(events)).toEqual(['FlipbookCreated', 'VersionUploaded']);
    for (const event of events) {
      expect(event.metadata).toEqual({
        actor: { type: 'api_key', id: ci.id, name: 'ci-bot' },
        request_id: made.headers.get('x-request-id'),
        client_ip: null,
        user_agent: null,
        correlation_id: made.headers.get('x-request-id'),
        causation_id: null,
      });
    }
    const stored = await quiet.eventsOf(made.body.flipbook_id);
    expect(stored.length).toBeGreaterThanOrEqual(2);
    for (const { metadata } of stored) {
      expect(Object.keys(metadata)).not.toContain('client_ip');
      expect(Object.keys(metadata)).not.toContain('user_agent');
    }
  });
});
