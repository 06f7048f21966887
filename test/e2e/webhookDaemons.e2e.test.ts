// Webhooks where only processes show it, against real daemons and a real HTTP receiver that
// verifies every delivery with `standardwebhooks`: two daemons on one database never send one
// delivery twice, and a slow receiver holds up no other; the CLI manages webhooks as a user runs
// it; a daemon killed with kill -9 between the upload's 201 and the end of processing still
// delivers after its restart. The feed and the webhooks' management and delivery rules over HTTP
// are test/spec/webhooks.spec.test.ts's, in process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiFixture, startApi } from '../support/apiFixture.ts';
import { type Client, client, createFlipbook, type Json, pdf } from '../support/apiHelpers.ts';
import { flipbook, startDaemon } from '../support/cli.ts';
import { waitFor } from '../support/waitFor.ts';
import {
  type Received,
  type Receiver,
  startReceiver,
  verified,
} from '../support/webhookReceiver.ts';

describe('webhooks across two daemons and from the CLI (embedded store, no processing)', () => {
  let fx: ApiFixture;
  let c: Client;
  let receiver: Receiver;

  beforeAll(async () => {
    [fx, receiver] = await Promise.all([
      startApi('embedded', ['--workers', '0', '--webhook-allow-private', '--rate-limit', '0']),
      startReceiver(),
    ]);
    c = client(fx.api, fx.key);
  });
  afterAll(async () => {
    // the receiver first: the deliveries it still holds end at once, not at their 10 s timeout
    await receiver?.close();
    await fx?.stop();
  });

  const addWebhook = (body: Json) =>
    c.post('/webhooks', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
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
      // The fast receiver got all six before the slow one answered its first (9 s after it came):
      // nothing waited for that answer. (Measured from the slow one's first arrival, not from the
      // uploads: under load six uploads alone can take seconds.)
      const slowFirst = await waitFor('the slow receiver asked', () => receiver.at('/slow')[0]);
      expect(Math.max(...fast.map((r) => r.at))).toBeLessThan(slowFirst.at + 9_000);
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
});

describe('webhooks across a kill -9', () => {
  let fx: ApiFixture;
  let receiver: Receiver;

  beforeAll(async () => {
    [fx, receiver] = await Promise.all([
      startApi('embedded', ['--workers', '0', '--rate-limit', '0']),
      startReceiver(),
    ]);
  });
  afterAll(async () => {
    // the receiver first: the deliveries it still holds end at once, not at their 10 s timeout
    await receiver?.close();
    await fx?.stop();
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
