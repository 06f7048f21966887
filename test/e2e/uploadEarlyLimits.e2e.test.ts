// The plan limits an upload's headers already tell (its declared size, the number of flipbooks
// or versions) are refused before the body is read. Each request here sends its headers and the
// start of its body, then withholds the rest: an answer can only come from the early check (a
// server that waited for the body would never answer, and the test would time out).
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiFixture, startApi } from '../support/apiFixture.ts';
import {
  type Client,
  client,
  expectJson,
  multipartEnvelope,
  pdf,
  SMALL_PDF,
} from '../support/apiHelpers.ts';

const MB = 1024 * 1024;

type Answer = { status: number; headers: Record<string, unknown>; body: { error?: string } };

/** POSTs a multipart body declared as `declared` bytes, sending only its first part. */
const withheld = (url: string, key: string, declared: number) =>
  new Promise<Answer>((resolve, reject) => {
    const envelope = multipartEnvelope({ title: 'big' }, 'big.pdf');
    const req = request(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': envelope.contentType,
        'content-length': String(declared),
      },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) });
      });
    });
    req.on('error', reject);
    req.write(envelope.head);
    req.write('%PDF-1.4\n'); // and never the rest
  });

describe('upload limits checked before the body is read (free plan)', () => {
  let fx: ApiFixture;
  let hobby: { key: string; workspaceId: string };
  let c: Client;

  beforeAll(async () => {
    fx = await startApi('embedded', ['--rate-limit', '0']);
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
    expect((await fetch(`${fx.daemon.url}/healthz`)).status).toBe(200);
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
