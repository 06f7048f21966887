// bench/cli: what the publishing client costs a pipeline (issue 26), beside a bare Node in the
// same run.
//
//   npm run bench:cli [-- --runs 21]
//
// Starts a daemon (embedded store, one lane) with a workspace, a key and one processed
// flipbook; installs the client from the daemon's /downloads/flipbook-cli.tgz into an empty
// prefix with npm (size on disk, packages); then, interleaved run by run, times with the
// machine's own Node (the client's target, 20 here) `node -e 0`, `flipbook --version` and
// `flipbook status` against the daemon, and with the project's Node 24 `node -e 0` and the
// server's `bin/flipbook --version`. Prints medians of wall time and CPU time (user + system,
// from /proc) and each against its target.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { footprint, systemNode } from '../test/support/clientInstall.ts';
import { startBenchDaemon } from './benchDaemon.ts';
import { cpuSplitMs } from './cpuTime.ts';

const ROOT = resolve(import.meta.dirname, '..');
const PROJECT_NODE = join(ROOT, 'node_modules/.bin/node');
const FLIPBOOK = join(ROOT, 'bin/flipbook');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '21' } } });
const RUNS = Number(values.runs);

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
const time = async (file: string, args: string[], env: NodeJS.ProcessEnv) => {
  const before = (await cpuSplitMs()).children;
  const started = performance.now();
  const run = spawnSync(file, args, { env, encoding: 'utf8' });
  const wall = performance.now() - started;
  if (run.status !== 0) throw new Error(`${file} ${args.join(' ')}: ${run.stderr}`);
  return { wall, cpu: (await cpuSplitMs()).children - before };
};

// A daemon with one processed flipbook.
const { key, daemon, url } = await startBenchDaemon('cli', ['--workers', '1']);

try {
  const prefix = mkdtempSync(join(tmpdir(), 'bench-cli-prefix-'));
  const env = {
    PATH: cleanPath,
    HOME: mkdtempSync(join(tmpdir(), 'bench-cli-home-')),
    npm_config_cache: mkdtempSync(join(tmpdir(), 'bench-cli-npm-')),
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
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

  const shapes = {
    'system node -e 0': () => time(NODE, ['-e', '0'], env),
    'client flipbook --version': () => time(client, ['--version'], env),
    'client flipbook status': () =>
      time(client, ['status', published.flipbook_id, published.version_id], withKey),
    'project node -e 0': () => time(PROJECT_NODE, ['-e', '0'], env),
    'server bin/flipbook --version': () => time(FLIPBOOK, ['--version'], env),
  };
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
  console.log(
    `install from ${url}/downloads/flipbook-cli.tgz: ${(bytes / 1024 / 1024).toFixed(2)} MB on disk, ${packages.length} package(s) [${packages.join(', ')}], ${Math.round(install.wall)} ms  (targets: <= 10 MB, <= 25 packages)`,
  );
  const targets: Record<string, number | null> = {
    'system node -e 0': null,
    'client flipbook --version': 100,
    'client flipbook status': 250,
    'project node -e 0': null,
    'server bin/flipbook --version': 300,
  };
  const baseline = result('system node -e 0');
  for (const name of Object.keys(shapes)) {
    const { wall, cpu } = result(name);
    const target = targets[name];
    const verdict =
      target == null ? '' : wall <= target ? `  <= ${target} ms: met` : `  > ${target} ms: MISSED`;
    console.log(
      `${name.padEnd(32)} wall ${wall.toFixed(0).padStart(5)} ms  cpu ${cpu.toFixed(0).padStart(5)} ms  x${(wall / baseline.wall).toFixed(2)} of node -e 0${verdict}`,
    );
  }
  const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
  console.log(`(client and server version ${version})`);
} finally {
  daemon.kill('SIGTERM');
}
