// bench/action: the GitHub Action's own time on a 100-page document, apart from the server's
// processing (issue 43: under 5 s). Run by hand:
//
//   node bench/action.ts [--runs 3]
//
// Starts a daemon (embedded store, `--workers 1`) and the GitHub API stand-in of the tests
// (test/support/githubStandIn.ts: no GitHub is reachable from here); makes a 100-page document
// from the corpus (text_why3-manual.pdf, pages 1-100) and an edit of it (page 50 removed, page
// 101 appended) with qpdf; publishes the first with the action's push event, then runs the
// action for a pull request (`opened`, then `synchronize`) with the edit, as the runner does:
// the committed bundle on the machine's Node 20. For each run: the process's wall time, the time
// it waited for processing and the comparison (its own log line), and the difference: upload,
// GitHub's calls, the comment, Node's start.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { systemNode } from '../test/support/clientInstall.ts';
import { startGithubStandIn } from '../test/support/githubStandIn.ts';
import { startBenchDaemon } from './benchDaemon.ts';

const ROOT = resolve(import.meta.dirname, '..');
const ACTION = join(ROOT, 'packages/action/dist/index.mjs');
const CORPUS = process.env.FLIPBOOK_TEST_CORPUS ?? resolve(ROOT, '../shared/corpus');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' } } });
const RUNS = Number(values.runs);
const TARGET_S = 5;
const TOKEN = 'ghs_bench';

const dir = mkdtempSync(join(tmpdir(), 'bench-action-'));
const source = join(CORPUS, 'text_why3-manual.pdf');
const base = join(dir, 'manual-100.pdf');
const edited = join(dir, 'manual-100-edited.pdf');
execFileSync('qpdf', [source, '--pages', source, '1-100', '--', base]);
execFileSync('qpdf', [source, '--pages', source, '1-49,51-101', '--', edited]);

const server = await startBenchDaemon('action', ['--workers', '1']);
const github = await startGithubStandIn({ token: TOKEN });
const node = systemNode();

const action = async (n: number, event: string, payload: unknown, file: string) => {
  const eventPath = join(dir, `event-${n}.json`);
  writeFileSync(eventPath, JSON.stringify(payload));
  // The runner makes these files before the step; @actions/core refuses a missing one.
  writeFileSync(join(dir, `output-${n}`), '');
  writeFileSync(join(dir, `summary-${n}`), '');
  const started = performance.now();
  // Not spawnSync: the GitHub stand-in answers from this process's event loop.
  const run = await promisify(execFile)(node, [ACTION], {
    cwd: dir,
    maxBuffer: 16 * 2 ** 20,
    env: {
      PATH: process.env.PATH,
      HOME: dir,
      INPUT_URL: server.url,
      'INPUT_API-KEY': server.key,
      INPUT_FILE: file,
      INPUT_SLUG: 'manual',
      'INPUT_GITHUB-TOKEN': TOKEN,
      INPUT_TIMEOUT: '900',
      GITHUB_EVENT_NAME: event,
      GITHUB_EVENT_PATH: eventPath,
      GITHUB_REPOSITORY: 'acme/manual',
      GITHUB_API_URL: github.apiUrl,
      GITHUB_OUTPUT: join(dir, `output-${n}`),
      GITHUB_STEP_SUMMARY: join(dir, `summary-${n}`),
    },
  });
  const wallS = (performance.now() - started) / 1000;
  const waited = /apart from (\d+\.\d) s waiting/.exec(run.stdout);
  return { wallS, waitedS: waited ? Number(waited[1]) : 0, log: run.stdout };
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

try {
  const pushed = await action(0, 'push', { ref: 'refs/heads/main' }, base);
  console.log(`push (publish 100 pages and wait): ${pushed.wallS.toFixed(1)} s wall`);
  const own: number[] = [];
  for (let n = 1; n <= RUNS; n++) {
    const payload = {
      action: n === 1 ? 'opened' : 'synchronize',
      number: 1,
      pull_request: { number: 1, merged: false, head: { sha: String(n).repeat(40) } },
    };
    const run = await action(n, 'pull_request', payload, edited);
    const ownS = run.wallS - run.waitedS;
    own.push(ownS);
    const summary = /preview: done.*|Took .*/g;
    console.log(
      `run ${n} (${payload.action}): ${run.wallS.toFixed(1)} s wall, ${run.waitedS.toFixed(1)} s waiting for processing and the comparison, ${ownS.toFixed(2)} s its own [${(run.log.match(summary) ?? []).at(-1)}]`,
    );
  }
  const status = github.statuses.at(-1);
  console.log(`last status: ${status?.state} "${status?.description}"`);
  console.log(`the comment (${github.comments.length} in all):\n${github.comments.at(-1)?.body}`);
  const m = median(own);
  console.log(
    `median of the action's own time: ${m.toFixed(2)} s (target < ${TARGET_S} s): ${m < TARGET_S ? 'ok' : 'OVER'}`,
  );
} finally {
  await github.close();
  server.daemon.kill('SIGTERM');
}
