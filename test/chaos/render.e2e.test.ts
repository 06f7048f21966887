// Chaos around rendering, against the real daemon: versions deleted mid-render again and again,
// page files fetched while they are being written, a disk that fills up mid-render, a daemon
// killed with SIGKILL mid-render, and a daemon that cannot listen. The daemon must stay up, serve
// only whole files, blame no PDF for a full disk, and lose no work.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiFixture, startApi } from '../support/apiFixture.ts';
import {
  type Client,
  client,
  createFlipbook,
  expectJson,
  pdf,
  SMALL_PDF,
} from '../support/apiHelpers.ts';
import { FLIPBOOK, flipbook, NODE, ROOT, startDaemon } from '../support/cli.ts';
import { useApi } from '../support/useApi.ts';
import { waitFor } from '../support/waitFor.ts';

const LONG = 'text_why3-manual.pdf'; // 184 pages, ~13 s to render on 2 cores
const MEDIUM = 'vec_tracemonkey.pdf'; // 14 pages, 1 MB
// Long enough to be caught mid-render (fetched before its pages exist, killed while processing),
// and a quarter of LONG's renders: the whole-files sweep asks for every page's largest image too.
const BOOK = 'img_GS9_Color_Management.pdf';
const BOOK_PAGES = 42;
const NO_RATE_LIMIT = ['--rate-limit', '0'];

const statusOf = async (c: Client, flipbookId: string, versionId: string) => {
  const reply = await c.status(flipbookId, versionId);
  expectJson(reply, 200);
  return reply.body.status as string;
};

const untilStatus = (c: Client, f: string, v: string, wanted: string[], timeoutMs = 120_000) =>
  waitFor(
    `${v} to be ${wanted.join(' or ')}`,
    async () => {
      const status = await statusOf(c, f, v);
      return wanted.includes(status) ? status : undefined;
    },
    timeoutMs,
  );

/** pids of processes whose command line names the version (poppler writes into its directory) */
const renderersOf = (versionId: string) =>
  readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(versionId);
      } catch {
        return false; // ended meanwhile
      }
    });

const pageUrl = (fx: ApiFixture, versionId: string, position: number, file: string) =>
  `${fx.daemon.url}/files/pages/${versionId}/${position}/${file}`;

const isWholeJpeg = (bytes: Uint8Array) =>
  bytes.length > 4 &&
  bytes[0] === 0xff &&
  bytes[1] === 0xd8 &&
  bytes[bytes.length - 2] === 0xff &&
  bytes[bytes.length - 1] === 0xd9;

const logLines = (fx: ApiFixture) =>
  fx.daemon
    .logs()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { msg: string; level: number; versionId?: string });

describe('a daemon rendering while clients delete and fetch', () => {
  const fx = useApi('embedded', [...NO_RATE_LIMIT, '--workers', '2']);

  it('survives a version deleted mid-render 10 times, at different points of the render', async () => {
    const book = await createFlipbook(fx.c, {}, pdf(SMALL_PDF));
    await untilStatus(fx.c, book.flipbookId, book.versionId, ['done']);
    for (let round = 0; round < 10; round++) {
      const reply = await fx.c.addVersion(book.flipbookId, pdf(LONG), { activate: 'false' });
      expectJson(reply, 201);
      const versionId = reply.body.version_id as string;
      await untilStatus(fx.c, book.flipbookId, versionId, ['processing']);
      // Delete while pages are being derived, each round a little further into the document:
      // the derivations under way then lose their input (what crashed the daemon).
      const page = 1 + round * 3;
      await waitFor(`page ${page} of round ${round}`, async () => {
        const res = await fetch(pageUrl(fx, versionId, page, 'min.jpg'));
        await res.arrayBuffer();
        return res.status === 200 ? true : undefined;
      });
      const removed = await fx.c.remove(book.flipbookId, versionId);
      expect(removed.status, fx.daemon.logs().slice(-3000)).toBe(200);

      expect(fx.daemon.process.exitCode, fx.daemon.logs().slice(-2000)).toBeNull();
      expectJson(await fx.c.status(book.flipbookId, versionId), 404);
      const gone = await fetch(pageUrl(fx, versionId, 1, 'mid.jpg'));
      await gone.arrayBuffer();
      expect(gone.status).toBe(404);
      await waitFor('its renderers to end', async () =>
        renderersOf(versionId).length === 0 ? true : undefined,
      );
    }
    const health = await fetch(`${fx.daemon.url}/healthz`);
    expect(health.status).toBe(200);
    // Every failure was handled where it happened: the last resort never had to step in.
    expect(logLines(fx).filter((l) => /unhandled|uncaught/.test(l.msg))).toEqual([]);
    // And the daemon still processes.
    const next = await createFlipbook(fx.c, {}, pdf(SMALL_PDF));
    expect(await untilStatus(fx.c, next.flipbookId, next.versionId, ['done', 'error'])).toBe(
      'done',
    );
  }, 240_000);

  it('serves only whole page files while they are being written, revalidated until done', async () => {
    const book = await createFlipbook(fx.c, {}, pdf(BOOK));
    const files = ['max.jpg', 'mid.jpg', 'min.jpg'];
    let whole = 0;
    let missing = 0;
    let immutableSeen = false;
    // Fetch every page's renditions over and over (keep-alive connections: a body longer than
    // its Content-Length would corrupt the next answer on the connection) until the render ends.
    for (;;) {
      const status = await statusOf(fx.c, book.flipbookId, book.versionId);
      const finished = status === 'done' || status === 'error';
      for (let position = 1; position <= BOOK_PAGES; position += finished ? 1 : 4) {
        await Promise.all(
          files.map(async (file) => {
            const res = await fetch(pageUrl(fx, book.versionId, position, file));
            const bytes = new Uint8Array(await res.arrayBuffer());
            if (res.status === 404) {
              missing++;
              expect(finished, `${position}/${file} missing after the render`).toBe(false);
              return;
            }
            expect(res.status).toBe(200);
            expect(Number(res.headers.get('content-length'))).toBe(bytes.length);
            expect(isWholeJpeg(bytes), `${position}/${file} is a whole JPEG`).toBe(true);
            // A page of a version still processing may be replaced by a new attempt: immutable
            // only once it is done (checked after the fact: it may finish during this sweep).
            if (/immutable/.test(res.headers.get('cache-control') ?? '')) immutableSeen = true;
            whole++;
          }),
        );
      }
      if (immutableSeen && !finished) {
        expect(await statusOf(fx.c, book.flipbookId, book.versionId), 'immutable before done').toBe(
          'done',
        );
      }
      if (finished) {
        expect(status).toBe('done');
        break;
      }
    }
    expect(missing, 'some pages were fetched before they existed').toBeGreaterThan(0);
    expect(whole).toBeGreaterThan(BOOK_PAGES * 3);
    const done = await fetch(pageUrl(fx, book.versionId, BOOK_PAGES, 'mid.jpg'));
    await done.arrayBuffer();
    expect(done.headers.get('cache-control')).toMatch(/immutable/);
  }, 240_000);
});

describe('a disk that fills up mid-render', () => {
  let fx: ApiFixture | undefined;
  let mountPoint = '';

  beforeAll(() => {
    mountPoint = mkdtempSync(join(tmpdir(), 'flipbook-full-'));
    // Room for the 1 MB original and a few pages, not for 14 pages in three sizes.
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=3m', 'tmpfs', mountPoint]);
  });
  afterAll(async () => {
    await fx?.stop();
    execFileSync('umount', ['-l', mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  });

  it('defers the render instead of failing the PDF, stays up, and finishes once there is room', async () => {
    fx = await startApi(
      'embedded',
      [...NO_RATE_LIMIT, '--workers', '1', '--blob-dir', mountPoint],
      { FLIPBOOK_RETRY_MS: '2000' },
    );
    const c = client(fx.api, fx.key);
    const book = await createFlipbook(c, {}, pdf(MEDIUM));
    const deferred = await waitFor('the render to hit the full disk', async () =>
      logLines(fx as ApiFixture).find(
        (l) => l.msg === 'processing deferred: storage failed' && l.versionId === book.versionId,
      ),
    );
    expect(deferred).toBeDefined();
    // Not the PDF's fault: the version is not failed, and the daemon is up.
    expect(['pending', 'processing']).toContain(await statusOf(c, book.flipbookId, book.versionId));
    expect((await fetch(`${fx.daemon.url}/healthz`)).status).toBe(200);

    execFileSync('mount', ['-o', 'remount,size=64m', mountPoint]);
    expect(await untilStatus(c, book.flipbookId, book.versionId, ['done', 'error'])).toBe('done');
    const got = await c.flipbook(book.flipbookId);
    expect(got.body.pages).toHaveLength(14);
    expect(logLines(fx).filter((l) => l.msg === 'version failed')).toEqual([]);
  }, 180_000);
});

describe('a daemon killed with SIGKILL mid-render', () => {
  let first: ApiFixture | undefined;
  let second: Awaited<ReturnType<typeof startDaemon>> | undefined;

  afterAll(async () => {
    first?.daemon.process.kill('SIGKILL');
    await second?.stop();
  });

  it('leaves the job to the next daemon, which processes it once', async () => {
    const lease = { FLIPBOOK_LEASE_MS: '3000' };
    first = await startApi('embedded', [...NO_RATE_LIMIT, '--workers', '2'], lease);
    const c1 = client(first.api, first.key);
    const book = await createFlipbook(c1, {}, pdf(BOOK));
    await untilStatus(c1, book.flipbookId, book.versionId, ['processing']);
    first.daemon.process.kill('SIGKILL');
    await new Promise((r) => first?.daemon.process.once('exit', r));
    // its orphaned renderers would go on writing into their own attempt's directory; end them
    // (one may end by itself between the listing and the kill: ESRCH is that, and fine)
    for (const pid of renderersOf(book.versionId)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
    }

    second = await startDaemon([...first.storeArgs, ...NO_RATE_LIMIT, '--workers', '2'], lease);
    const c2 = client(`${second.url}/api/v1`, first.key);
    expect(await untilStatus(c2, book.flipbookId, book.versionId, ['done', 'error'])).toBe('done');
    const events = await flipbook(['events', book.flipbookId, '--json', ...first.storeArgs]);
    const types = (JSON.parse(events.stdout) as { type: string }[]).map((e) => e.type);
    expect(types.filter((t) => t === 'VersionProcessed')).toHaveLength(1);
    const got = await c2.flipbook(book.flipbookId);
    expect(got.body.pages).toHaveLength(BOOK_PAGES);
  }, 180_000);
});

describe('a daemon that cannot listen', () => {
  let fx: ApiFixture;
  beforeAll(async () => {
    fx = await startApi('embedded', NO_RATE_LIMIT);
  });
  afterAll(async () => {
    await fx?.stop();
  });

  it('exits non-zero with a clear message and takes no jobs', async () => {
    const c = client(fx.api, fx.key);
    const book = await createFlipbook(c, {}, pdf(SMALL_PDF)); // pending: the daemon has no lanes
    const port = new URL(fx.daemon.url).port;
    const child = spawn(
      NODE,
      [FLIPBOOK, 'serve', '--port', port, '--workers', '2', ...fx.storeArgs],
      { cwd: ROOT, env: { ...process.env, DATABASE_URL: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    clearTimeout(timer);
    expect(code, output).toBe(1);
    expect(output).toMatch(/cannot listen on 127\.0\.0\.1:\d+: the address is already in use/);
    expect(await statusOf(c, book.flipbookId, book.versionId)).toBe('pending');
  }, 60_000);
});
