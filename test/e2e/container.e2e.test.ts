// The container image, built from the Dockerfile at the root and run as a deployer would: no
// registry can be pulled here, so the test makes its own debian:bookworm-slim with mmdebstrap
// (with this machine's certificate authorities, which its network needs: the test's base image,
// not the product's Dockerfile) and builds with podman (runc, cgroupfs: ../shared/NOTES.md).
// It runs the image on a volume, publishes a PDF from outside with the client package, checks
// the service runs as a non-root user and is healthy, stops it (SIGTERM, within the grace),
// starts a new container on the same volume and finds everything kept.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORPUS } from '../support/apiHelpers.ts';
import { ROOT } from '../support/cli.ts';
import { pipelineEnv, run } from '../support/clientInstall.ts';
import { waitFor } from '../support/waitFor.ts';

const BASE = 'docker.io/library/debian:bookworm-slim';
const TAG = `localhost/flipbook-test-${randomBytes(4).toString('hex')}`;
const conf = join(mkdtempSync(join(tmpdir(), 'flipbook-podman-')), 'containers.conf');
// podman's default ulimits are refused here (NOTES.md): none
writeFileSync(conf, '[containers]\ndefault_ulimits = []\n');

const podman = (args: string[], timeoutMs = 600_000) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      'podman',
      ['--runtime', 'runc', '--cgroup-manager=cgroupfs', ...args],
      {
        cwd: ROOT,
        env: { ...process.env, CONTAINERS_CONF: conf },
        timeout: timeoutMs,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) || 1 : 0, stdout, stderr }),
    );
  });
const must = async (args: string[], timeoutMs?: number) => {
  const result = await podman(args, timeoutMs);
  if (result.code !== 0) {
    throw new Error(`podman ${args.join(' ')}: ${result.code}\n${result.stderr.slice(-3000)}`);
  }
  return result.stdout.trim();
};

/** debian:bookworm-slim of our own, with this machine's certificate authorities. */
const baseImage = async () => {
  if ((await podman(['image', 'exists', BASE])).code === 0) return;
  const dir = mkdtempSync(join(tmpdir(), 'flipbook-base-'));
  const tar = join(dir, 'base.tar');
  const extra = '/usr/local/share/ca-certificates';
  const hook =
    existsSync(extra) && readdirSync(extra).some((f) => f.endsWith('.crt'))
      ? [
          `--customize-hook=mkdir -p "$1${extra}" && cp ${extra}/*.crt "$1${extra}/" && chroot "$1" update-ca-certificates`,
        ]
      : [];
  await new Promise<void>((resolve, reject) =>
    execFile(
      'mmdebstrap',
      ['--variant=minbase', '--include=ca-certificates', ...hook, 'bookworm', tar],
      { timeout: 300_000 },
      (error, _stdout, stderr) => (error ? reject(new Error(`mmdebstrap: ${stderr}`)) : resolve()),
    ),
  );
  await must([
    'import',
    '--change',
    'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt',
    tar,
    'localhost/debian:bookworm-slim',
  ]);
  await must(['tag', 'localhost/debian:bookworm-slim', BASE]);
};

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

  /** untagged images there before the build: the build's own stages are the new ones */
  let danglingBefore = new Set<string>();
  const dangling = async () =>
    new Set(
      (await podman(['images', '-q', '--filter', 'dangling=true'])).stdout
        .split('\n')
        .filter(Boolean),
    );

  beforeAll(async () => {
    await baseImage();
    danglingBefore = await dangling();
    const started = performance.now();
    await must(['build', '--pull=never', '--format', 'docker', '--network=host', '-t', TAG, '.']);
    const size = Number(await must(['image', 'inspect', TAG, '--format', '{{.Size}}']));
    console.info(
      `image built in ${Math.round((performance.now() - started) / 1000)} s, ${(size / 1e6).toFixed(0)} MB`,
    );
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
  }, 900_000);

  afterAll(async () => {
    for (const name of containers) await podman(['rm', '-f', '-t', '0', name]);
    await podman(['volume', 'rm', '-f', volume]);
    await podman(['rmi', '-f', TAG]);
    // The build stage's image (1.2 GB, untagged) goes too, and nothing that was there before.
    for (const id of await dangling()) if (!danglingBefore.has(id)) await podman(['rmi', '-f', id]);
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
