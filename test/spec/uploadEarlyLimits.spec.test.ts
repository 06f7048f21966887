// The plan limits an upload's headers already tell (its declared size, the number of flipbooks
// or versions) are refused before the body is read. Each request here sends its headers and the
// start of its body, then withholds the rest: an answer can only come from the early check (a
// server that waited for the body would never answer, and the test would time out). The whole app
// in process (test/support/appSpec.ts), the body a stream that never ends.
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Client,
  client,
  expectJson,
  multipartEnvelope,
  pdf,
  SMALL_PDF,
} from '../support/apiHelpers.ts';
import { type AppUnderTest, startApp } from '../support/appSpec.ts';
import { appFetch, appInject } from '../support/inProcess.ts';

const MB = 1024 * 1024;

type Answer = { status: number; body: { error?: string } };

/** POSTs a multipart body declared as `declared` bytes, sending only its first part. */
const withheld = async (url: string, key: string, declared: number): Promise<Answer> => {
  const envelope = multipartEnvelope({ title: 'big' }, 'big.pdf');
  const body = new Readable({ read() {} });
  body.push(envelope.head);
  body.push('%PDF-1.4\n'); // and never the rest
  const reply = await appInject(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': envelope.contentType,
      'content-length': String(declared),
    },
    payload: body,
  });
  body.destroy();
  return { status: reply.status, body: (await reply.json()) as Answer['body'] };
};

describe('upload limits checked before the body is read (free plan)', () => {
  let fx: AppUnderTest;
  let hobby: { key: string; workspaceId: string };
  let c: Client;

  beforeAll(async () => {
    fx = await startApp();
    hobby = await fx.newWorkspace('hobby', 'free');
    c = client(fx.api, hobby.key);
  });
  afterAll(async () => {
    await fx?.stop();
  });

  it('a 300 MB flipbook upload is a 422 naming the limit at once', async () => {
    const answer = await withheld(`${fx.api}/flipbooks`, hobby.key, 300 * MB);
    expect(answer.status).toBe(422);
    expect(answer.body.error).toMatch(
      /free plan: the upload limit is 50 MB, this upload is 29\d\.\d MB/,
    );
    expect((await appFetch(`${fx.base}/healthz`)).status).toBe(200);
    expectJson(await c.list(), 200);
  });

  it('so is a 300 MB version upload', async () => {
    const book = await c.create(pdf(SMALL_PDF));
    expectJson(book, 201);
    const answer = await withheld(
      `${fx.api}/flipbooks/${book.body.flipbook_id}/versions`,
      hobby.key,
      300 * MB,
    );
    expect(answer.status).toBe(422);
    expect(answer.body.error).toMatch(/upload limit is 50 MB/);
  });

  it('a flipbook over the plan’s number of flipbooks is a 422 before its body is read', async () => {
    const listed = await c.list('per_page=100');
    for (let i = listed.body.flipbooks.length; i < 10; i++) {
      expectJson(await c.create(pdf(SMALL_PDF), { title: `free ${i}` }), 201);
    }
    const answer = await withheld(`${fx.api}/flipbooks`, hobby.key, 2 * MB);
    expect(answer.status).toBe(422);
    expect(answer.body.error).toMatch(/Flipbook limit reached: the free plan allows 10 flipbooks/);
  });
});
