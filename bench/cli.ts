// bench/cli: what the publishing client and the server's admin command cost a pipeline and a
// person (issues 26 and 41), beside a bare Node in the same run.
//
//   npm run bench:cli [-- --runs 21] [-- --server-only]
//
// Starts a daemon (embedded store, one lane) with a workspace, a key and one processed
// flipbook; installs the client from the daemon's /downloads/flipbook-cli.tgz into an empty
// prefix with npm (size on disk, packages); then, interleaved run by run, times with the
// machine's own Node (the client's target, 20 here) `node -e 0`, `flipbook --version` and
// `flipbook status` against the daemon, and with the project's Node 24 `node -e 0` and the
// server's `bin/flipbook --version` (with Node's compile cache, as every call after the first
// has it, and without), and `npm exec -- true` (npm's own start) beside the README's
// `npm exec -- flipbook --version`. `--server-only` skips the daemon and the client. Prints
// medians of wall time and CPU time (user + system, from /proc) and each against its target.
//
// The server's targets move with the machine: `bin/flipbook --version` within 300 ms where
// `node -e 0` takes 30 ms (an idle machine here), so 10 × the project's `node -e 0` of the same
// run; `npm exec -- flipbook --version` within that plus `npm exec -- true`.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { footprint, systemNode } from '../test/support/clientInstall.ts';
import { startBenchDaemon } from './benchDaemon.ts';
import { cpuSplitMs } from './cpuTime.ts';

const ROOT = resolve(import.meta.dirname, '..');
const PROJECT_NODE = join(ROOT, 'node_modules/.bin/node');
const FLIPBOOK = join(ROOT, 'bin/flipbook');
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '21' },
    'server-only': { type: 'boolean', default: false },
  },
});
const RUNS = Number(values.runs);
/** `bin/flipbook --version` may take this many times the project's `node -e 0` (300 ms / 30 ms). */
const SERVER_START_FACTOR = 10;

const NODE = systemNode();
const cleanPath = [
  dirname(NODE),
  ...(process.env.PATH ?? '').split(delimiter).filter((d) => !d.startsWith(ROOT)),
].join(delimiter);

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/** One command's wall and CPU time (ms); it must exit 0. */
const time = async (file: string, args: string[], env: NodeJS.ProcessEnv, cwd?: string) => {
  const before = (await cpuSplitMs()).children;
  const started = performance.now();
  const run = spawnSync(file, args, { env, encoding: 'utf8', ...(cwd ? { cwd } : {}) });
  const wall = performance.now() - started;
  if (run.status !== 0) throw new Error(`${file} ${args.join(' ')}: ${run.stderr}`);
  return { wall, cpu: (await cpuSplitMs()).children - before };
};

const env = {
  PATH: cleanPath,
  HOME: mkdtempSync(join(tmpdir(), 'bench-cli-home-')),
  npm_config_cache: mkdtempSync(join(tmpdir(), 'bench-cli-npm-')),
  npm_config_update_notifier: 'false',
  npm_config_fund: 'false',
  npm_config_audit: 'false',
};

type Shape = () => Promise<{ wall: number; cpu: number }>;
const shapes: Record<string, Shape> = {};
const targets: Record<string, (result: (name: string) => { wall: number }) => number | null> = {};

/** The client's shapes, against a daemon with one processed flipbook; stops it when done. */
const withClient = async () => {
  const { key, daemon, url } = await startBenchDaemon('cli', ['--workers', '1']);
  try {
    const prefix = mkdtempSync(join(tmpdir(), 'bench-cli-prefix-'));
    const install = await time(
      'npm',
      ['install', '-g', '--prefix', prefix, `${url}/downloads/flipbook-cli.tgz`],
      env,
    );
    const { bytes, packages } = footprint(prefix);
    const client = join(prefix, 'bin', 'flipbook');
    const withKey = { ...env, FLIPBOOK_URL: url, FLIPBOOK_API_KEY: key };
    const published = JSON.parse(
      execFileSync(
        client,
        ['publish', join(ROOT, '../shared/corpus/text_multicolumn.pdf'), '--wait', '--json'],
        { env: withKey, encoding: 'utf8' },
      ),
    );
    console.log(
      `install from ${url}/downloads/flipbook-cli.tgz: ${(bytes / 1024 / 1024).toFixed(2)} MB on disk, ${packages.length} package(s) [${packages.join(', ')}], ${Math.round(install.wall)} ms  (targets: <= 10 MB, <= 25 packages)`,
    );
    shapes['system node -e 0'] = () => time(NODE, ['-e', '0'], env);
    shapes['client flipbook --version'] = () => time(client, ['--version'], env);
    targets['client flipbook --version'] = () => 100;
    shapes['client flipbook status'] = () =>
      time(client, ['status', published.flipbook_id, published.version_id], withKey);
    targets['client flipbook status'] = () => 250;
    return () => daemon.kill('SIGTERM');
  } catch (error) {
    daemon.kill('SIGTERM');
    throw error;
  }
};

const stop = values['server-only'] ? () => {} : await withClient();
try {
  shapes['project node -e 0'] = () => time(PROJECT_NODE, ['-e', '0'], env);
  const serverTarget = (result: (name: string) => { wall: number }) =>
    SERVER_START_FACTOR * result('project node -e 0').wall;
  shapes['server bin/flipbook --version'] = () => time(FLIPBOOK, ['--version'], env);
  targets['server bin/flipbook --version'] = serverTarget;
  // what the first call after an install or an upgrade costs (nothing compiled yet)
  shapes['server --version, no compile cache'] = () =>
    time(FLIPBOOK, ['--version'], { ...env, NODE_DISABLE_COMPILE_CACHE: '1' });
  // The README's way: npm finds node_modules/.bin/flipbook (made by the postinstall script).
  if (existsSync(join(ROOT, 'node_modules/.bin/flipbook'))) {
    shapes['npm exec -- true'] = () => time('npm', ['exec', '--', 'true'], env, ROOT);
    shapes['npm exec -- flipbook --version'] = () =>
      time('npm', ['exec', '--', 'flipbook', '--version'], env, ROOT);
    targets['npm exec -- flipbook --version'] = (result) =>
      serverTarget(result) + result('npm exec -- true').wall;
  } else {
    console.log(
      'npm exec -- flipbook: node_modules/.bin/flipbook is missing (run scripts/setup.sh)',
    );
  }

  const samples = new Map<string, { wall: number; cpu: number }[]>();
  for (let run = 0; run < RUNS; run++) {
    for (const [name, measure] of Object.entries(shapes)) {
      const list = samples.get(name) ?? [];
      list.push(await measure());
      samples.set(name, list);
    }
  }
  const result = (name: string) => {
    const list = samples.get(name) ?? [];
    return { wall: median(list.map((s) => s.wall)), cpu: median(list.map((s) => s.cpu)) };
  };
  const nodeVersion = execFileSync(NODE, ['--version'], { encoding: 'utf8' }).trim();
  console.log(
    `system Node ${nodeVersion} (${NODE}); ${RUNS} runs, medians; the machine's load: see CPU`,
  );
  for (const name of Object.keys(shapes)) {
    // the client against the machine's Node (its target), the server against its own Node 24
    const base = name.startsWith('client') || name.startsWith('system') ? 'system' : 'project';
    const baseline = result(`${base} node -e 0`);
    const { wall, cpu } = result(name);
    const target = targets[name]?.(result) ?? null;
    const verdict =
      target == null
        ? ''
        : wall <= target
          ? `  <= ${target.toFixed(0)} ms: met`
          : `  > ${target.toFixed(0)} ms: MISSED`;
    console.log(
      `${name.padEnd(36)} wall ${wall.toFixed(0).padStart(5)} ms  cpu ${cpu.toFixed(0).padStart(5)} ms  x${(wall / baseline.wall).toFixed(2)} of ${base} node -e 0${verdict}`,
    );
  }
  const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
  console.log(`(client and server version ${version})`);
} finally {
  stop();
}
