// The container image, built from the Dockerfile at the root (by the global setup, while the
// other suites run: test/support/containerImage.ts) and run as a deployer would. It runs the image on a volume, publishes a PDF from outside with the client package, checks
// the service runs as a non-root user and is healthy, stops it (SIGTERM, within the grace),
// starts a new container on the same volume and finds everything kept.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CORPUS } from '../support/apiHelpers.ts';
import { pipelineEnv, run } from '../support/clientInstall.ts';
import { type BuiltImage, must, podman } from '../support/containerImage.ts';
import { waitFor } from '../support/waitFor.ts';

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

describe('the container image', () => {
  const volume = `flipbook-test-${randomBytes(4).toString('hex')}`;
  const containers: string[] = [];
  let port = 0;
  let base = '';

  const start = async () => {
    const name = `flipbook-test-${randomBytes(4).toString('hex')}`;
    containers.push(name);
    // The host's network: the test reaches the service on loopback, as a proxy in front would.
    await must([
      'run',
      '-d',
      '--name',
      name,
      '--network=host',
      '-e',
      `PORT=${port}`,
      '-v',
      `${volume}:/data`,
      TAG,
    ]);
    await waitFor(
      'the service in the container to be ready',
      async () =>
        (await fetch(`${base}/readyz`)
          .then((r) => r.status)
          .catch(() => 0)) === 200
          ? true
          : undefined,
      60_000,
      250,
    );
    return name;
  };

  let TAG = '';
  beforeAll(async () => {
    // Built while the other suites ran (test/support/containerImage.ts).
    const { resultFile } = inject('containerImage');
    await waitFor(
      'the image build',
      () => (existsSync(resultFile) ? true : undefined),
      900_000,
      500,
    );
    const built = JSON.parse(readFileSync(resultFile, 'utf8')) as BuiltImage;
    if ('error' in built) throw new Error(built.error);
    TAG = built.tag;
    console.info(`image built in ${built.seconds} s, ${(built.bytes / 1e6).toFixed(0)} MB`);
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
  }, 900_000);

  afterAll(async () => {
    for (const name of containers) await podman(['rm', '-f', '-t', '0', name]);
    await podman(['volume', 'rm', '-f', volume]);
    // (the image goes at the end of the run: the global setup's teardown)
  }, 120_000);

  it('serves as a non-root user, publishes from outside, stops cleanly and keeps its data', async () => {
    const first = await start();
    // Admin commands in the container find the store without flags (FLIPBOOK_DATA_DIR).
    await must([
      'exec',
      first,
      '/app/bin/flipbook',
      'workspace',
      'create',
      'acme',
      '--plan',
      'team',
    ]);
    const key = JSON.parse(
      await must([
        'exec',
        first,
        '/app/bin/flipbook',
        'key',
        'create',
        '--workspace',
        'acme',
        '--json',
      ]),
    ).key as string;

    expect(await must(['exec', first, 'id', '-u'])).toBe('10001');
    const users = (await must(['top', first, 'user'])).split('\n').slice(1);
    expect(users.length).toBeGreaterThan(1); // the daemon, its database, esbuild
    expect(new Set(users.map((u) => u.trim()))).toEqual(new Set(['flipbook']));
    expect(await must(['healthcheck', 'run', first])).not.toMatch(/unhealthy/);

    // From outside: the client package from the service, on the machine's own Node.
    const machine = pipelineEnv();
    const env = { ...machine.env, FLIPBOOK_URL: base, FLIPBOOK_API_KEY: key };
    const installed = await run(
      'npm',
      ['install', '-g', `${base}/downloads/flipbook-cli.tgz`],
      machine.env,
    );
    expect(installed.code, installed.stderr).toBe(0);
    const published = await run(
      machine.flipbook,
      ['publish', join(CORPUS, 'text_multicolumn.pdf'), '--slug', 'brochure', '--wait', '--json'],
      env,
    );
    expect(published.code, published.stderr).toBe(0);
    const result = JSON.parse(published.stdout);
    expect(result).toMatchObject({ status: 'done', pages: 3 });
    expect(result.url).toBe(`http://localhost:${port}/f/${result.flipbook_id}`);

    // SIGTERM: it stops within the grace (30 s), cleanly.
    const stopping = performance.now();
    await must(['stop', '-t', '45', first]);
    expect(performance.now() - stopping).toBeLessThan(30_000);
    expect(await must(['inspect', first, '--format', '{{.State.ExitCode}}'])).toBe('0');
    expect(await must(['logs', first])).toContain('"msg":"stopped"');

    // A new container on the same volume: the flipbook, its pages and the key are all there.
    await start();
    const book = await fetch(`${base}/api/v1/flipbooks/${result.flipbook_id}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(book.status).toBe(200);
    const body = (await book.json()) as { pages: { img_max: string }[]; slug: string };
    expect(body.slug).toBe('brochure');
    expect(body.pages).toHaveLength(3);
    expect((await fetch(`${base}/f/${result.flipbook_id}`)).status).toBe(200);
    expect((await fetch(body.pages[0]?.img_max ?? '')).status).toBe(200);
    // and publishing to the slug again adds a version at the same URL
    const again = await run(
      machine.flipbook,
      ['publish', join(CORPUS, 'vec_vector.pdf'), '--slug', 'brochure', '--wait', '--json'],
      env,
    );
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).url).toBe(result.url);
  }, 600_000);
});
