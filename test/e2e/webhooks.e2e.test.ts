// The event feed and webhooks against a real daemon, real processing and a real HTTP receiver
// that verifies every delivery with `standardwebhooks` (the reference implementation): one
// version.done per processed upload with the right data; a 500 then a 200 gets the same
// webhook-id twice; 410 disables the endpoint and enable turns it back on; a daemon killed with
// kill -9 between the upload's 201 and the end of processing still delivers after its restart;
// private addresses refused without --webhook-allow-private; the feed pages with its cursor and
// long-polls; workspaces see only their own events and webhooks.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiFixture, startApi } from '../support/apiFixture.ts';
import { type Client, client, createFlipbook, type Json, pdf } from '../support/apiHelpers.ts';
import { flipbook, startDaemon } from '../support/cli.ts';
import { waitFor } from '../support/waitFor.ts';

type Received = { path: string; headers: IncomingHttpHeaders; body: string; at: number };

/** A local receiver: records every request; answers what `answer(path, n)` says (default 200). */
const startReceiver = async () => {
  const received: Received[] = [];
  let answer: (path: string, n: number) => number = () => 200;
  /** paths answered only after this many ms (a slow receiver) */
  const slow = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({
        path,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      });
      res.statusCode = answer(path, received.filter((r) => r.path === path).length);
      const delay = slow.get(path) ?? 0;
      if (delay > 0) setTimeout(() => res.end('ok'), delay);
      else res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    received,
    at: (path: string) => received.filter((r) => r.path === path),
    answerWith: (f: (path: string, n: number) => number) => {
      answer = f;
    },
    slowDown: (path: string, ms: number) => slow.set(path, ms),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
};
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** The delivery's body when its signature verifies with the endpoint's secret (throws if not). */
const verified = (secret: string, r: Received) =>
  new Webhook(secret).verify(r.body, {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  }) as { type: string; timestamp: string; data: Json };

describe('the event feed and webhooks (embedded store, one worker)', () => {
  let fx: ApiFixture;
  let c: Client;
  let receiver: Receiver;

  beforeAll(async () => {
    [fx, receiver] = await Promise.all([
      startApi('embedded', ['--workers', '1', '--webhook-allow-private', '--rate-limit', '0']),
      startReceiver(),
    ]);
    c = client(fx.api, fx.key);
  });
  afterAll(async () => {
    await fx?.stop();
    await receiver?.close();
  });

  const addWebhook = async (body: Json, key = fx.key) => {
    const reply = await client(fx.api, key).post('/webhooks', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return reply;
  };

  it('delivers version.done once per processed upload, signed, with the right data', async () => {
    const made = await addWebhook({
      url: receiver.url('/done'),
      events: ['version.done', 'version.failed'],
      description: 'CI',
    });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({
      url: receiver.url('/done'),
      events: ['version.done', 'version.failed'],
      description: 'CI',
      status: 'enabled',
      disabled_reason: null,
    });
    expect(made.body.secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    // Listed without its secret.
    const listed = await c.get('/webhooks');
    expect(listed.body.webhooks.map((w: Json) => w.id)).toContain(made.body.id);
    expect(JSON.stringify(listed.body)).not.toContain(made.body.secret);

    const first = await createFlipbook(c, { title: 'Report' });
    const second = await createFlipbook(c, { title: 'Brochure' });
    const deliveries = await waitFor('two version.done deliveries', () =>
      receiver.at('/done').length >= 2 ? receiver.at('/done') : undefined,
    );
    const bodies = deliveries.map((r) => verified(made.body.secret, r));
    expect(bodies.map((b) => b.type)).toEqual(['version.done', 'version.done']);
    expect(bodies.map((b) => b.data.version_id).sort()).toEqual(
      [first.versionId, second.versionId].sort(),
    );
    const one = bodies.find((b) => b.data.version_id === first.versionId);
    expect(one?.data).toEqual({
      flipbook_id: first.flipbookId,
      version_id: first.versionId,
      page_count: expect.any(Number),
    });
    expect(one?.timestamp).toMatch(/^\d{4}-\d\d-\d\dT/);
    // A wrong secret does not verify: the signature is real.
    expect(() =>
      verified(
        `whsec_${Buffer.from('x'.repeat(24)).toString('base64')}`,
        deliveries[0] as Received,
      ),
    ).toThrow();
    // Once each: nothing more arrives for them (the feed below shows processing is over).
    const ids = deliveries.map((r) => r.headers['webhook-id']);
    expect(new Set(ids).size).toBe(2);
    const recorded = await c.get(`/webhooks/${made.body.id}/deliveries`);
    expect(recorded.status).toBe(200);
    expect(recorded.body.deliveries.filter((d: Json) => d.status === 'delivered')).toHaveLength(2);
  });

  it('retries a failed delivery with the same webhook-id, and 410 disables the endpoint', async () => {
    receiver.answerWith((path, n) =>
      path === '/flaky' && n === 1 ? 500 : path === '/gone' ? 410 : 200,
    );
    const flaky = await addWebhook({ url: receiver.url('/flaky'), events: ['flipbook.created'] });
    const gone = await addWebhook({ url: receiver.url('/gone'), events: ['flipbook.created'] });
    expect([flaky.status, gone.status]).toEqual([201, 201]);
    await createFlipbook(c, { title: 'Retried' });
    const twice = await waitFor(
      'the retry',
      () => (receiver.at('/flaky').length >= 2 ? receiver.at('/flaky') : undefined),
      30_000,
    );
    const [a, b] = twice as [Received, Received];
    expect(a.headers['webhook-id']).toBe(b.headers['webhook-id']);
    // The first retry comes within about 10 s (5 s ± 20 %).
    expect(b.at - a.at).toBeGreaterThan(3_000);
    expect(b.at - a.at).toBeLessThan(10_000);
    expect(verified(flaky.body.secret, b).data.title).toBe('Retried');

    const disabled = await waitFor('the endpoint disabled by its 410', async () => {
      const reply = await c.get(`/webhooks/${gone.body.id}`);
      return reply.body.status === 'disabled' ? reply.body : undefined;
    });
    expect(disabled.disabled_reason).toBe('gone');
    expect(receiver.at('/gone')).toHaveLength(1);
    // The service's decision is an event, like the person's: on the feed, with its reason.
    const feed = await c.get('/events?after=0&limit=100');
    expect(
      feed.body.events.filter((e: Json) => e.type === 'webhook.disabled').at(-1)?.data,
    ).toEqual({ webhook_id: gone.body.id, reason: 'gone' });
    receiver.answerWith(() => 200);
    const enabled = await c.post(`/webhooks/${gone.body.id}/enable`);
    expect(enabled.body.status).toBe('enabled');
    const test = await c.post(`/webhooks/${gone.body.id}/test`);
    expect(test.status).toBe(202);
    const tested = await waitFor('the test delivery', () =>
      receiver.at('/gone').length >= 2 ? receiver.at('/gone')[1] : undefined,
    );
    expect(verified(gone.body.secret, tested)).toMatchObject({
      type: 'webhook.test',
      data: { webhook_id: gone.body.id },
    });
    expect((await c.del(`/webhooks/${gone.body.id}`)).status).toBe(200);
    expect((await c.get(`/webhooks/${gone.body.id}`)).status).toBe(404);
    expect((await c.del(`/webhooks/${flaky.body.id}`)).status).toBe(200);
  });

  it('pages the feed with its cursor, long-polls, and shows each workspace only its own', async () => {
    const other = await fx.newWorkspace('initech');
    const theirs = client(fx.api, other.key);
    const start = await c.get('/events?after=now');
    expect(start.status).toBe(200);
    expect(start.body.events).toEqual([]);
    const cursor = start.body.next as string;

    // Long polling: the answer waits for the next event.
    const waiting = c.get(`/events?after=${cursor}&wait=20`);
    const begun = Date.now();
    await createFlipbook(theirs, { title: 'Not yours' }); // another workspace's: does not wake it
    const mine = await createFlipbook(c, { title: 'Polled' });
    const woke = await waiting;
    expect(Date.now() - begun).toBeLessThan(15_000);
    expect(woke.body.events[0]).toMatchObject({
      type: 'flipbook.created',
      data: { flipbook_id: mine.flipbookId, title: 'Polled' },
    });
    expect(woke.body.events[0].id).toMatch(/^[0-9a-f-]{36}$/);
    expect(woke.body.events[0].at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    // Paging: limit 1 at a time walks the same events in the same order.
    const all = await c.get(`/events?after=${cursor}&limit=100`);
    const walked: Json[] = [];
    let after = cursor;
    for (let i = 0; i < 20; i++) {
      const page = await c.get(`/events?after=${after}&limit=1`);
      if (page.body.events.length === 0) break;
      walked.push(...page.body.events);
      after = page.body.next;
    }
    expect(walked.map((e) => e.id)).toEqual(all.body.events.map((e: Json) => e.id));
    expect(walked.map((e) => e.type)).toContain('version.uploaded');
    // Nothing of another workspace, nothing internal.
    const text = JSON.stringify(all.body);
    expect(text).not.toContain('Not yours');
    expect(text).not.toMatch(/checksum|blobs|\/tmp\/|key_hash/);
    const theirFeed = await theirs.get('/events?after=0&limit=100');
    expect(JSON.stringify(theirFeed.body)).not.toContain('Polled');
    // Another workspace's webhook is a 404, as unknown as none.
    const ours = await addWebhook({ url: receiver.url('/ours') });
    expect((await theirs.get(`/webhooks/${ours.body.id}`)).status).toBe(404);
    expect((await theirs.del(`/webhooks/${ours.body.id}`)).status).toBe(404);
    expect((await c.del(`/webhooks/${ours.body.id}`)).status).toBe(200);
    // Adding and removing are events too, on the feed and in the audit trail with their actor.
    const since = await c.get(`/events?after=${after}&limit=100`);
    expect(
      since.body.events
        .filter((e: Json) => e.data.webhook_id === ours.body.id)
        .map((e: Json) => e.type),
    ).toEqual(['webhook.created', 'webhook.deleted']);
    const audit = await flipbook([
      'audit',
      'log',
      '--workspace',
      'acme',
      '--json',
      ...fx.storeArgs,
    ]);
    const added = audit.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .find((e) => e.type === 'WebhookEndpointAdded' && e.data.webhookId === ours.body.id);
    expect(added.metadata.actor).toMatchObject({ type: 'api_key' });
    // Bad cursors and limits are refused in words.
    expect((await c.get('/events?after=-1')).body.error).toMatch(/Invalid after/);
    expect((await c.get('/events?after=9223372036854775808')).status).toBe(400);
    expect((await c.get('/events?limit=500')).body.error).toMatch(/Invalid limit/);
    expect((await c.get('/events?wait=31')).body.error).toMatch(/Invalid wait/);
  });

  it('two daemons never send one delivery twice; a slow receiver holds up no other', {
    timeout: 120_000,
  }, async () => {
    const second = await startDaemon([
      ...fx.storeArgs,
      '--workers',
      '0',
      '--rate-limit',
      '0',
      '--webhook-allow-private',
    ]);
    try {
      receiver.slowDown('/slow', 9_000);
      const slowHook = await addWebhook({
        url: receiver.url('/slow'),
        events: ['flipbook.created'],
      });
      const fastHook = await addWebhook({
        url: receiver.url('/fast'),
        events: ['flipbook.created'],
      });
      expect([slowHook.status, fastHook.status]).toEqual([201, 201]);
      const started = Date.now();
      // Created through both daemons: both send from the one outbox.
      const other = client(`${second.url}/api/v1`, fx.key);
      const made = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          createFlipbook(i % 2 ? other : c, { title: `Twice ${i}` }),
        ),
      );
      const fast = await waitFor('six deliveries to the fast receiver', () =>
        receiver.at('/fast').length >= 6 ? receiver.at('/fast') : undefined,
      );
      // The fast receiver got all six long before the slow one answered its first.
      expect(Math.max(...fast.map((r) => r.at)) - started).toBeLessThan(9_000);
      const settled = await waitFor('every delivery recorded as delivered, once each', async () => {
        const listed = (await c.get(`/webhooks/${fastHook.body.id}/deliveries`)).body.deliveries;
        return listed.length === 6 && listed.every((d: Json) => d.status === 'delivered')
          ? listed
          : undefined;
      });
      expect(settled.map((d: Json) => d.attempts)).toEqual([1, 1, 1, 1, 1, 1]);
      const ids = receiver.at('/fast').map((r) => r.headers['webhook-id']);
      expect(new Set(ids).size).toBe(6);
      expect(ids).toHaveLength(6);
      const titles = receiver.at('/fast').map((r) => verified(fastHook.body.secret, r).data.title);
      expect(titles.sort()).toEqual(made.map((_, i) => `Twice ${i}`).sort());
      await c.del(`/webhooks/${slowHook.body.id}`);
      await c.del(`/webhooks/${fastHook.body.id}`);
    } finally {
      await second.stop();
    }
  });

  it("one workspace's hanging receivers hold up no other workspace's deliveries", {
    timeout: 120_000,
  }, async () => {
    const hog = await fx.newWorkspace('hog');
    const hogClient = client(fx.api, hog.key);
    receiver.slowDown('/hang', 9_500);
    const hooks = [];
    for (let i = 0; i < 3; i++) {
      hooks.push(
        await addWebhook({ url: receiver.url('/hang'), events: ['flipbook.created'] }, hog.key),
      );
    }
    await Promise.all(
      Array.from({ length: 8 }, (_, i) => createFlipbook(hogClient, { title: `Hog ${i}` })),
    );
    await waitFor("the hog's deliveries under way", () =>
      receiver.at('/hang').length >= 2 ? true : undefined,
    );
    // 24 deliveries hang for 9.5 s each; another workspace's test still arrives at once.
    const prompt = await addWebhook({ url: receiver.url('/prompt') });
    const asked = Date.now();
    expect((await c.post(`/webhooks/${prompt.body.id}/test`)).status).toBe(202);
    const arrived = await waitFor(
      "the other workspace's test delivery",
      () => receiver.at('/prompt')[0],
    );
    expect(arrived.at - asked).toBeLessThan(3_000);
    await c.del(`/webhooks/${prompt.body.id}`);
    for (const hook of hooks) await hogClient.del(`/webhooks/${hook.body.id}`);
  });

  it('is managed from the CLI: add (secret once), list, test, deliveries, remove', async () => {
    const cli = (args: string[]) =>
      flipbook(['webhook', ...args, '--url', fx.daemon.url, '--api-key', fx.key]);
    const added = await cli([
      'add',
      receiver.url('/cli'),
      '--events',
      'version.done,version.failed',
      '--json',
    ]);
    expect(added.code, added.stderr).toBe(0);
    const made = JSON.parse(added.stdout);
    expect(made.secret).toMatch(/^whsec_/);
    const text = await cli(['list']);
    expect(text.stdout).toContain(made.id);
    expect(text.stdout).toContain('version.done,version.failed');
    expect(text.stdout).not.toContain(made.secret);
    expect((await cli(['test', made.id])).code).toBe(0);
    const arrived = await waitFor('the CLI test delivery', () => receiver.at('/cli')[0]);
    expect(verified(made.secret, arrived).type).toBe('webhook.test');
    const deliveries = await waitFor('the delivery recorded', async () => {
      const listed = JSON.parse((await cli(['deliveries', made.id, '--json'])).stdout).deliveries;
      return listed[0]?.status === 'delivered' ? listed : undefined;
    });
    expect(deliveries[0]).toMatchObject({ type: 'webhook.test', attempts: 1, last_status: 200 });
    const badEvents = await cli(['add', receiver.url('/x'), '--events', 'nope']);
    expect(badEvents.code).not.toBe(0);
    expect(badEvents.stderr).toContain('unknown type "nope"');
    expect((await cli(['remove', made.id])).stdout).toContain('removed');
    expect((await cli(['remove', made.id])).stderr).toContain(`No webhook with id ${made.id}`);
  });

  it('refuses bad webhooks in words: a bad url, unknown events, the free plan', async () => {
    const bad = await addWebhook({ url: 'ftp://example.com/x' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/https:\/\/ or http:\/\//);
    const unknown = await addWebhook({
      url: 'https://example.com/x',
      events: ['version.exploded'],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatch(/Invalid events/);
    const nul = await addWebhook({ url: 'https://example.com/x', description: 'a\u0000b' });
    expect(nul.status).toBe(400);
    expect(nul.body.error).toMatch(/Invalid description: it contains a NUL character/);
    // in the house's words, as PATCH's, not the schema validator's
    const shapes: [Record<string, unknown>, string][] = [
      [{ url: 1 }, 'Invalid url: must be a string'],
      [{ url: null }, 'url is required'],
      [
        { url: 'https://example.com/x', description: 'd'.repeat(501) },
        'Invalid description: at most 500 characters',
      ],
    ];
    for (const [body, said] of shapes) {
      const reply = await addWebhook(body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.error).toBe(said);
    }
    const extra = await addWebhook({ url: 'https://example.com/x', secret: 'mine' });
    expect(extra.body.error).toMatch(/Unknown field "secret"/);
    const free = await fx.newWorkspace('hobby', 'free');
    const refused = await addWebhook({ url: receiver.url('/free') }, free.key);
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatch(/Team plan only/);
  });
});

describe('webhooks without --webhook-allow-private, and across a kill -9', () => {
  let fx: ApiFixture;
  let receiver: Receiver;

  beforeAll(async () => {
    [fx, receiver] = await Promise.all([
      startApi('embedded', ['--workers', '0', '--rate-limit', '0']),
      startReceiver(),
    ]);
  });
  afterAll(async () => {
    await fx?.stop();
    await receiver?.close();
  });

  it('refuses loopback, private, link-local and metadata addresses by default', async () => {
    const c = client(fx.api, fx.key);
    for (const url of [
      receiver.url('/x'),
      'http://localhost:9/x',
      'http://10.1.2.3/x',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]:8080/x',
      'http://[::ffff:127.0.0.1]/x',
    ]) {
      const reply = await c.post('/webhooks', {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url }),
      });
      expect(reply.status, url).toBe(422);
      expect(reply.body.error, url).toMatch(/private or local address/);
    }
  });

  it('delivers version.done after a daemon killed between the 201 and the end of processing restarts', {
    timeout: 180_000,
  }, async () => {
    // Its own daemon with one worker, on its own data dir (the fixture's has none).
    const dataDir = fx.storeArgs[1] as string;
    const args = ['--data-dir', dataDir, '--rate-limit', '0', '--webhook-allow-private'];
    await fx.stop();
    // A short job lease: the killed daemon's job is taken over in seconds, not a minute.
    const env = { FLIPBOOK_LEASE_MS: '4000' };
    const first = await startDaemon([...args, '--workers', '1'], env);
    const c = client(`${first.url}/api/v1`, fx.key);
    const made = await c.post('/webhooks', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url('/after-kill'), events: ['version.done'] }),
    });
    expect(made.status, made.text).toBe(201);
    // A 14-page paper: seconds of rendering, so the kill lands before processing ends.
    const created = await createFlipbook(c, { title: 'Survives' }, pdf('vec_tracemonkey.pdf'));
    first.process.kill('SIGKILL');
    const killedAt = Date.now();
    await new Promise((r) => first.process.once('exit', r));
    const second = await startDaemon([...args, '--workers', '1'], env);
    try {
      const [delivery] = await waitFor(
        'version.done after the restart',
        () => (receiver.at('/after-kill').length > 0 ? receiver.at('/after-kill') : undefined),
        120_000,
      );
      expect(verified(made.body.secret, delivery as Received).data.version_id).toBe(
        created.versionId,
      );
      expect((delivery as Received).at).toBeGreaterThan(killedAt);
      expect(receiver.at('/after-kill')).toHaveLength(1);
    } finally {
      await second.stop();
    }
  });
});
