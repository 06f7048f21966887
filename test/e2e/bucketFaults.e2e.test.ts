// What a client hears from a daemon whose bucket fails under it: one daemon, its bucket behind
// the fault-injecting proxy (test/support/faultyProxy.ts) in front of the run's s3rver. A store
// failing in the middle of an upload's body is a 503 with Retry-After within 10 s, while the
// body still comes (measured before: a frozen bucket, `400 Malformed multipart body: The file
// store is unavailable` after 60.3 s; a bucket answering 500, a 400 in 0.9 s), so `flipbook
// publish` asks again; a read of a file while the bucket is frozen is a 503 within the same
// bound (before: after 30 s). The in-process side of these bounds: test/int/bucketFaults.int.test.ts.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type ApiFixture, startApi } from '../support/apiFixture.ts';
import { client, createFlipbook, type Json, pdf, SMALL_PDF, send } from '../support/apiHelpers.ts';
import { type FaultMode, type FaultyProxy, startFaultyProxy } from '../support/faultyProxy.ts';
import { pacedUpload } from '../support/pacedUpload.ts';
import { freshBucket } from '../support/s3Server.ts';

const MiB = 1024 * 1024;

let proxy: FaultyProxy;
let fx: ApiFixture;

beforeAll(async () => {
  proxy = await startFaultyProxy(inject('s3Endpoint'));
  const { bucket } = await freshBucket(inject('s3Endpoint'));
  fx = await startApi('postgres', [
    '--blob-url',
    `s3://${bucket}`,
    '--s3-endpoint',
    proxy.endpoint,
    '--s3-path-style',
    '--rate-limit',
    '0',
  ]);
}, 60_000);
afterAll(async () => {
  proxy?.set({ kind: 'pass' });
  await fx?.stop();
  await proxy?.close();
});

/**
 * POSTs a 64 MiB upload whose body keeps coming at the client's pace; once `faultAtMiB` are sent
 * (12 MiB: two parts stored) the bucket turns `fault`. Answers the status, headers and body, the
 * seconds from the fault to the answer, and how much of the body had gone by then. A slow
 * client (`bytesPerSecond`, as `curl --limit-rate`) sends 32 KiB pieces paced by the clock; a
 * fast one 256 KiB pieces as the socket takes them.
 */
const uploadThenFault = async (
  fault: FaultMode,
  pace: { faultAtMiB: number; bytesPerSecond?: number } = { faultAtMiB: 12 },
) => {
  const piece = Buffer.alloc(pace.bytesPerSecond ? 32 * 1024 : 256 * 1024, 0x20);
  piece.write('%PDF-1.4\n');
  const answer = await pacedUpload(
    fx.api,
    fx.key,
    { name: 'big.pdf', size: 64 * MiB, piece: () => piece },
    {
      bytesPerSecond: pace.bytesPerSecond,
      at: { atBytes: pace.faultAtMiB * MiB, run: () => proxy.set(fault) },
    },
  );
  return {
    status: answer.status,
    headers: answer.headers,
    body: JSON.parse(answer.text) as Json,
    seconds: (answer.answeredAt - answer.eventAt) / 1000,
    sentMiB: answer.sent / MiB,
  };
};

/**
 * An upload the bucket froze under: a 503 that says so and asks for a retry in 5 s, within 10 s
 * of the fault, closing the connection (the rest of the body is not read).
 */
const expectUnavailableSoon = (answer: Awaited<ReturnType<typeof uploadThenFault>>) => {
  expect(answer.status).toBe(503);
  expect(answer.body).toEqual({ error: 'The file store is unavailable; try again later' });
  expect(answer.headers['retry-after']).toBe('5');
  expect(answer.headers.connection).toBe('close');
  expect(answer.seconds).toBeLessThan(10);
};

describe('a bucket failing in the middle of an upload', () => {
  it('is a 503 with Retry-After within 10 s, not a 400 after 60 s (frozen)', async () => {
    const answer = await uploadThenFault({ kind: 'freeze' });
    proxy.set({ kind: 'pass' });
    expectUnavailableSoon(answer);
    expect(answer.sentMiB).toBeLessThan(64); // answered while the body still came
  }, 60_000);

  it('is a 503 within 10 s for a slow client too (150 KiB/s, frozen 3 s in: no part under way yet)', async () => {
    // Measured before: 39.6 s after the freeze, the body all but read (its first part, 5 MiB,
    // was the first the bucket would have heard of the upload).
    const answer = await uploadThenFault(
      { kind: 'freeze' },
      { faultAtMiB: 0.45, bytesPerSecond: 150 * 1024 },
    );
    proxy.set({ kind: 'pass' });
    expectUnavailableSoon(answer);
    expect(answer.sentMiB).toBeLessThan(2.5);
  }, 60_000);

  it('is a 503, not a 400, when the bucket answers 500', async () => {
    const answer = await uploadThenFault({ kind: 'fail', percent: 100 });
    proxy.set({ kind: 'pass' });
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('5');
    expect(answer.seconds).toBeLessThan(10);
  }, 60_000);

  it('takes uploads again once the bucket is back, and answers reads while frozen within 10 s', async () => {
    const c = client(fx.api, fx.key);
    const stored = await createFlipbook(c, {}, pdf(SMALL_PDF));
    proxy.set({ kind: 'freeze' });
    const started = performance.now();
    const original = await send(`${fx.daemon.url}/files/originals/${stored.versionId}`);
    const seconds = (performance.now() - started) / 1000;
    proxy.set({ kind: 'pass' });
    expect(original.status).toBe(503);
    expect(original.headers.get('retry-after')).toBe('5');
    expect(seconds).toBeLessThan(10);
    expect((await send(`${fx.daemon.url}/files/originals/${stored.versionId}`)).status).toBe(200);
  }, 60_000);
});
