// The publishing commands (`publish`, `version`, `status`, `list`, `show`, `login`) as a CI
// pipeline or a person at a terminal uses them: the real binary against real daemons, judged only
// by exit codes, stdout, stderr, files and /proc. One daemon processes uploads (embedded store,
// 2 workers, no rate limit); a second one allows 3 requests a minute, for the 429 retry, whose
// scenario starts in beforeAll and runs alongside the rest (its wait can be most of a minute).
import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, truncate, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import { type AddressInfo, connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiFixture, startApi } from '../support/apiFixture.ts';
import { client } from '../support/apiHelpers.ts';
import { type CliResult, FLIPBOOK, flipbook, NODE, ROOT } from '../support/cli.ts';
import { corpus } from '../support/corpus.ts';
import { descendants } from '../support/processTree.ts';
import { waitFor } from '../support/waitFor.ts';

const SMALL = corpus('text_multicolumn.pdf'); // 3 pages
const ENCRYPTED = corpus('enc_issue3371.pdf'); // needs a password: processing ends in error
// 352 pages: with one render slot (below) it processes for longer than the progress tests need
const LONG = corpus('text_freeculture.pdf');
const ANSI = '\u001b';
const UUID = '[0-9a-f-]{36}';
const WRONG_KEY = `svc_${'0'.repeat(48)}`;

type Published = {
  flipbook_id: string;
  version_id: string;
  status: string;
  pages: number;
  url: string;
  error_reason?: string;
  availability?: string;
};
type Version = { id: string; version: number; status: string; is_active: boolean };
type Book = { id: string; title: string; url: string; versions: Version[] };

let fx: ApiFixture;
let limited: ApiFixture;
let rateLimited: Promise<{ published: CliResult; status: CliResult } | Error>;
const tempDirs: string[] = [];

const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'flipbook-cli-'));
  tempDirs.push(dir);
  return dir;
};

/** No saved login, no credentials in the environment: each test says where they come from. */
let isolated: NodeJS.ProcessEnv;
const withEnv = (api: ApiFixture, key = api.key): NodeJS.ProcessEnv => ({
  ...isolated,
  FLIPBOOK_URL: api.daemon.url,
  FLIPBOOK_API_KEY: key,
});
const env = () => withEnv(fx);

/** Like flipbook(), with a longer limit: a 429 may wait up to a minute for the next window. */
const slowFlipbook = (args: string[], environment: NodeJS.ProcessEnv) =>
  new Promise<CliResult>((done) => {
    execFile(
      NODE,
      [FLIPBOOK, ...args],
      { cwd: ROOT, env: { ...process.env, ...environment }, timeout: 100_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A port nothing listens on. */
const closedPort = () =>
  new Promise<number>((done) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => done(typeof address === 'object' && address ? address.port : 1));
    });
  });

const ok = (result: CliResult) => {
  if (result.code !== 0) throw new Error(`exit ${result.code}\n${result.stderr}${result.stdout}`);
  return result;
};
const json = <T>(result: CliResult) => JSON.parse(ok(result).stdout) as T;

/**
 * `flipbook ARGS` on a terminal: `script` gives it one and records what it drew in `log`. The
 * terminal's environment has no CI variables (the CLI draws no live view under CI).
 */
const onTerminal = (args: string[], log: string) => {
  const command = [NODE, FLIPBOOK, ...args].map((arg) => `'${arg}'`).join(' ');
  const { CI: _ci, CONTINUOUS_INTEGRATION: _ci2, ...noCi } = process.env;
  return {
    command: 'script',
    args: ['-q', '-e', '-c', command, log],
    options: { cwd: ROOT, env: { ...noCi, ...isolated, TERM: 'xterm-256color' } },
  };
};

/** Runs `flipbook ARGS` on a terminal to its end. */
const runOnTerminal = (args: string[], log: string, timeout: number) =>
  new Promise<CliResult>((done) => {
    const terminal = onTerminal(args, log);
    execFile(
      terminal.command,
      terminal.args,
      { ...terminal.options, timeout },
      (error, stdout, stderr) =>
        done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });

/** What a terminal showed, without its escape sequences (colours, cursor moves). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing escape sequences
const plainText = (raw: string) => raw.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');

/**
 * 429 then retry: `publish` (no --wait) makes exactly 3 requests (create, status, show), so the
 * `status` after it is the 4th in the window: refused with Retry-After, retried in the next
 * window. All four must fall in one fixed one-minute window, so it starts early in one.
 */
const rateLimitScenario = async (api: ApiFixture) => {
  const intoWindow = (Date.now() / 1000) % 60;
  if (intoWindow > 50) await sleep((61 - intoWindow) * 1000);
  const published = await slowFlipbook(['publish', SMALL, '--json'], withEnv(api));
  const book = JSON.parse(ok(published).stdout) as Published;
  const status = await slowFlipbook(
    ['status', book.flipbook_id, book.version_id, '--json'],
    withEnv(api),
  );
  return { published, status };
};

beforeAll(async () => {
  isolated = {
    XDG_CONFIG_HOME: await tempDir(),
    FLIPBOOK_URL: undefined,
    FLIPBOOK_API_KEY: undefined,
  };
  [fx, limited] = await Promise.all([
    // One render slot: long renders last long enough to follow (what is tested is the CLI).
    startApi('embedded', ['--workers', '2', '--render-processes', '1', '--rate-limit', '0']),
    startApi('embedded', ['--rate-limit', '3']),
  ]);
  rateLimited = rateLimitScenario(limited).catch((error: Error) => error);
});

afterAll(async () => {
  await rateLimited;
  await Promise.all([fx?.stop(), limited?.stop()]);
  await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('publishing from a pipeline (no terminal)', () => {
  let first: Published;

  it('publish --wait --json: one JSON document, done, 3 pages, the reader URL; progress on stderr; exit 0', async () => {
    const result = ok(await flipbook(['publish', SMALL, '--wait', '--json'], env()));
    expect(result.stdout.trimEnd().split('\n')).toHaveLength(1);
    first = JSON.parse(result.stdout) as Published;
    expect(first).toEqual({
      flipbook_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      version_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'done',
      pages: 3,
      url: `${fx.daemon.url}/f/${first.flipbook_id}`,
      availability: 'available',
      // the first version of a new flipbook becomes active when done
      is_active: true,
      activate_on_done: true,
    });
    expect(first.url.startsWith(fx.daemon.url)).toBe(true);
    // A CI log sees the wait (the same lines as without --json), stdout only the result.
    expect(result.stderr).toMatch(
      /^(status: (pending|processing)( \(.*\))?\n)+status: done \(3 pages\)\n$/,
    );
  });

  it('--url/--api-key flags win over the environment', async () => {
    const flags = ['--url', fx.daemon.url, '--api-key', fx.key];
    const wrongEnv = withEnv(fx, WRONG_KEY);
    const book = json<Book>(
      await flipbook(['show', first.flipbook_id, '--json', ...flags], wrongEnv),
    );
    expect(book.id).toBe(first.flipbook_id);
    // ...and without the flags, that environment's key is the one used.
    const refused = await flipbook(['show', first.flipbook_id, '--json'], wrongEnv);
    expect(refused.code).toBe(1);
  });

  let titled: { flipbookId: string; versionId: string; title: string };

  it('publish --title without --wait: plain short lines, no escape codes, the URL on stdout', async () => {
    const title = `Spring catalogue ${randomUUID().slice(0, 8)}`;
    const result = ok(await flipbook(['publish', SMALL, '--title', title], env()));
    for (const text of [result.stdout, result.stderr]) {
      expect(text).not.toContain(ANSI);
      expect(text).not.toContain('\r');
      for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(120);
    }
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    const match = /^flipbook ([0-9a-f-]{36}) version ([0-9a-f-]{36}): (pending|processing)/.exec(
      lines[0] ?? '',
    );
    expect(match, result.stdout).not.toBeNull();
    const [, flipbookId = '', versionId = ''] = match ?? [];
    expect(lines[1]).toBe(`${fx.daemon.url}/f/${flipbookId}`);
    expect(result.stderr).toMatch(/^status: (pending|processing)/);
    titled = { flipbookId, versionId, title };
  });

  it('status --wait follows it to done; status --json then reports it', async () => {
    const waited = ok(
      await flipbook(['status', titled.flipbookId, titled.versionId, '--wait'], env()),
    );
    expect(waited.stdout).toBe('done (3 pages), active\n');
    // the same lines as publish --wait writes (with the page count once known)
    expect(waited.stderr).toMatch(/status: done \(3 pages\)\n$/);
    expect(waited.stderr).not.toContain(ANSI);

    const status = json<Record<string, unknown>>(
      await flipbook(['status', titled.flipbookId, titled.versionId, '--json'], env()),
    );
    expect(status).toMatchObject({
      version_id: titled.versionId,
      status: 'done',
      pages: 3,
      is_active: true,
      version: 1,
    });
  });

  it('status --wait --json on a finished version prints its status at once', async () => {
    const result = ok(
      await flipbook(['status', first.flipbook_id, first.version_id, '--wait', '--json'], env()),
    );
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'done', pages: 3 });
  });

  it('list --search --per-page --json finds the titled flipbook', async () => {
    const word = titled.title.split(' ').at(-1) ?? '';
    const list = json<{ flipbooks: Book[]; page: number; per_page: number; total_pages: number }>(
      await flipbook(['list', '--search', word, '--per-page', '1', '--json'], env()),
    );
    expect(list.flipbooks.map((b) => [b.id, b.title])).toEqual([[titled.flipbookId, titled.title]]);
    expect(list).toMatchObject({ page: 1, per_page: 1, total_pages: 1 });

    // Both flipbooks so far, one per page.
    const paged = json<{ flipbooks: Book[]; page: number; total_pages: number }>(
      await flipbook(['list', '--per-page', '1', '--page', '2', '--json'], env()),
    );
    expect(paged.flipbooks).toHaveLength(1);
    expect(paged).toMatchObject({ page: 2, total_pages: 2 });

    const plain = ok(await flipbook(['list', '--search', word], env()));
    expect(plain.stdout).toContain(titled.flipbookId);
    expect(plain.stdout).not.toContain(ANSI);
  });

  let second: Published;

  it('version add --no-activate --wait --json: done but not active (show --json agrees)', async () => {
    second = json<Published>(
      await flipbook(
        ['version', 'add', first.flipbook_id, SMALL, '--no-activate', '--wait', '--json'],
        env(),
      ),
    );
    expect(second).toMatchObject({
      flipbook_id: first.flipbook_id,
      status: 'done',
      pages: 3,
      is_active: false,
      activate_on_done: false,
    });
    expect(second.version_id).not.toBe(first.version_id);
    expect(second.url).toBe(first.url);

    const book = json<Book>(await flipbook(['show', first.flipbook_id, '--json'], env()));
    const active = Object.fromEntries(book.versions.map((v) => [v.id, v.is_active]));
    expect(active).toEqual({ [first.version_id]: true, [second.version_id]: false });
    const status = json<{ is_active: boolean; version: number }>(
      await flipbook(['status', first.flipbook_id, second.version_id, '--json'], env()),
    );
    expect(status).toMatchObject({ is_active: false, version: 2 });
  });

  it('version activate makes it the active one', async () => {
    const result = ok(
      await flipbook(['version', 'activate', first.flipbook_id, second.version_id], env()),
    );
    expect(result.stdout).toBe(`active version: ${second.version_id}\n`);
    const book = json<Book>(await flipbook(['show', first.flipbook_id, '--json'], env()));
    expect(book.versions.find((v) => v.is_active)?.id).toBe(second.version_id);

    const plain = ok(await flipbook(['show', first.flipbook_id], env()));
    expect(plain.stdout.split('\n').slice(0, 2)).toEqual([book.title, first.url]);
  });

  it('version delete: the inactive version goes; the active one is refused with the 422 text', async () => {
    const deleted = json<{ success: boolean }>(
      await flipbook(['version', 'delete', first.flipbook_id, first.version_id, '--json'], env()),
    );
    expect(deleted.success).toBe(true);
    const book = json<Book>(await flipbook(['show', first.flipbook_id, '--json'], env()));
    expect(book.versions.map((v) => v.id)).toEqual([second.version_id]);

    const refused = await flipbook(
      ['version', 'delete', first.flipbook_id, second.version_id],
      env(),
    );
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe(
      'flipbook: An active version cannot be deleted; activate another version first\n',
    );
  });

  it('publish <folder>: its images, zipped, one flipbook of one page each; the ZIP removed after', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'cli-folder-'));
    try {
      const png = (width: number) =>
        sharp({ create: { width, height: 100, channels: 3, background: '#4477aa' } })
          .png()
          .toBuffer();
      await mkdir(join(folder, 'more'));
      await writeFile(join(folder, 'p1.png'), await png(100));
      await writeFile(join(folder, 'more', 'p2.png'), await png(200));
      await writeFile(join(folder, 'readme.txt'), 'not a page');
      const result = ok(await flipbook(['publish', folder, '--wait', '--json'], env()));
      expect(JSON.parse(result.stdout)).toMatchObject({ status: 'done', pages: 2 });
      const left = (await readdir(tmpdir())).filter((name) => name.startsWith('flipbook-folder-'));
      expect(left).toEqual([]);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('a damaged PDF refused at upload: exit 3, as when processing fails', async () => {
    const damaged = corpus('bad_invalid.pdf'); // a %PDF- header, then nothing pdfinfo can read
    for (const args of [
      ['publish', damaged, '--wait', '--json'],
      ['publish', damaged],
    ]) {
      const result = await flipbook(args, env());
      expect(result.code, result.stderr).toBe(3);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/The server cannot read this PDF: File is not a readable PDF/);
    }
  });

  it('an encrypted PDF with --wait: exit 3, the JSON still printed with status error', async () => {
    const result = await flipbook(['publish', ENCRYPTED, '--wait', '--json'], env());
    expect(result.code, result.stderr).toBe(3);
    const published = JSON.parse(result.stdout) as Published;
    expect(published.status).toBe('error');
    expect(published.url).toBe(`${fx.daemon.url}/f/${published.flipbook_id}`);
    // ...which leads nowhere until a version is processed: said, so a pipeline need not find out
    expect(published.availability).toBe('failed');
    expect(result.stderr).toContain(
      'flipbook: Processing ended in error: The PDF is password-protected',
    );
    expect(published.error_reason).toMatch(/^The PDF is password-protected/);

    const status = await flipbook(
      ['status', published.flipbook_id, published.version_id, '--json'],
      env(),
    );
    expect(status.code).toBe(3);
    expect(JSON.parse(status.stdout)).toMatchObject({
      status: 'error',
      error_reason: expect.stringMatching(/^The PDF is password-protected/),
    });
    expect(status.stderr).toContain('Processing ended in error: The PDF is password-protected');

    // Its only version failed: listed and shown as failed, with no reader URL (it answers 404).
    const listed = ok(await flipbook(['list', '--per-page', '100'], env()));
    const row = listed.stdout.split('\n').find((line) => line.startsWith(published.flipbook_id));
    expect(row).toMatch(/ failed +public +\S+ +-$/);
    expect(row).not.toContain('/f/');
    const shown = ok(await flipbook(['show', published.flipbook_id], env()));
    expect(shown.stdout).not.toContain(published.url);
    expect(shown.stdout).toContain(
      `Failed: no version could be processed, so it has no reader URL (it answers 404). The newest: The PDF is password-protected`,
    );
    expect(shown.stdout).toContain(
      `Publish a new version: flipbook version add ${published.flipbook_id} FILE`,
    );
  });
});

describe('credentials', () => {
  it('login saves them (mode 0600); later commands need no environment', async () => {
    const config = await tempDir();
    const bare = { ...isolated, XDG_CONFIG_HOME: config };
    const login = ok(
      await flipbook(['login', '--url', `${fx.daemon.url}/`, '--api-key', fx.key], bare),
    );
    const file = join(config, 'flipbook', 'config.json');
    expect(login.stdout).toBe(`saved to ${file}\n`);
    expect(login.stdout).not.toContain(fx.key);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ url: fx.daemon.url, apiKey: fx.key });

    const list = json<{ flipbooks: Book[] }>(await flipbook(['list', '--json'], bare));
    expect(list.flipbooks.length).toBeGreaterThan(0);

    // Used from the saved login, it says so on stderr.
    const fromLogin = await flipbook(['list', '--json'], bare);
    expect(fromLogin.stderr).toContain(
      `using the server and API key saved by flipbook login (${file})`,
    );

    // The environment still wins over the saved login; a variable that is set but empty (a CI
    // secret missing) is an error naming it, never the saved login of whoever used this machine.
    const overridden = await flipbook(['list', '--json'], { ...bare, FLIPBOOK_API_KEY: WRONG_KEY });
    expect(overridden.code).toBe(1);
    for (const name of ['FLIPBOOK_API_KEY', 'FLIPBOOK_URL']) {
      const empty = await flipbook(['publish', SMALL, '--json'], { ...bare, [name]: '' });
      expect(empty.code).toBe(2);
      expect(empty.stderr).toContain(`${name} is set but empty`);
      expect(empty.stdout).toBe('');
    }

    // Logging in again over an existing file keeps it private.
    await writeFile(file, '{}', { mode: 0o644 });
    ok(await flipbook(['login', '--url', fx.daemon.url, '--api-key', fx.key], bare));
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('no credentials anywhere: exit 2 saying how to give them', async () => {
    const result = await flipbook(['list'], isolated);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'No server: pass --url, set FLIPBOOK_URL, or run flipbook login',
    );
  });

  it('a wrong key: exit 1, the server, where the key came from, its last four characters, what to do', async () => {
    const result = await flipbook(['publish', SMALL, '--json'], withEnv(fx, WRONG_KEY));
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `flipbook: ${fx.daemon.url} refused the API key in FLIPBOOK_API_KEY (ending in …0000): it is not a key of this server, or it was revoked or has expired. Create a key on the dashboard's API keys page (${fx.daemon.url}/dashboard/keys), or check FLIPBOOK_API_KEY\n`,
    );
  });

  it('the OpenAPI document’s servers URL (…/api/v1) is taken for the service’s root', async () => {
    const list = await flipbook(['list', '--json'], {
      ...env(),
      FLIPBOOK_URL: `${fx.daemon.url}/api/v1`,
    });
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toHaveProperty('flipbooks');
  });
});

describe('refused before anything is sent', () => {
  // The server is a closed port: any request would fail (after retries) with exit 1, so exit 2
  // at once proves the file was refused without one.
  let nowhere: NodeJS.ProcessEnv;
  let dir: string;
  beforeAll(async () => {
    nowhere = {
      ...isolated,
      FLIPBOOK_URL: `http://127.0.0.1:${await closedPort()}`,
      FLIPBOOK_API_KEY: fx.key,
    };
    dir = await tempDir();
  });

  it('a file that is not a PDF, an office document or an image: exit 2', async () => {
    const notPdf = join(dir, 'notes.pdf');
    await writeFile(notPdf, 'just some text, no header\n');
    for (const args of [
      ['publish', notPdf, '--wait'],
      ['version', 'add', randomUUID(), notPdf, '--json'],
    ]) {
      const result = await flipbook(args, nowhere);
      // exit 2, not the exit 1 of an unreachable server: no request was tried
      expect(result.code, result.stderr).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        `flipbook: ${notPdf} is not a PDF, an office document or an image (JPEG, PNG, WebP, TIFF)\n`,
      );
    }
  });

  it('a missing file: exit 2', async () => {
    const missing = join(dir, 'missing.pdf');
    const result = await flipbook(['publish', missing, '--json'], nowhere);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`flipbook: No such file: ${missing}\n`);
  });

  it('a file over 512 MB: exit 2', async () => {
    const huge = join(dir, 'huge.pdf');
    await writeFile(huge, '%PDF-1.4\n');
    await truncate(huge, 512 * 1024 * 1024 + 1); // sparse: takes no disk space
    const result = await flipbook(['publish', huge], nowhere);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('uploads are limited to 512 MB');
  });

  it('a malformed key: exit 2, said to be one', async () => {
    const result = await flipbook(['publish', SMALL, '--json'], {
      ...nowhere,
      FLIPBOOK_API_KEY: 'abc',
    });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toBe(
      "flipbook: The API key in FLIPBOOK_API_KEY (3 characters long) is not an API key: a key is svc_ followed by 48 lowercase hexadecimal characters, shown once when it is created. Create one on the dashboard's API keys page, or check FLIPBOOK_API_KEY\n",
    );
  });

  it('a bad --timeout: exit 2', async () => {
    const result = await flipbook(['publish', SMALL, '--wait', '--timeout', 'soon'], nowhere);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--timeout must be a number of seconds');
  });

  it('an unreachable server (a valid file): exit 1 after retrying', async () => {
    const result = await flipbook(['publish', SMALL, '--json'], nowhere);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('network error');
    expect(result.stderr).toContain(`flipbook: Cannot reach ${nowhere.FLIPBOOK_URL}`);
  });
});

describe('waiting on a long job', () => {
  let slow: Published;
  // Its 352 pages are of no use once the tests have waited on it: deleting it stops the render,
  // which would otherwise take the cores from the suites after this one.
  afterAll(async () => {
    if (slow?.flipbook_id) await flipbook(['delete', slow.flipbook_id, '--yes'], env());
  });

  it('--timeout 0.5 --wait: exit 4', async () => {
    const result = await flipbook(['publish', LONG, '--wait', '--timeout', '0.5', '--json'], env());
    expect(result.code, result.stderr).toBe(4);
    expect(result.stdout).toBe('');
    // The message names the version, so a pipeline can wait for it again later.
    const match = new RegExp(
      `flipbook: Timed out after 0\\.5 s: version (${UUID}) of flipbook (${UUID}) is (pending|processing)\n$`,
    ).exec(result.stderr);
    expect(match, result.stderr).not.toBeNull();
    slow = { flipbook_id: match?.[2] ?? '', version_id: match?.[1] ?? '' } as Published;
  });

  it('the API key given with --api-key is not in /proc/<pid>/cmdline; Ctrl-C exits 130', async () => {
    const child = spawn(
      NODE,
      [FLIPBOOK, 'status', slow.flipbook_id, slow.version_id, '--wait', '--api-key', fx.key],
      { cwd: ROOT, env: { ...process.env, ...isolated, FLIPBOOK_URL: fx.daemon.url } },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      // Once it has polled, it is past start-up and waiting.
      for (let i = 0; i < 100 && !stderr.includes('status: '); i++) await sleep(100);
      expect(stderr).toMatch(/status: (pending|processing)/);
      expect(child.exitCode).toBeNull();
      const cmdline = readFileSync(`/proc/${child.pid}/cmdline`, 'latin1');
      expect(cmdline).not.toContain(fx.key);
      expect(cmdline).not.toContain('svc_');
      expect(cmdline.replaceAll('\0', ' ').trim()).toBe('flipbook');

      child.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(stderr).toContain('flipbook: Interrupted');
    } finally {
      child.kill('SIGKILL');
    }
  });
});

/** `flipbook publish FILE --wait` on a terminal, to a clean exit: what the terminal showed. */
const publishOnTerminal = async (file: string, timeout: number) => {
  const log = join(await tempDir(), 'typescript.log');
  const result = await runOnTerminal(
    ['publish', file, '--wait', '--url', fx.daemon.url, '--api-key', fx.key],
    log,
    timeout,
  );
  const raw = readFileSync(log, 'utf8');
  expect(result.code, raw).toBe(0);
  return raw;
};

describe('on a terminal', () => {
  it('draws the progress bar and the processing state, then prints the URL', async () => {
    const raw = await publishOnTerminal(SMALL, 60_000);
    expect(raw).toContain(ANSI); // a live view redrawn in place, not plain lines
    const text = plainText(raw);
    expect(text).toContain('█');
    expect(text).toContain('100%');
    expect(text).toContain('Uploaded text_multicolumn.pdf');
    expect(text).toContain('Processing: done (3 pages)');
    expect(text).toMatch(new RegExp(`${fx.daemon.url}/f/[0-9a-f-]{36}`));
  });
});

describe('following a long render', () => {
  it('on a terminal: a bar of pages done with the pace and the time left', async () => {
    // The long book: the pace is said once 3 s of progress are seen, and the 117-page one is now
    // processed in about that.
    const text = plainText(await publishOnTerminal(LONG, 180_000));
    expect(text).toMatch(/Processing \[[█░]+\] \d+ of 352 pages/);
    expect(text).toMatch(/[\d.]+ pages\/s, about \d+ (s|min)/);
    expect(text).toContain('Processing: done (352 pages)');
  }, 200_000);

  it('in a pipeline: a plain line at most every 5 s while processing; Ctrl-C says what to follow', async () => {
    const child = spawn(NODE, [FLIPBOOK, 'publish', LONG, '--wait'], {
      cwd: ROOT,
      env: { ...process.env, ...env() },
    });
    const lines: { at: number; text: string }[] = [];
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      for (const text of chunk.toString().split('\n').filter(Boolean)) {
        lines.push({ at: Date.now(), text });
      }
    });
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      // Two progress lines, then Ctrl-C mid-render.
      for (
        let i = 0;
        i < 600 && lines.filter((l) => / of 352 pages/.test(l.text)).length < 2;
        i++
      ) {
        await sleep(100);
      }
      const progress = lines.filter((l) => /^status: processing \(\d+ of 352 pages/.test(l.text));
      expect(progress.length, stderr).toBeGreaterThanOrEqual(2);
      for (let i = 1; i < progress.length; i++) {
        expect((progress[i]?.at ?? 0) - (progress[i - 1]?.at ?? 0)).toBeGreaterThanOrEqual(4500);
      }
      expect(stderr).not.toContain(ANSI);
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(stderr).toMatch(
        new RegExp(`Interrupted; processing goes on: flipbook (${UUID}) version (${UUID})`),
      );
      const [, id, vid] = /flipbook ([0-9a-f-]{36}) version ([0-9a-f-]{36})/.exec(stderr) ?? [];
      expect(stderr).toContain(`Follow it: flipbook status ${id} ${vid} --wait`);
      // and it does go on: what a follower sees moves past where the command stopped (following
      // to done is "status --wait follows it to done"; the rest of the render is not waited for)
      const seen = async () => {
        const status = await flipbook(['status', id ?? '', vid ?? '', '--json'], env());
        expect(status.code, status.stderr).toBe(0);
        return JSON.parse(status.stdout) as { status: string; pages_done: number };
      };
      const stopped = await seen();
      const later = await waitFor('processing to go on', async () => {
        const now = await seen();
        return now.pages_done > stopped.pages_done ? now : undefined;
      });
      expect(later.status).toMatch(/^(processing|done)$/);
      await flipbook(['delete', id ?? '', '--yes'], env());
    } finally {
      child.kill('SIGKILL');
    }
  }, 240_000);
});

describe('rate limited (3 requests a minute)', () => {
  it('a 429 is waited out (Retry-After) and the command still succeeds', {
    timeout: 100_000,
  }, async () => {
    const outcome = await rateLimited;
    if (outcome instanceof Error) throw outcome;
    const { published, status } = outcome;
    expect(published.stderr).not.toContain('rate limited');
    expect(status.code, status.stderr).toBe(0);
    expect(status.stderr).toMatch(/^rate limited; retrying in \d+ s\n$/);
    const book = JSON.parse(published.stdout) as Published;
    expect(JSON.parse(status.stdout)).toMatchObject({
      version_id: book.version_id,
      status: 'pending', // no workers on this daemon
    });
  });
});

describe('told truthfully', () => {
  it('edit --visibility links says its URL now answers 404 to readers, and list shows it', async () => {
    const made = json<Published>(await flipbook(['publish', SMALL, '--wait', '--json'], env()));
    const edited = ok(await flipbook(['edit', made.flipbook_id, '--visibility', 'links'], env()));
    expect(edited.stdout.split('\n').slice(1)).toEqual([
      made.url,
      `Links only: its URL answers 404 to anyone but the workspace's members, signed in; readers need a share link (flipbook share create ${made.flipbook_id} LABEL)`,
      '',
    ]);
    expect(edited.stdout.split('\n')[0]).toMatch(/ \(published, links, slug [a-z0-9-]+\)$/);
    const listed = ok(await flipbook(['list', '--per-page', '100'], env()));
    const row = listed.stdout.split('\n').find((line) => line.startsWith(made.flipbook_id));
    expect(row).toMatch(/ published +links +\S+ +http\S+\/f\/[0-9a-f-]{36}$/);
  });

  it('an empty --api-key or --url is an error naming it (never a saved login)', async () => {
    for (const [flag, value] of [
      ['--api-key', ''],
      ['--url', ' '],
    ] as const) {
      const result = await flipbook(['list', '--json', flag, value], env());
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`${flag} was given but is empty`);
    }
  });

  it('a server URL with a query or a fragment: exit 2', async () => {
    const result = await flipbook(['list'], { ...env(), FLIPBOOK_URL: `${fx.daemon.url}/?x=1` });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('must not have a query or fragment');
  });

  it('a login page (or any other site) in front of the server is a failure, never an empty success', async () => {
    const sso = createHttpServer((req, res) => {
      if (req.url?.startsWith('/login')) {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<form>Sign in</form>');
      } else res.writeHead(302, { location: '/login' }).end();
    });
    await new Promise<void>((r) => sso.listen(0, '127.0.0.1', r));
    const address = sso.address() as AddressInfo;
    try {
      const other = { ...env(), FLIPBOOK_URL: `http://127.0.0.1:${address.port}` };
      for (const args of [
        ['list', '--json'],
        ['show', randomUUID(), '--json'],
        ['publish', SMALL],
      ]) {
        const result = await flipbook(args, other);
        expect(result.code, `${args[0]}: ${result.stdout}`).toBe(1);
        expect(result.stdout).toBe('');
        expect(result.stderr).toContain('did not answer as a flipbook server (HTTP 302 to /login');
      }
    } finally {
      sso.close();
    }
  });

  it('publishes a file whose name has quotes, brackets and a dollar sign', async () => {
    const dir = await tempDir();
    const name = `Price list (2026) 'final' $x!.pdf`;
    await writeFile(join(dir, name), readFileSync(SMALL));
    const result = json<Published>(await flipbook(['publish', join(dir, name), '--json'], env()));
    const book = json<Book>(await flipbook(['show', result.flipbook_id, '--json'], env()));
    expect(book.title).toBe(name);
  });

  it('goes through HTTP_PROXY when one is set', async () => {
    const seen: string[] = [];
    const proxy = createHttpServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      const target = new URL(req.url ?? '/');
      const forward = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname + target.search,
          method: req.method,
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', () => res.writeHead(502).end());
      req.pipe(forward);
    });
    // undici reaches every target through a tunnel (CONNECT), http:// ones too
    proxy.on('connect', (req, socket, head) => {
      seen.push(`CONNECT ${req.url}`);
      const [host, port] = (req.url ?? '').split(':');
      const upstream = connect(Number(port), host, () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const address = proxy.address() as AddressInfo;
    try {
      const result = await flipbook(['list', '--json'], {
        ...env(),
        HTTP_PROXY: `http://127.0.0.1:${address.port}`,
        NO_PROXY: '',
      });
      expect(result.code, result.stderr).toBe(0);
      const daemon = new URL(fx.daemon.url);
      expect(seen).toContain(`CONNECT ${daemon.hostname}:${daemon.port}`);
    } finally {
      proxy.close();
    }
  });

  it('Ctrl-C on a terminal, with the progress view drawn: the ids and what to follow, exit 130', async () => {
    const dir = await tempDir();
    const log = join(dir, 'typescript.log');
    const marker = `interrupted-${randomUUID()}`;
    const run = onTerminal(
      ['publish', LONG, '--wait', '--title', marker, '--url', fx.daemon.url, '--api-key', fx.key],
      log,
    );
    const terminal = spawn(run.command, run.args, run.options);
    const exited = new Promise<number | null>((r) => terminal.once('exit', (code) => r(code)));
    try {
      // Once the server renders its pages, Ctrl-C the command (the signal a terminal sends it).
      // (script's log is written late: the server tells the state, asked over the API: the
      // commands as a user runs them are the rest of this file's)
      const api = client(fx.api, fx.key);
      await waitFor('the server to render its pages', async () => {
        const listed = await api.get(`/flipbooks?search=${marker}`);
        const id = (listed.body?.flipbooks ?? [])[0]?.id as string | undefined;
        if (!id) return undefined;
        const version = ((await api.get(`/flipbooks/${id}`)).body as Book).versions?.[0];
        if (!version) return undefined;
        const status = await api.status(id, version.id);
        return (status.body?.pages_done ?? 0) > 0 ? true : undefined;
      });
      const node = descendants(terminal.pid ?? 0).find((p) => p.program.startsWith('node'));
      expect(node).toBeDefined();
      process.kill(node?.pid ?? 0, 'SIGINT');
      expect(await exited).toBe(130);
      const text = plainText(readFileSync(log, 'utf8'));
      expect(text).toMatch(
        new RegExp(`Interrupted; processing goes on: flipbook ${UUID} version ${UUID}`),
      );
      expect(text).toMatch(new RegExp(`Follow it: flipbook status ${UUID} ${UUID} --wait`));
      // Done with it: deleting it stops its render (the suites after this one need the cores).
      const id = new RegExp(`processing goes on: flipbook (${UUID})`).exec(text)?.[1] ?? '';
      expect((await flipbook(['delete', id, '--yes'], env())).code).toBe(0);
    } finally {
      terminal.kill('SIGKILL');
    }
  }, 120_000);
});
