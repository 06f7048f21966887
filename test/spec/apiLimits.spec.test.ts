// The Client API v1 under pressure, the whole app in process (test/support/appSpec.ts) on the
// postgres store, each case on an app of its own: rate limiting (the clock stopped inside one
// one-minute window, no wait for a fresh one) and a body cut short. The 512 MB limit on a streamed
// upload, two daemons sharing one limit and a graceful shutdown with an upload in flight are
// test/e2e/apiLimitsDaemon.e2e.test.ts's.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  client,
  expectError,
  expectJson,
  expectRateLimited,
  multipartEnvelope,
  type Reply,
  send,
  sleep,
} from '../support/apiHelpers.ts';
import { useApp } from '../support/appSpec.ts';
import type { BlobPlace } from '../support/blobPlace.ts';
import { appFetch } from '../support/inProcess.ts';

describe('rate limiting on the postgres store', () => {
  const fx = useApp({ rateLimit: 5 });

  it('rateLimit 5 (serve --rate-limit 5): the 6th request in a minute is a 429, and 401s count', async () => {
    const anon = client(fx.api, null);
    const acme = client(fx.api, fx.key);
    // every request in one window: the clock stopped a second into the next minute
    fx.clock.freeze(new Date((Math.floor(Date.now() / 60_000) + 1) * 60_000 + 1_000));
    for (let i = 0; i < 3; i++) {
      const reply = await anon.list();
      expectJson(reply, 401, 'Unauthorized');
      expect(reply.headers.get('ratelimit-policy')).toMatch(/q=5\b/);
    }
    expectJson(await acme.list(), 200);
    const fifth = await acme.list();
    expectJson(fifth, 200);
    expect(fifth.headers.get('ratelimit')).toMatch(/\br=0\b/);

    expectRateLimited(await acme.list(), 5);
    expectRateLimited(await anon.list(), 5);
    expectRateLimited(await acme.flipbook('00000000-0000-4000-8000-000000000000'), 5);
    // without trustProxy (serve --trust-proxy), X-Forwarded-For does not make a new client
    const forwarded = client(fx.api, {
      headers: { authorization: `Bearer ${fx.key}`, 'x-forwarded-for': '203.0.113.7' },
    });
    expectRateLimited(await forwarded.list(), 5);
    // only the API is limited
    expect((await appFetch(`${fx.base}/healthz`)).status).toBe(200);
  });
});

/** The blob folder of an app on blobs 'dir'. */
const folderOf = (place: BlobPlace) => {
  if (place.kind !== 'dir') throw new Error('the blobs are not in a folder');
  return place.dir;
};

describe('robustness on the postgres store', () => {
  const fx = useApp();

  it('400 JSON for a file part cut short; the app keeps answering and keeps no file', async () => {
    const blobDir = folderOf(fx.blobPlace);
    const envelope = multipartEnvelope({ title: 'cut short' }, 'cut.pdf');
    const body = new Uint8Array([
      ...envelope.head,
      ...new TextEncoder().encode('%PDF-1.4 and then the body stops'),
    ]);
    const reply = await send(`${fx.api}/flipbooks`, {
      method: 'POST',
      body,
      headers: { authorization: `Bearer ${fx.key}`, 'content-type': envelope.contentType },
    }).catch((error: Error) => error);
    await sleep(200);
    const alive = await appFetch(`${fx.base}/healthz`)
      .then((r) => r.status)
      .catch(() => 'no answer');
    expect.soft(alive, 'the app still answers').toBe(200);
    expect.soft(readdirSync(join(blobDir, 'tmp')), 'temporary files').toEqual([]);
    expect(reply, 'an answer, not a dropped connection').not.toBeInstanceOf(Error);
    expectError(reply as Reply, 400);
  });
});
