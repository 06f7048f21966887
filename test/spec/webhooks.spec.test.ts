// The event feed and webhooks, the whole app in process (test/support/appSpec.ts) with one
// processing lane and the daemon's webhook sender (src/webhooks/sender.ts) on the app's store and
// clock, and a real HTTP receiver that verifies every delivery with `standardwebhooks` (the
// reference implementation): one version.done per processed upload with the right data; a 500
// then a 200 gets the same webhook-id twice (the retry's wait is the app's clock moved, not
// waited); 410 disables the endpoint and enable turns it back on; one workspace's hanging
// receivers hold up no other's; private addresses refused without webhookAllowPrivate; the feed
// pages with its cursor and long-polls; workspaces see only their own events and webhooks. Two
// daemons on one database, a daemon killed with kill -9, and the CLI are
// test/e2e/webhookDaemons.e2e.test.ts's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspaceTrail } from '../../src/app/eventLog.ts';
import { logger } from '../../src/log.ts';
import { startWebhookSender } from '../../src/webhooks/sender.ts';
import {
  type Client,
  client,
  createFlipbook,
  type Json,
  sleep,
  waitForOutcome,
} from '../support/apiHelpers.ts';
import { useApp } from '../support/appSpec.ts';
import { waitFor } from '../support/waitFor.ts';
import {
  type Received,
  type Receiver,
  startReceiver,
  verified,
} from '../support/webhookReceiver.ts';

describe('the event feed and webhooks (one processing lane, the sender in process)', () => {
  const fx = useApp({ workers: 1, webhookAllowPrivate: true });
  let c: Client;
  let receiver: Receiver;
  let sender: ReturnType<typeof startWebhookSender>;
  /** the app's time, in ms */
  const now = () => fx.clock.now().getTime();

  beforeAll(async () => {
    receiver = await startReceiver(now);
    c = fx.c;
    // as the daemon runs it (src/daemon.ts), on the app's store and clock; a short tick
    sender = startWebhookSender(fx.store, logger, fx.clock, { allowPrivate: true, tickMs: 50 });
  });
  afterAll(async () => {
    // the receiver first: the deliveries it still holds end at once, not at their 10 s timeout
    await receiver?.close();
    await sender?.stop();
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
    // Recorded as delivered once the receiver's answer is in (a moment after it got the body:
    // under load the second one's record came after the test looked).
    const delivered = await waitFor('both recorded as delivered', async () => {
      const recorded = await c.get(`/webhooks/${made.body.id}/deliveries`);
      expect(recorded.status).toBe(200);
      const done = recorded.body.deliveries.filter((d: Json) => d.status === 'delivered');
      return done.length >= 2 ? done : undefined;
    });
    expect(delivered).toHaveLength(2);
  });

  it('retries a failed delivery with the same webhook-id, and 410 disables the endpoint', async () => {
    receiver.answerWith((path, n) =>
      path === '/flaky' && n === 1 ? 500 : path === '/gone' ? 410 : 200,
    );
    const flaky = await addWebhook({ url: receiver.url('/flaky'), events: ['flipbook.created'] });
    const gone = await addWebhook({ url: receiver.url('/gone'), events: ['flipbook.created'] });
    expect([flaky.status, gone.status]).toEqual([201, 201]);
    const retried = await createFlipbook(c, { title: 'Retried' });
    const a = await waitFor('the first attempt', () => receiver.at('/flaky')[0]);
    // The first retry is due about 5 s (± 20 %) later, on the app's clock: nothing comes before
    // the clock is moved.
    const scheduled = await waitFor('the retry scheduled', async () => {
      const [d] = (await c.get(`/webhooks/${flaky.body.id}/deliveries`)).body.deliveries;
      return d?.attempts === 1 && d.next_attempt_at ? (d as Json) : undefined;
    });
    expect(scheduled).toMatchObject({ status: 'pending', last_status: 500 });
    const afterMs = Date.parse(scheduled.next_attempt_at) - Date.parse(scheduled.last_attempt_at);
    expect(afterMs).toBeGreaterThan(3_000);
    expect(afterMs).toBeLessThan(10_000);
    await sleep(300); // six of the sender's ticks
    expect(receiver.at('/flaky')).toHaveLength(1);
    fx.clock.advance(afterMs + 1_000);
    const b = await waitFor('the retry', () => receiver.at('/flaky')[1]);
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
    // its processing over before the next test's feed starts (the retry came sooner than 5 s)
    await waitForOutcome(c, retried.flipbookId, retried.versionId);
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
    // (what `flipbook audit log --workspace acme` prints)
    const trail: Json[] = [];
    const filter = { workspaceId: fx.workspaceId, since: null, until: null, actor: null };
    for await (const event of workspaceTrail(fx.store, filter)) trail.push(event);
    const added = trail.find(
      (e) => e.type === 'WebhookEndpointAdded' && e.data.webhookId === ours.body.id,
    );
    expect(added?.metadata.actor).toMatchObject({ type: 'api_key' });
    // Bad cursors and limits are refused in words.
    expect((await c.get('/events?after=-1')).body.error).toMatch(/Invalid after/);
    expect((await c.get('/events?after=9223372036854775808')).status).toBe(400);
    expect((await c.get('/events?limit=500')).body.error).toMatch(/Invalid limit/);
    expect((await c.get('/events?wait=31')).body.error).toMatch(/Invalid wait/);
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
    const asked = now();
    expect((await c.post(`/webhooks/${prompt.body.id}/test`)).status).toBe(202);
    const arrived = await waitFor(
      "the other workspace's test delivery",
      () => receiver.at('/prompt')[0],
    );
    expect(arrived.at - asked).toBeLessThan(3_000);
    await c.del(`/webhooks/${prompt.body.id}`);
    for (const hook of hooks) await hogClient.del(`/webhooks/${hook.body.id}`);
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

describe('webhooks without webhookAllowPrivate (serve --webhook-allow-private)', () => {
  const fx = useApp();
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver(Date.now);
  });
  afterAll(async () => {
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
});
