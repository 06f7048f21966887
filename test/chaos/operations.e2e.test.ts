// Chaos from the operator's side, found by an independent tester: a PDF that makes poppler write
// gigabytes of complaints, the embedded database killed under a running daemon, a stop while a
// slow upload is still arriving, folders removed from under the daemon, and requests node:http
// itself used to answer with bare bodies.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiFixture, startApi } from '../support/apiFixture.ts';
import {
  type Client,
  client,
  createFlipbook,
  expectError,
  pdf,
  SMALL_PDF,
} from '../support/apiHelpers.ts';
import { rawExchange } from '../support/rawHttp.ts';
import { waitFor } from '../support/waitFor.ts';

const NO_RATE_LIMIT = ['--rate-limit', '0'];

const outcome = (c: Client, flipbookId: string, versionId: string, timeoutMs = 120_000) =>
  waitFor(
    `${versionId} to finish`,
    async () => {
      const reply = await c.status(flipbookId, versionId);
      return reply.body.status === 'done' || reply.body.status === 'error' ? reply.body : undefined;
    },
    timeoutMs,
  );

const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

describe('a daemon under operational chaos', () => {
  let fx: ApiFixture;
  let c: Client;
  let dataDir: string;

  beforeAll(async () => {
    fx = await startApi('embedded', [...NO_RATE_LIMIT, '--workers', '2'], {
      FLIPBOOK_RETRY_MS: '1000',
    });
    c = client(fx.api, fx.key);
    dataDir = fx.storeArgs[1] ?? '';
  });
  afterAll(async () => {
    await fx?.stop();
  });

  it('keeps its own memory small while poppler floods stderr (the smask bomb)', async () => {
    const pid = fx.daemon.process.pid ?? 0;
    const bomb = await createFlipbook(c, {}, pdf('dos_bomb_giant.pdf'));
    let peak = 0;
    const watching = setInterval(() => {
      peak = Math.max(peak, rssMb(pid));
    }, 200);
    const final = await outcome(c, bomb.flipbookId, bomb.versionId).finally(() =>
      clearInterval(watching),
    );
    // poppler wrote gigabytes of complaints; the daemon kept 64 KB of them (it peaked at 1.4 GB)
    expect(peak, 'daemon RSS in MB').toBeLessThan(500);
    expect(['done', 'error']).toContain(final.status);
    if (final.status === 'error') expect(final.error_reason).not.toMatch(/Invalid string length/);
  }, 180_000);

  it('is not ready (503) while its embedded database is down, and starts it again', async () => {
    const pidFile = join(dataDir, 'pg', 'postmaster.pid');
    const postmaster = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    process.kill(postmaster, 'SIGKILL');
    const down = await waitFor('/readyz to say the database is gone', async () => {
      const res = await fetch(`${fx.daemon.url}/readyz`);
      const body = await res.text();
      return res.status === 503 ? body : undefined;
    });
    expect(JSON.parse(down)).toEqual({ error: 'The database is unavailable' });
    // Liveness: the process still serves, so a supervisor does not restart it for this.
    expect((await fetch(`${fx.daemon.url}/healthz`)).status).toBe(200);
    await waitFor(
      'the database to be back',
      async () => ((await fetch(`${fx.daemon.url}/readyz`)).status === 200 ? true : undefined),
      30_000,
    );
    const book = await createFlipbook(c, {}, pdf(SMALL_PDF));
    expect((await outcome(c, book.flipbookId, book.versionId)).status).toBe('done');
    expect(fx.daemon.logs()).toContain('the embedded PostgreSQL had stopped: started it again');
  }, 120_000);

  it('takes uploads after its temp folder was removed, and defers a render whose folder vanished', async () => {
    rmSync(join(dataDir, 'blobs', 'tmp'), { recursive: true, force: true });
    const book = await createFlipbook(c, {}, pdf('text_why3-manual.pdf'));
    // remove the version's page folder while it renders, as a careless operator would
    await waitFor('pages of the render', async () => {
      const res = await fetch(`${fx.daemon.url}/files/pages/${book.versionId}/2/min.jpg`);
      await res.arrayBuffer();
      return res.status === 200 ? true : undefined;
    });
    // (the daemon may write a file into it between rm's listing and its rmdir: try again)
    rmSync(join(dataDir, 'blobs', 'pages', book.versionId), {
      recursive: true,
      force: true,
      maxRetries: 20,
      retryDelay: 5,
    });
    const final = await outcome(c, book.flipbookId, book.versionId, 180_000);
    // not blamed on the PDF: tried again, and done
    expect(final.status, JSON.stringify(final)).toBe('done');
    // put off: the files that vanished are the store's failure (an attempt that counts,
    // src/worker/deferrals.ts), and the next attempt renders the pages whose files are gone
    expect(fx.daemon.logs()).toMatch(/processing deferred: (storage failed|the file store failed)/);
    expect(fx.daemon.logs()).not.toMatch(/"error_reason":"[^"]*\/tmp\//);
  }, 240_000);

  it('answers with JSON what node:http used to answer bare', async () => {
    const noHost = await rawExchange(
      fx.daemon.url,
      'GET /api/v1/flipbooks HTTP/1.1\r\nConnection: close\r\n\r\n',
    );
    expect(noHost).toMatch(/^HTTP\/1.1 401/);
    expect(noHost).toMatch(/\{"error":"Unauthorized"\}/);
    // a request target in absolute form is routed by its path (RFC 9112 §3.2.2)
    const absolute = await rawExchange(
      fx.daemon.url,
      'GET http://example.com/healthz?x=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    );
    expect(absolute).toMatch(/^HTTP\/1.1 200/);
    expect(absolute).toMatch(/\{"status":"ok"\}/);
    const expectation = await rawExchange(
      fx.daemon.url,
      'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: 200-nope\r\nConnection: close\r\n\r\n',
    );
    expect(expectation).toMatch(/^HTTP\/1.1 417/);
    expect(expectation).toMatch(/"error":"Expectation failed/);
    const head = await fetch(`${fx.api}/flipbooks`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${fx.key}` },
    });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await head.text()).toBe('');
    expectError(await c.get('/flipbooks/not-an-id'), 400, /^Invalid flipbook ID$/);
  });
});

describe('a daemon told to stop while a slow upload is still arriving', () => {
  let fx: ApiFixture;
  beforeAll(async () => {
    fx = await startApi('embedded', [...NO_RATE_LIMIT, '--grace', '2']);
  });
  afterAll(async () => {
    await fx?.stop();
  });

  it('waits out its grace period, cuts the upload, and exits cleanly', async () => {
    const { hostname, port } = new URL(fx.daemon.url);
    // an upload that announces 10 MB and sends a trickle: it would take an hour
    const socket = connect(Number(port), hostname);
    socket.on('error', () => {});
    socket.write(
      'POST /api/v1/flipbooks HTTP/1.1\r\nHost: x\r\n' +
        `Authorization: Bearer ${fx.key}\r\n` +
        'Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 10000000\r\n\r\n' +
        '--b\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n\r\n%PDF-1.4\n',
    );
    const trickle = setInterval(() => socket.write('x'.repeat(100)), 100);
    await waitFor('the upload to arrive', async () =>
      readdirSync(join(fx.storeArgs[1] ?? '', 'blobs', 'tmp')).length > 0 ? true : undefined,
    );
    const stoppedAt = Date.now();
    const code = await fx.daemon.stop();
    clearInterval(trickle);
    socket.destroy();
    expect(code).toBe(0);
    expect(Date.now() - stoppedAt, 'stop took').toBeLessThan(15_000);
    expect(fx.daemon.logs()).toContain('grace period over');
    expect(fx.daemon.logs()).toContain('"msg":"stopped"');
  }, 60_000);
});
