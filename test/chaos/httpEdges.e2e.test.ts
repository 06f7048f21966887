// The HTTP edges a hostile or unlucky client reaches, against a real daemon: a blob directory on
// a full disk (a small tmpfs), text PostgreSQL cannot store, and requests node:http refuses before
// routing (an over-long header, bad syntax). Every answer is a JSON error, and the daemon lives on.
// Last, bin/flipbook run directly with another Node first on PATH.
import { execFile, execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiFixture, startApi } from '../support/apiFixture.ts';
import {
  type Client,
  client,
  corpus,
  createFlipbook,
  expectError,
  expectJson,
  multipartEnvelope,
  pdf,
  type Reply,
  SMALL_PDF,
  send,
} from '../support/apiHelpers.ts';
import { FLIPBOOK, NODE, ROOT } from '../support/cli.ts';
import { freshDatabase } from '../support/databases.ts';
import { parseRaw, rawExchange } from '../support/rawHttp.ts';

const MB = 1024 * 1024;
const OUT_OF_SPACE = /out of storage space/;

/** Every regular file under `dir`, relative to it. */
const filesUnder = (dir: string, prefix = ''): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? filesUnder(join(dir, entry.name), `${prefix}${entry.name}/`)
      : [`${prefix}${entry.name}`],
  );

/** A 20 MB file that passes the `%PDF-` check: far more than the 8 MB file system holds. */
const bigPdf = () => {
  const bytes = new Uint8Array(20 * MB);
  bytes.set(new TextEncoder().encode('%PDF-1.4\n'));
  return { bytes, name: 'big.pdf', type: 'application/pdf' };
};

/** Sends raw bytes on a fresh connection and reads the answer until the server closes it. */
const rawRequest = async (base: string, request: string | Uint8Array) =>
  parseRaw(await rawExchange(base, request));

const isRoot = process.getuid?.() === 0;

// Mounting a tmpfs needs root (as in CI and on the development machine).
/** The promise's value, or 'timeout' if it takes longer than `ms`. */
const within = <T>(promise: Promise<T>, ms: number) =>
  new Promise<T | 'timeout'>((resolve) => {
    const timer = setTimeout(() => resolve('timeout'), ms);
    promise.then((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });

describe.skipIf(!isRoot)('a full disk under the blob directory (8 MB tmpfs)', () => {
  let blobDir = '';
  let mounted = false;
  let fx: ApiFixture;
  let api: Client;
  let flipbookId = '';

  beforeAll(async () => {
    blobDir = mkdtempSync(join(tmpdir(), 'flipbook-full-disk-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m,mode=0755', 'tmpfs', blobDir]);
    mounted = true;
    fx = await startApi('postgres', ['--rate-limit', '0', '--blob-dir', blobDir]);
    api = client(fx.api, fx.key);
  });
  afterAll(async () => {
    try {
      if (fx) {
        // A hanging upload (the bug this suite guards against) would hold a graceful stop
        // forever: bound it, so the file system below is always unmounted.
        const stopped = await within(fx.daemon.stop(), 20_000);
        if (stopped === 'timeout') fx.daemon.process.kill('SIGKILL');
        expect(stopped).toBe(0);
      }
    } finally {
      if (mounted) execFileSync('umount', ['--lazy', blobDir]);
      if (blobDir) rmSync(blobDir, { recursive: true, force: true });
    }
  });

  /**
   * The uploads of these tests: nothing but originals may remain, and no temporary file (the
   * store's owner mark, written by the start-up sweep, aside).
   */
  const storedFiles = () =>
    filesUnder(blobDir).filter((f) => f !== 'filler' && f !== 'flipbook-store.json');
  const expectOnlyOriginals = (count: number) => {
    const files = storedFiles();
    expect(files.filter((f) => !f.startsWith('originals/'))).toEqual([]);
    expect(files).toHaveLength(count);
  };

  it('stores a small upload while there is room (synced and renamed into place)', async () => {
    ({ flipbookId } = await createFlipbook(api, { title: 'before the disk filled' }));
    expectOnlyOriginals(1);
  });

  it('a 20 MB upload that fills the disk gets 507 at once, and its temporary file is gone', {
    timeout: 60_000,
  }, async () => {
    const started = Date.now();
    const reply = await api.create(bigPdf(), { title: 'too big for the disk' });
    expectError(reply, 507, OUT_OF_SPACE);
    expect(reply.headers.get('connection')).toBe('close');
    // Before the fix the request hung until the client gave up; it must not take the whole body's
    // time either, but on a loaded machine only "well within the test timeout" is certain.
    expect(Date.now() - started).toBeLessThan(30_000);
    expectOnlyOriginals(1);
    expectJson(await send(`${fx.daemon.url}/healthz`), 200);
  });

  it('curl sees the 507 JSON answer too (not a reset or a hang)', { timeout: 60_000 }, async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'flipbook-big-')), 'big.pdf');
    writeFileSync(file, bigPdf().bytes);
    try {
      const { stdout } = await new Promise<{ stdout: string }>((resolve, reject) =>
        execFile(
          'curl',
          [
            '-sS',
            '--max-time',
            '30',
            '-H',
            `Authorization: Bearer ${fx.key}`,
            '-F',
            `file=@${file};type=application/pdf`,
            '-w',
            '\n%{http_code}',
            `${fx.api}/flipbooks`,
          ],
          (error, out, err) =>
            error ? reject(new Error(`${error.message}\n${err}`)) : resolve({ stdout: out }),
        ),
      );
      const [body = '', status] = stdout.split('\n');
      expect(status).toBe('507');
      expect(JSON.parse(body).error).toMatch(OUT_OF_SPACE);
    } finally {
      rmSync(join(file, '..'), { recursive: true, force: true });
    }
    expectOnlyOriginals(1);
  });

  describe('with the disk completely full', () => {
    beforeAll(() => {
      // Fill every block: the write fails with ENOSPC once the file system is full.
      expect(() => writeFileSync(join(blobDir, 'filler'), new Uint8Array(16 * MB))).toThrow(
        /ENOSPC/,
      );
    });

    it('a small new flipbook and a small new version both get 507; nothing is kept', async () => {
      const before = (await api.list()).body.flipbooks.length;
      expectError(await api.create(pdf(SMALL_PDF), { title: 'no room' }), 507, OUT_OF_SPACE);
      expectError(await api.addVersion(flipbookId), 507, OUT_OF_SPACE);
      expect((await api.list()).body.flipbooks).toHaveLength(before);
      expect((await api.flipbook(flipbookId)).body.versions).toHaveLength(1);
      expectOnlyOriginals(1);
    });

    it('a streamed upload (chunked, no length) gets 507 too', async () => {
      const envelope = multipartEnvelope({ title: 'streamed' }, 'streamed.pdf');
      const body = new Blob([envelope.head, corpus(SMALL_PDF), envelope.tail]).stream();
      const reply = await send(`${fx.api}/flipbooks`, {
        method: 'POST',
        body,
        duplex: 'half',
        headers: { authorization: `Bearer ${fx.key}`, 'content-type': envelope.contentType },
      } as RequestInit);
      expectError(reply, 507, OUT_OF_SPACE);
      expectOnlyOriginals(1);
    });

    it('the daemon still answers, and accepts uploads again once space is freed', async () => {
      expectJson(await send(`${fx.daemon.url}/healthz`), 200, undefined);
      expect(fx.daemon.process.exitCode).toBeNull();
      rmSync(join(blobDir, 'filler'));
      const again = await api.create(pdf(SMALL_PDF, 'after.pdf'), { title: 'room again' });
      expectJson(again, 201);
      expect(statSync(blobDir).isDirectory()).toBe(true);
      // The same bytes as the first upload: stored once, under the same checksum.
      expectOnlyOriginals(1);
      expect(fx.daemon.logs()).toMatch(/out of storage space/);
    });
  });
});

describe('input PostgreSQL cannot store, and requests refused before routing', () => {
  let fx: ApiFixture;
  let api: Client;

  beforeAll(async () => {
    fx = await startApi('postgres', ['--rate-limit', '0']);
    api = client(fx.api, fx.key);
  });
  afterAll(async () => {
    if (fx) expect(await fx.daemon.stop()).toBe(0);
  });

  it('a NUL in the title is a 400 that names the field; nothing is created', async () => {
    const reply = await api.create(pdf(SMALL_PDF), { title: 'a\u0000b' });
    expectJson(reply, 400, 'Invalid title: it contains a NUL character');
    expect((await api.list()).body.flipbooks).toEqual([]);
  });

  it('a NUL in search is a 400 that names the parameter', async () => {
    expectJson(await api.list('search=%00'), 400, 'Invalid search: it contains a NUL character');
    expectJson(await api.list('search=a%00b'), 400, 'Invalid search: it contains a NUL character');
    expectJson(await api.list('search=ok'), 200);
  });

  it('a NUL in activate is a 400 (only the documented spellings pass)', async () => {
    const { flipbookId } = await createFlipbook(api, { title: 'for versions' });
    const reply = await api.addVersion(flipbookId, pdf(SMALL_PDF), { activate: 'true\u0000' });
    expectError(reply, 400, /^Invalid activate/);
  });

  it('a NUL in the file name: refused raw, dropped when percent-encoded (RFC 5987)', async () => {
    // A raw NUL is not allowed in a header value: busboy refuses the part.
    expectError(await api.create(pdf(SMALL_PDF, 'nul\u0000name.pdf')), 400, /^Malformed multipart/);
    // filename*= is percent-decoded, so a NUL arrives in the name; the name is cleaned.
    const boundary = `----flipbook-test-nul`;
    const head =
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; ` +
      `filename*=utf-8''nul%00name.pdf\r\nContent-Type: application/pdf\r\n\r\n`;
    const reply = await send(`${fx.api}/flipbooks`, {
      method: 'POST',
      body: Buffer.concat([
        Buffer.from(head),
        corpus(SMALL_PDF),
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]),
      headers: {
        authorization: `Bearer ${fx.key}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
      },
    });
    expectJson(reply, 201);
    const stored = await api.flipbook(reply.body.flipbook_id);
    expect(stored.body.title).toBe('nulname.pdf');
  });

  it('a lone surrogate sent as UTF-8 bytes arrives as U+FFFD and is stored', async () => {
    // CESU-8 bytes of U+D800: not UTF-8, so the decoder replaces them; no lone surrogate reaches
    // PostgreSQL's jsonb (which would refuse it).
    const envelope = multipartEnvelope({}, 'surrogate.pdf');
    const boundary = envelope.contentType.split('boundary=')[1];
    const title = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\na`),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from('b\r\n'),
    ]);
    const reply = await send(`${fx.api}/flipbooks`, {
      method: 'POST',
      body: Buffer.concat([title, envelope.head, corpus(SMALL_PDF), envelope.tail]),
      headers: { authorization: `Bearer ${fx.key}`, 'content-type': envelope.contentType },
    });
    expectJson(reply, 201);
    const stored = await api.flipbook(reply.body.flipbook_id);
    expect(stored.body.title).toMatch(/^a\ufffd+b$/);
  });

  it('a header over 16 KB gets 431 with a JSON error body; the daemon lives on', async () => {
    const reply = await rawRequest(
      fx.daemon.url,
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`,
    );
    expect(reply.status).toBe(431);
    expect(reply.headers['content-type']).toMatch(/^application\/json\b/);
    expect(reply.headers['content-length']).toBe(String(Buffer.byteLength(reply.body)));
    expect(JSON.parse(reply.body)).toEqual({ error: 'Request header fields too large' });
    expectJson(await send(`${fx.daemon.url}/healthz`), 200);
  });

  it('a request node:http cannot parse gets 400 with a JSON error body', async () => {
    for (const request of [
      'NONSENSE\r\n\r\n',
      'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header Name: 1\r\n\r\n',
      'POST /api/v1/flipbooks HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n',
    ]) {
      const reply = await rawRequest(fx.daemon.url, request);
      expect(reply.status, request).toBe(400);
      expect(reply.headers['content-type']).toMatch(/^application\/json\b/);
      expect(JSON.parse(reply.body)).toEqual({ error: 'Bad request' });
    }
    expectJson(await send(`${fx.daemon.url}/healthz`), 200);
  });

  it('a CONNECT (this is no proxy) gets 501 with a JSON error body', async () => {
    for (const target of ['example.com:443', '/b']) {
      const reply = await rawRequest(
        fx.daemon.url,
        `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`,
      );
      expect(reply.status, target).toBe(501);
      expect(reply.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(JSON.parse(reply.body)).toEqual({
        error: 'Not implemented: CONNECT (this is not a proxy)',
      });
    }
    expectJson(await send(`${fx.daemon.url}/healthz`), 200);
  });

  it('an unknown route is still a JSON 404', async () => {
    const reply: Reply = await send(`${fx.daemon.url}/no/such/route`);
    expectJson(reply, 404, 'Not found');
  });
});

type Run = { code: number | null; stdout: string; stderr: string };

/** Runs a program (not through a shell) and collects what it printed and its exit code. */
const run = (file: string, args: string[], env: NodeJS.ProcessEnv) =>
  new Promise<Run>((resolve) => {
    execFile(file, args, { cwd: tmpdir(), env, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ code, stdout, stderr });
    });
  });

/** Every `node` on this machine's PATH older than 24, by its real path. */
const olderNodes = () => {
  const found = new Set<string>();
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const candidate = join(dir, 'node');
    if (!dir || !existsSync(candidate)) continue;
    const version = execFileSync(candidate, ['-p', 'process.versions.node']).toString().trim();
    if (Number(version.split('.')[0]) < 24) found.add(realpathSync(candidate));
  }
  return [...found];
};

describe('bin/flipbook run directly, whatever `node` comes first on PATH', () => {
  const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;
  // A `node` that only says it was run: if bin/flipbook used PATH's node, this would answer.
  let decoy = '';
  beforeAll(() => {
    decoy = mkdtempSync(join(tmpdir(), 'flipbook-decoy-node-'));
    writeFileSync(join(decoy, 'node'), '#!/bin/sh\necho "the decoy node ran" >&2\nexit 99\n', {
      mode: 0o755,
    });
    symlinkSync(FLIPBOOK, join(decoy, 'flipbook')); // as node_modules/.bin/flipbook links it
  });
  const pathWith = (first: string) => ({
    ...process.env,
    DATABASE_URL: '',
    PATH: `${first}:${process.env.PATH}`,
  });
  const older = olderNodes();
  afterAll(() => {
    if (decoy) rmSync(decoy, { recursive: true, force: true });
  });

  it('answers --version and --help on the project Node, not the decoy first on PATH', async () => {
    const shown = await run(FLIPBOOK, ['--version'], pathWith(decoy));
    expect(shown, shown.stderr).toMatchObject({ code: 0, stdout: `${version}\n` });
    const help = await run(FLIPBOOK, ['--help'], pathWith(decoy));
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^Usage: flipbook /);
  });

  it('works through a symlink found on PATH, as npm links it', async () => {
    const shown = await run('flipbook', ['--version'], pathWith(decoy));
    expect(shown, shown.stderr).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it.skipIf(older.length === 0)(
    `works with this machine's older Node first on PATH (${older.join(', ') || 'none'})`,
    async () => {
      for (const node of older) {
        const env = pathWith(join(node, '..'));
        const help = await run(FLIPBOOK, ['--help'], env);
        expect(help.code, help.stderr).toBe(0);
        expect(help.stdout).toMatch(/^Usage: flipbook /);
        // Handed to an old Node explicitly, it says what to do instead of a loader error.
        const direct = await run(node, [FLIPBOOK, '--version'], env);
        expect(direct.code).toBe(1);
        expect(direct.stderr).toMatch(/flipbook needs Node 24.*run bin\/flipbook itself/);
      }
    },
  );

  it('the daemon is the exec-ed Node itself: its title hides the command line, SIGTERM stops it cleanly', {
    timeout: 60_000,
  }, async () => {
    const blobs = mkdtempSync(join(tmpdir(), 'flipbook-direct-blobs-'));
    const args = ['serve', '--port', '0', '--workers', '0', '--blob-dir', blobs];
    const child = spawn(FLIPBOOK, [...args, '--database-url', await freshDatabase()], {
      env: pathWith(decoy),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // The exit code, or the signal that ended it (a SIGTERM nobody handled).
    const exited = new Promise<number | string | null>((resolve) =>
      child.once('exit', (code, signal) => resolve(code ?? signal)),
    );
    let output = '';
    try {
      await new Promise<void>((ready, failed) => {
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          if (output.includes('"flipbook ready on')) ready();
        });
        child.stderr.on('data', (chunk: Buffer) => {
          output += chunk.toString();
        });
        child.once('exit', (code) => failed(new Error(`exited with ${code}:\n${output}`)));
      });
      // Same pid, project Node: exec, not a child process a signal would have to be passed to.
      expect(readlinkSync(`/proc/${child.pid}/exe`)).toBe(realpathSync(NODE));
      expect(readFileSync(`/proc/${child.pid}/cmdline`, 'utf8')).not.toContain('--database-url');
      const url = /"publicUrl":"([^"]+)"/.exec(output)?.[1];
      expectJson(await send(`${url}/healthz`), 200);
      child.kill('SIGTERM');
      expect(await exited, output).toBe(0);
    } finally {
      child.kill('SIGKILL');
      rmSync(blobs, { recursive: true, force: true });
    }
  });
});
