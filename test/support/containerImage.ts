// The container image the container suite runs (test/e2e/container.e2e.test.ts), built from the
// Dockerfile at the root while the rest of the suite runs: the global setup starts the build
// (about five minutes on a fresh machine: two Debian stages and the npm install) and the suite
// waits for it, so no test lane stands idle meanwhile. No registry can be pulled here, so the
// base image is made with mmdebstrap (with this machine's certificate authorities, which its
// network needs: the test's base image, not the product's Dockerfile) and the build uses podman
// (runc, cgroupfs: ../shared/NOTES.md).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './cli.ts';

const BASE = 'docker.io/library/debian:bookworm-slim';
const conf = join(mkdtempSync(join(tmpdir(), 'flipbook-podman-')), 'containers.conf');
// podman's default ulimits are refused here (NOTES.md): none
writeFileSync(conf, '[containers]\ndefault_ulimits = []\n');

/** podman with this machine's settings: runc, cgroupfs, no default ulimits. */
export const podman = (args: string[], timeoutMs = 600_000) =>
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
/** podman, and its output; a failure throws with its error. */
export const must = async (args: string[], timeoutMs?: number) => {
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

/** What the build left in `resultFile`: the tag to run, or why there is none. */
export type BuiltImage = { tag: string; seconds: number; bytes: number } | { error: string };

/** Untagged images: a build's own stages are the ones that were not there before it. */
const dangling = async () =>
  new Set(
    (await podman(['images', '-q', '--filter', 'dangling=true'])).stdout
      .split('\n')
      .filter(Boolean),
  );

/**
 * Starts the build; its outcome lands in `resultFile` (JSON, BuiltImage). `done` removes what it
 * made (the image, and its build stage's 1.2 GB) once the build has ended.
 */
export const startImageBuild = () => {
  const tag = `localhost/flipbook-test-${randomBytes(4).toString('hex')}`;
  const resultFile = join(mkdtempSync(join(tmpdir(), 'flipbook-image-')), 'built.json');
  let before = new Set<string>();
  const building = (async (): Promise<BuiltImage> => {
    try {
      await baseImage();
      before = await dangling();
      const started = performance.now();
      await must(['build', '--pull=never', '--format', 'docker', '--network=host', '-t', tag, '.']);
      const bytes = Number(await must(['image', 'inspect', tag, '--format', '{{.Size}}']));
      return { tag, seconds: Math.round((performance.now() - started) / 1000), bytes };
    } catch (error) {
      return { error: String((error as Error).message ?? error) };
    }
  })().then(async (built) => {
    await writeFile(`${resultFile}.part`, JSON.stringify(built));
    await rename(`${resultFile}.part`, resultFile);
    return built;
  });
  return {
    tag,
    resultFile,
    done: async () => {
      await building;
      await podman(['rmi', '-f', tag]);
      for (const id of await dangling()) if (!before.has(id)) await podman(['rmi', '-f', id]);
    },
  };
};
