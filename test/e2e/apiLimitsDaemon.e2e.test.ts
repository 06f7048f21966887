// The Client API v1 under pressure where only daemons show it, each on one store and its own
// daemon: the 512 MB limit on a streamed (chunked) upload, two daemons sharing one rate limit
// through their database, and a graceful shutdown with an upload in flight. Rate limiting in one
// app and a body cut short are test/spec/apiLimits.spec.test.ts's, in process.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ApiFixture, startApi } from '../support/apiFixture.ts';
import {
  client,
  corpus,
  expectError,
  expectJson,
  expectRateLimited,
  multipartEnvelope,
  SMALL_PDF,
  send,
  sleep,
} from '../support/apiHelpers.ts';
import { startDaemon } from '../support/cli.ts';
import { tempDataDir } from '../support/databases.ts';
import { useCleanlyStoppedApi } from '../support/useApi.ts';

const MB = 1024 * 1024;

/** Streams `head`, then the chunks `more` yields, then `tail`: a chunked request body. */
const streamed = (head: Uint8Array, more: () => AsyncGenerator<Uint8Array>, tail?: Uint8Array) => {
  const chunks = (async function* () {
    yield head;
    yield* more();
    if (tail) yield tail;
  })();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
  });
};

const postStream = (fx: ApiFixture, contentType: string, body: ReadableStream<Uint8Array>) =>
  send(`${fx.api}/flipbooks`, {
    method: 'POST',
    body,
    duplex: 'half',
    headers: { authorization: `Bearer ${fx.key}`, 'content-type': contentType },
  } as RequestInit);

describe('upload size limit on the embedded store', () => {
  const fx = useCleanlyStoppedApi('embedded', ['--rate-limit', '0']);

  // Chunked, with no Content-Length: in process, appFetch would read the stream whole and declare
  // its length, and the upload would be refused by that before it is read (another path).
  it('413 JSON for an upload over 512 MB; no file left behind; the daemon still answers', {
    timeout: 180_000,
  }, async () => {
    const blobs = join(fx.storeArgs[1] ?? '', 'blobs');
    const envelope = multipartEnvelope({ title: 'huge' }, 'huge.pdf');
    const zeros = new Uint8Array(MB); // never written to, so one buffer serves every chunk
    const reply = await postStream(
      fx,
      envelope.contentType,
      streamed(
        envelope.head,
        async function* () {
          yield new TextEncoder().encode('%PDF-1.4\n');
          for (let i = 0; i < 513; i++) yield zeros;
        },
        envelope.tail,
      ),
    );
    expectError(reply, 413);

    await sleep(200);
    expect(readdirSync(join(blobs, 'tmp'))).toEqual([]);
    expect(readdirSync(join(blobs, 'originals'))).toEqual([]);
    const list = await client(fx.api, fx.key).list();
    expectJson(list, 200);
    expect(list.body.flipbooks).toEqual([]);
    expect((await fetch(`${fx.daemon.url}/healthz`)).status).toBe(200);
  });
});

/** Waits for the next one-minute window when fewer than `seconds` are left in this one. */
const roomInWindow = async (seconds: number) => {
  const left = 60 - ((Date.now() / 1000) % 60);
  if (left < seconds) await sleep(left * 1000 + 250);
};

describe('rate limiting on the postgres store', () => {
  it('two daemons on the same database share one limit', async () => {
    const first = await startApi('postgres', ['--rate-limit', '5']);
    const second = await startDaemon([...first.storeArgs, '--rate-limit', '5']);
    try {
      const one = client(first.api, first.key);
      const two = client(`${second.url}/api/v1`, first.key);
      await roomInWindow(8);
      for (let i = 0; i < 3; i++) expectJson(await one.list(), 200);
      for (let i = 0; i < 2; i++) expectJson(await two.list(), 200);
      // each daemon has seen at most 3 requests, but together they have seen 5
      expectRateLimited(await two.list(), 5);
      expectRateLimited(await one.list(), 5);
    } finally {
      await second.stop();
      await first.stop();
    }
  });
});

describe('robustness on the postgres store', () => {
  it('SIGTERM during an upload: the upload completes and the daemon exits 0', async () => {
    const blobDir = await tempDataDir();
    const fx = await startApi('postgres', ['--rate-limit', '0', '--blob-dir', blobDir]);
    let stopped: Promise<number | null> | null = null;
    try {
      const bytes = corpus(SMALL_PDF);
      const half = Math.floor(bytes.length / 2);
      let release = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const envelope = multipartEnvelope({ title: 'slow upload' }, 'slow.pdf');
      const answer = postStream(
        fx,
        envelope.contentType,
        streamed(
          envelope.head,
          async function* () {
            yield bytes.slice(0, half);
            await gate;
            yield bytes.slice(half);
          },
          envelope.tail,
        ),
      );
      // the upload has reached the daemon (its temporary file exists) and waits for the rest
      for (let i = 0; i < 100 && readdirSync(join(blobDir, 'tmp')).length === 0; i++) {
        await sleep(100);
      }
      expect(readdirSync(join(blobDir, 'tmp'))).toHaveLength(1);
      stopped = fx.daemon.stop(); // SIGTERM
      await sleep(500);
      expect(fx.daemon.process.exitCode, 'still finishing the upload').toBeNull();
      // no new connections are taken
      await expect(fetch(`${fx.daemon.url}/healthz`)).rejects.toThrow();
      release();
      const reply = await answer;
      expectJson(reply, 201);
      expect(reply.body.file_size).toBe(bytes.byteLength);
      expect(await stopped).toBe(0);
      expect(readdirSync(join(blobDir, 'tmp'))).toEqual([]);
    } finally {
      if (!stopped) await fx.stop();
    }
  });
});
