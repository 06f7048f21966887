// The publishing client as a package of its own: the daemon serves the tarball of its own version,
// the install line of docs/ci.md and the README (run as written, by a shell) installs it into an
// empty prefix as one package with no dependencies, and it runs on the machine's own Node (20
// here and in CI), not the project's Node 24, against a real daemon.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiFixture, startApi } from '../support/apiFixture.ts';
import { CORPUS } from '../support/apiHelpers.ts';
import { ROOT } from '../support/cli.ts';
import { footprint, pipelineEnv, run, shell } from '../support/clientInstall.ts';

const VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;

/** Every `npm install -g ...flipbook-cli.tgz...` line of a document. */
const installLines = (file: string) =>
  readFileSync(join(ROOT, file), 'utf8')
    .split('\n')
    .map((line) => line.replace(/^\s*(- |- run: )?/, '').replace(/\s+#.*$/, ''))
    .filter((line) => /^npm install -g .*flipbook-cli\.tgz/.test(line));

describe('the client package', () => {
  let fx: ApiFixture;

  beforeAll(async () => {
    fx = await startApi('embedded', ['--workers', '1', '--rate-limit', '0']);
  }, 120_000);

  afterAll(async () => {
    await fx?.stop();
  });

  it('is served by the daemon, revalidated by its ETag', async () => {
    const answer = await fetch(`${fx.daemon.url}/downloads/flipbook-cli.tgz`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/gzip');
    expect(answer.headers.get('content-disposition')).toContain(`flipbook-cli-${VERSION}.tgz`);
    const bytes = new Uint8Array(await answer.arrayBuffer());
    expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]); // gzip
    const etag = answer.headers.get('etag') ?? '';
    const again = await fetch(`${fx.daemon.url}/downloads/flipbook-cli.tgz`, {
      headers: { 'if-none-match': etag },
    });
    expect(again.status).toBe(304);
  }, 60_000);

  it('installs with the documented line, as one small package, and publishes on Node 20+', async () => {
    const lines = [...installLines('docs/ci.md'), ...installLines('README.md')];
    expect(lines.length).toBeGreaterThanOrEqual(3); // GitHub Actions, GitLab CI, the README
    expect(new Set(lines)).toEqual(
      new Set(['npm install -g "$FLIPBOOK_URL/downloads/flipbook-cli.tgz"']),
    );

    const machine = pipelineEnv();
    const env = { ...machine.env, FLIPBOOK_URL: fx.daemon.url };
    const installed = await shell(lines[0] as string, env);
    expect(installed.code, installed.stderr).toBe(0);
    const { bytes, packages } = footprint(machine.prefix);
    expect(packages).toEqual(['flipbook-cli']);
    expect(bytes).toBeLessThan(10 * 1024 * 1024);

    const nodeVersion = await run(machine.node, ['--version'], env);
    expect(Number(/^v(\d+)/.exec(nodeVersion.stdout)?.[1])).toBeGreaterThanOrEqual(20);
    // `flipbook` as a pipeline calls it: found on PATH, run by the machine's node
    const version = await shell('flipbook --version', env);
    expect(version.code, version.stderr).toBe(0);
    expect(version.stdout.trim()).toBe(VERSION);

    const withKey = { ...env, FLIPBOOK_API_KEY: fx.key };
    const published = await run(
      machine.flipbook,
      ['publish', join(CORPUS, 'text_multicolumn.pdf'), '--wait', '--json'],
      withKey,
    );
    expect(published.code, published.stderr).toBe(0);
    const result = JSON.parse(published.stdout);
    expect(result.status).toBe('done');
    expect(result.url).toContain(`/f/${result.flipbook_id}`);

    const listed = await run(machine.flipbook, ['list', '--json'], withKey);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.stringify(JSON.parse(listed.stdout))).toContain(result.flipbook_id);
    const status = await run(
      machine.flipbook,
      ['status', result.flipbook_id, result.version_id],
      withKey,
    );
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/done/);
    // The workspace's feed: what webhooks deliver, in order.
    const events = await run(machine.flipbook, ['events', '--json'], withKey);
    expect(events.code, events.stderr).toBe(0);
    const feed = events.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; data: { version_id?: string } });
    expect(
      feed.some((e) => e.type === 'version.done' && e.data.version_id === result.version_id),
    ).toBe(true);
    // A usage error is exit 2 on this Node too.
    expect((await run(machine.flipbook, ['publish'], withKey)).code).toBe(2);
  }, 240_000);
});
