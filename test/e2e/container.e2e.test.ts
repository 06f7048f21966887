// The container image, built from the Dockerfile at the root with the documented command and run
// as a deployer would. No registry can be pulled here, so the test makes its own
// debian:bookworm-slim with mmdebstrap, as Debian's own is made (minbase, /usr merged without the
// usrmerge package, no documentation or locales: ~78 MB, the official one is ~75 MB), and builds
// with podman (runc, cgroupfs: ../shared/NOTES.md). This machine's network needs its own
// certificate authorities: they go in the way the docs tell a user behind such a proxy, the
// EXTRA_CA_CERTS build argument. `--pull=never` (nothing to pull from) and `--network=host` (how
// a build reaches apt and npm here) are this machine's, not the product's.
// It runs the image on a volume, publishes a PDF from outside with the client package, checks
// the service runs as a non-root user and is healthy, stops it (SIGTERM, within the grace),
// starts a new container on the same volume and finds everything kept; then compose.yaml as it
// is, with podman-compose.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
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
/** The last run's image, kept for the layers the next build can reuse. */
const CACHE = 'localhost/flipbook-test-cache:latest';
const conf = join(mkdtempSync(join(tmpdir(), 'flipbook-podman-')), 'containers.conf');
// podman's default ulimits are refused here (NOTES.md): none; runc and cgroupfs for every podman
// call, podman-compose's too.
writeFileSync(
  conf,
  '[containers]\ndefault_ulimits = []\n[engine]\nruntime = "runc"\ncgroup_manager = "cgroupfs"\n',
);
const env = { ...process.env, CONTAINERS_CONF: conf };

const podman = (args: string[], timeoutMs = 600_000) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      'podman',
      ['--runtime', 'runc', '--cgroup-manager=cgroupfs', ...args],
      {
        cwd: ROOT,
        env,
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

/** Marks the base this test made, so an older one (with this machine's CAs, 180 MB) is made again. */
const BASE_LABEL = 'flipbook.test-base=slim-1';

/** debian:bookworm-slim of our own, made as Debian's is (see the top of the file). */
const baseImage = async () => {
  const label = await podman([
    'image',
    'inspect',
    BASE,
    '--format',
    '{{index .Labels "flipbook.test-base"}}',
  ]);
  if (label.code === 0 && label.stdout.trim() === BASE_LABEL.split('=')[1]) return;
  const dir = mkdtempSync(join(tmpdir(), 'flipbook-base-'));
  const tar = join(dir, 'base.tar');
  const excluded = ['man', 'doc', 'info', 'locale', 'lintian'].map(
    (folder) => `--dpkgopt=path-exclude=/usr/share/${folder}/*`,
  );
  await new Promise<void>((resolve, reject) =>
    execFile(
      'mmdebstrap',
      [
        '--variant=minbase',
        '--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr',
        ...excluded,
        '--dpkgopt=path-include=/usr/share/doc/*/copyright',
        '--customize-hook=rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin "$1"/var/log/*.log',
        'bookworm',
        tar,
      ],
      { timeout: 300_000 },
      (error, _stdout, stderr) => (error ? reject(new Error(`mmdebstrap: ${stderr}`)) : resolve()),
    ),
  );
  await must(['import', '--change', `LABEL ${BASE_LABEL}`, tar, 'localhost/debian:bookworm-slim']);
  await must(['tag', 'localhost/debian:bookworm-slim', BASE]);
};

/** This machine's extra certificate authorities, as a user behind such a proxy passes them. */
const extraCas = () => {
  const folder = '/usr/local/share/ca-certificates';
  if (!existsSync(folder)) return [];
  const pems = readdirSync(folder)
    .filter((file) => file.endsWith('.crt'))
    .map((file) => readFileSync(join(folder, file), 'utf8').trim());
  return pems.length > 0 ? ['--build-arg', `EXTRA_CA_CERTS=${pems.join('\n')}`] : [];
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
  let danglingAfterBuild = new Set<string>();
  let builtSeconds = 0;
  let imageBytes = 0;
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
    // docs/deploy.md's command, with this machine's additions (see the top of the file)
    await must([
      'build',
      '--format',
      'docker',
      ...extraCas(),
      '--pull=never',
      '--network=host',
      '-t',
      TAG,
      '.',
    ]);
    builtSeconds = Math.round((performance.now() - started) / 1000);
    imageBytes = Number(await must(['image', 'inspect', TAG, '--format', '{{.Size}}']));
    console.info(`image built in ${builtSeconds} s, ${(imageBytes / 1e6).toFixed(0)} MB`);
    danglingAfterBuild = await dangling();
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
  }, 900_000);

  const cleanupsAfter: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanupsAfter) await cleanup().catch(() => {});
    for (const name of containers) await podman(['rm', '-f', '-t', '0', name]);
    await podman(['volume', 'rm', '-f', volume]);
    // The image stays as the next run's cache (its system packages and node_modules, 3-4 minutes
    // to make again, as a deployer's second build finds them): under one name, the last run's
    // image untagged by it and removed below. A changed Dockerfile or lockfile builds anew.
    await podman(['tag', TAG, CACHE]);
    await podman(['rmi', TAG]);
    // The build stage's image (1.2 GB, untagged) goes too, and nothing that was there before.
    for (const id of await dangling()) if (!danglingBefore.has(id)) await podman(['rmi', '-f', id]);
  }, 120_000);

  it('is at most 1,300 MB (1,141 measured: LibreOffice and its fonts are ~750 of them) and leaves no build stage behind', () => {
    expect(imageBytes).toBeGreaterThan(0);
    expect(imageBytes / 1e6, `the image is ${Math.round(imageBytes / 1e6)} MB`).toBeLessThanOrEqual(
      1300,
    );
    // The documented build leaves the image and its own layers, no untagged image beside them.
    expect([...danglingAfterBuild].filter((id) => !danglingBefore.has(id))).toEqual([]);
  });

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
    const logs = await must(['logs', first]);
    expect(logs).toContain('"msg":"stopped"');
    expect(logs).not.toContain('is not a volume'); // /data is the volume here

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
    // and publishing to the slug again adds a version at the same URL: a Word document, made into
    // a PDF by the image's LibreOffice, sandboxed as a non-root user in the container
    const docx = join(ROOT, 'test/fixtures/office/hello.docx');
    const again = await run(
      machine.flipbook,
      ['publish', docx, '--slug', 'brochure', '--wait', '--json'],
      env,
    );
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ url: result.url, status: 'done', pages: 1 });
  }, 600_000);

  it('runs compose.yaml as it is with podman-compose: serves, publishes, and keeps its volume across down and up', async () => {
    // The file as shipped, from the checkout; only its documented settings are set.
    const project = `fbc${randomBytes(3).toString('hex')}`;
    const composePort = await freePort();
    const composeBase = `http://127.0.0.1:${composePort}`;
    const compose = (args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          'podman-compose',
          ['-p', project, '-f', 'compose.yaml', ...args],
          {
            cwd: ROOT,
            env: {
              ...env,
              FLIPBOOK_IMAGE: TAG, // built above: compose builds only what is missing
              FLIPBOOK_PORT: String(composePort),
              PUBLIC_URL: composeBase,
            },
            timeout: 300_000,
          },
          (error, stdout, stderr) =>
            resolve({ code: error ? Number(error.code ?? 1) || 1 : 0, stdout, stderr }),
        );
      });
    cleanupsAfter.push(async () => {
      await compose(['down']);
      await podman(['volume', 'rm', '-f', `${project}_flipbook-data`]);
    });
    const ready = () =>
      waitFor(
        'the service started by compose to be ready',
        async () =>
          (await fetch(`${composeBase}/readyz`)
            .then((r) => r.status)
            .catch(() => 0)) === 200
            ? true
            : undefined,
        90_000,
        250,
      );
    const up = await compose(['up', '-d']);
    expect(up.code, up.stderr.slice(-2000)).toBe(0);
    await ready();
    const container = `${project}_flipbook_1`;
    await must(['exec', container, 'flipbook', 'workspace', 'create', 'acme']);
    const key = JSON.parse(
      await must(['exec', container, 'flipbook', 'key', 'create', '--workspace', 'acme', '--json']),
    ).key as string;
    const auth = { authorization: `Bearer ${key}` };
    const form = new FormData();
    form.append(
      'file',
      new Blob([readFileSync(join(CORPUS, 'text_multicolumn.pdf'))], { type: 'application/pdf' }),
      'brochure.pdf',
    );
    const created = await fetch(`${composeBase}/api/v1/flipbooks`, {
      method: 'POST',
      headers: auth,
      body: form,
    });
    expect(created.status).toBe(201);
    const { flipbook_id: id, version_id: version } = (await created.json()) as {
      flipbook_id: string;
      version_id: string;
    };
    const status = () =>
      fetch(`${composeBase}/api/v1/flipbooks/${id}/versions/${version}/status`, { headers: auth })
        .then((r) => r.json() as Promise<{ status: string }>)
        .then((body) => body.status);
    await waitFor(
      'the upload processed',
      async () => ((await status()) === 'done' ? true : undefined),
      120_000,
      250,
    );
    const book = (await (
      await fetch(`${composeBase}/api/v1/flipbooks/${id}`, { headers: auth })
    ).json()) as {
      url: string;
      pages: { img_mid: string }[];
    };
    expect(book.url).toBe(`${composeBase}/f/${id}`); // PUBLIC_URL reached the service
    expect((await fetch(book.url)).status).toBe(200);
    expect((await fetch(book.pages[0]?.img_mid ?? '')).status).toBe(200);
    // compose's healthcheck (podman-compose passes it on; the image's own OCI copy has none)
    expect((await podman(['healthcheck', 'run', container])).code).toBe(0);

    // down and up again: the named volume keeps the database and the pages
    expect((await compose(['down'])).code).toBe(0);
    expect((await compose(['up', '-d'])).code).toBe(0);
    await ready();
    expect((await fetch(`${composeBase}/api/v1/flipbooks/${id}`, { headers: auth })).status).toBe(
      200,
    );
    expect((await fetch(book.pages[0]?.img_mid ?? '')).status).toBe(200);
  }, 600_000);
});
