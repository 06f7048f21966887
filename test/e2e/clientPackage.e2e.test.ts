// The publishing client as a package of its own: the daemon serves the tarball of its own version,
// `npm install -g <server>/downloads/flipbook-cli.tgz` (the line docs/ci.md and the README show)
// installs it into an empty prefix as one package with no dependencies, and it runs on the
// machine's own Node (20 here and in CI), not the project's Node 24, against a real daemon.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiFixture, startApi } from '../support/apiFixture.ts';
import { CORPUS } from '../support/apiHelpers.ts';
import { ROOT } from '../support/cli.ts';

/** The first `node` on PATH that is not the project's own (node_modules/.bin): the machine's. */
const systemNode = () => {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'node');
    try {
      const real = realpathSync(candidate);
      if (!real.startsWith(ROOT) && statSync(real).isFile()) return candidate;
    } catch {
      // not there
    }
  }
  throw new Error('no system Node.js on PATH besides the project’s own');
};

const run = (file: string, args: string[], env: NodeJS.ProcessEnv, cwd = tmpdir()) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(file, args, { env, cwd, timeout: 120_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });

/** Bytes of every file under `dir`, and the package folders (node_modules/<name>) in it. */
const footprint = (dir: string) => {
  let bytes = 0;
  const packages: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) {
        if (dirname(path).endsWith('node_modules') && !entry.name.startsWith('.')) {
          packages.push(entry.name);
        }
        walk(path);
      } else if (entry.isFile()) bytes += statSync(path).size;
    }
  };
  walk(dir);
  return { bytes, packages };
};

describe('the client package', () => {
  let fx: ApiFixture;
  let prefix: string;
  let env: NodeJS.ProcessEnv;
  let node: string;

  beforeAll(async () => {
    fx = await startApi('embedded', ['--workers', '1', '--rate-limit', '0']);
    node = systemNode();
    prefix = mkdtempSync(join(tmpdir(), 'flipbook-cli-prefix-'));
    // The machine's Node first, and none of the project's binaries: what a pipeline has.
    const path = [
      dirname(node),
      ...(process.env.PATH ?? '').split(delimiter).filter((d) => !d.startsWith(ROOT)),
    ].join(delimiter);
    env = {
      PATH: path,
      HOME: mkdtempSync(join(tmpdir(), 'flipbook-cli-home-')),
      npm_config_cache: mkdtempSync(join(tmpdir(), 'flipbook-cli-npm-cache-')),
      npm_config_update_notifier: 'false',
      npm_config_fund: 'false',
      npm_config_audit: 'false',
    };
  }, 120_000);

  afterAll(async () => {
    await fx?.stop();
  });

  it('is served by the daemon, revalidated by its ETag', async () => {
    const answer = await fetch(`${fx.daemon.url}/downloads/flipbook-cli.tgz`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/gzip');
    const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
    expect(answer.headers.get('content-disposition')).toContain(`flipbook-cli-${version}.tgz`);
    const bytes = new Uint8Array(await answer.arrayBuffer());
    expect(bytes[0]).toBe(0x1f); // gzip
    expect(bytes[1]).toBe(0x8b);
    const etag = answer.headers.get('etag') ?? '';
    const again = await fetch(`${fx.daemon.url}/downloads/flipbook-cli.tgz`, {
      headers: { 'if-none-match': etag },
    });
    expect(again.status).toBe(304);
  }, 60_000);

  it('installs from the server with npm, as one package of a few MB, and runs on Node 20+', async () => {
    const installed = await run(
      'npm',
      ['install', '-g', '--prefix', prefix, `${fx.daemon.url}/downloads/flipbook-cli.tgz`],
      env,
    );
    expect(installed.code, installed.stderr).toBe(0);
    const { bytes, packages } = footprint(prefix);
    expect(packages).toEqual(['flipbook-cli']);
    expect(bytes).toBeLessThan(10 * 1024 * 1024);

    const nodeVersion = await run(node, ['--version'], env);
    expect(Number(/^v(\d+)/.exec(nodeVersion.stdout)?.[1])).toBeGreaterThanOrEqual(20);
    const flipbook = join(prefix, 'bin', 'flipbook');
    const version = await run(flipbook, ['--version'], env);
    expect(version.code, version.stderr).toBe(0);
    expect(version.stdout.trim()).toBe(
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version,
    );

    const withKey = { ...env, FLIPBOOK_URL: fx.daemon.url, FLIPBOOK_API_KEY: fx.key };
    const published = await run(
      flipbook,
      ['publish', join(CORPUS, 'text_multicolumn.pdf'), '--wait', '--json'],
      withKey,
    );
    expect(published.code, published.stderr).toBe(0);
    const result = JSON.parse(published.stdout);
    expect(result.status).toBe('done');
    expect(result.url).toContain(`/f/${result.flipbook_id}`);

    const listed = await run(flipbook, ['list', '--json'], withKey);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.stringify(JSON.parse(listed.stdout))).toContain(result.flipbook_id);
    const status = await run(flipbook, ['status', result.flipbook_id, result.version_id], withKey);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/done/);
    // A usage error is exit 2 on this Node too.
    expect((await run(flipbook, ['publish'], withKey)).code).toBe(2);
  }, 240_000);
});
