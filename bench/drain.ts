// bench/drain: 30 uploads at once, this build against another one, in the same run.
//
//   npm run bench:drain -- --baseline ../other-checkout [--rounds N]
//
// The other checkout must be installed (`npm ci`); it is run with its own Node and defaults, as
// this build is. Each round starts a fresh daemon of each build on the embedded store (the
// defaults a user gets), sends 30 uploads at once (a mix of corpus documents from 1 to 117
// pages), and measures: the time from the first upload until every version is `done` (the
// drain), the daemon's CPU over it, how soon after its 201 each upload's page 1 could be fetched
// (median and worst), and for a build that renders the largest rendition after `done`, when
// that fill has ended for all of them. Builds alternate within a round so the machine's mood
// falls on both. Run it on an idle machine.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { flipbook, ROOT, startDaemon } from '../test/support/cli.ts';
import { corpus } from '../test/support/corpus.ts';
import { cpuMs } from './cpuTime.ts';

const MIX = [
  'vec_tracemonkey.pdf',
  'img_photos-issue5481.pdf',
  'img_scans-multipage.pdf',
  'vec_charts-issue1905.pdf',
  'img_cmyk.pdf',
  'text_multicolumn.pdf',
  'vec_vector.pdf',
  'img_scan-c02-22.pdf',
  'odd_cardinal.pdf',
  'text_GeoTopo.pdf',
];
const UPLOADS = 30;

const flag = (name: string) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
};
const baselineRoot = flag('--baseline');
if (!baselineRoot) {
  console.error('usage: npm run bench:drain -- --baseline ../other-checkout [--rounds N]');
  process.exit(2);
}
const rounds = Number(flag('--rounds') ?? 1);

const seconds = (ms: number) => (ms / 1000).toFixed(1);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

const firstAnswer = async (url: string, since: number) => {
  for (;;) {
    const res = await fetch(url).catch(() => null);
    await res?.arrayBuffer().catch(() => null);
    if (res?.status === 200) return performance.now() - since;
    await new Promise((r) => setTimeout(r, 25));
  }
};

const files = await Promise.all(
  MIX.map(async (name) => ({ name, bytes: await readFile(corpus(name)) })),
);

const drain = async (root: string) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-drain-'));
  const store = ['--data-dir', dataDir];
  const created = await flipbook(['workspace', 'create', 'bench', ...store], {}, root);
  if (created.code !== 0) throw new Error(`workspace create: ${created.stderr}`);
  const issued = await flipbook(
    ['key', 'create', '--workspace', 'bench', '--json', ...store],
    {},
    root,
  );
  if (issued.code !== 0) throw new Error(`key create: ${issued.stderr}`);
  const key = JSON.parse(issued.stdout).key as string;
  const daemon = await startDaemon([...store, '--rate-limit', '0'], {}, [], root);
  const pid = daemon.process.pid as number;
  try {
    const headers = { authorization: `Bearer ${key}` };
    const cpuBefore = await cpuMs(pid);
    const started = performance.now();
    const uploads = await Promise.all(
      Array.from({ length: UPLOADS }, async (_, i) => {
        const file = files[i % files.length] as (typeof files)[number];
        const form = new FormData();
        form.set('file', new Blob([file.bytes], { type: 'application/pdf' }), basename(file.name));
        const res = await fetch(`${daemon.url}/api/v1/flipbooks`, {
          method: 'POST',
          headers,
          body: form,
        });
        if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
        const answered = performance.now();
        const { version_id } = (await res.json()) as { version_id: string };
        const page1 = firstAnswer(`${daemon.url}/files/pages/${version_id}/1/mid.jpg`, answered);
        return { versionId: version_id, page1 };
      }),
    );
    const has = (msg: RegExp, id: string) =>
      daemon
        .logs()
        .split('\n')
        .some((l) => msg.test(l) && l.includes(id));
    const allHave = (msg: RegExp) => uploads.every((u) => has(msg, u.versionId));
    while (!allHave(/"msg":"version (processed|failed)"/))
      await new Promise((r) => setTimeout(r, 20));
    const doneMs = performance.now() - started;
    const doneCpu = (await cpuMs(pid)) - cpuBefore;
    const failed = uploads.filter((u) => has(/"msg":"version failed"/, u.versionId)).length;
    const page1 = await Promise.all(uploads.map((u) => u.page1));
    // A build with the background fill (src/worker/fillRenditions.ts) logs its end per version.
    let allMs = doneMs;
    if (existsSync(join(root, 'src/worker/fillRenditions.ts'))) {
      const deadline = performance.now() + 600_000;
      while (!allHave(/"msg":"(renditions filled in|fill ended early)"/)) {
        if (performance.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      allMs = performance.now() - started;
    }
    const allCpu = (await cpuMs(pid)) - cpuBefore;
    return { doneMs, doneCpu, allMs, allCpu, failed, page1 };
  } finally {
    await daemon.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
};

const builds = [
  { name: 'this build', root: ROOT },
  { name: 'baseline', root: resolve(baselineRoot) },
];
console.log(
  `${UPLOADS} uploads at once (${MIX.length} documents, each ${UPLOADS / MIX.length}×), default settings, embedded store`,
);
const results = new Map<string, Awaited<ReturnType<typeof drain>>[]>();
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? builds : [...builds].reverse();
  for (const build of order) {
    const r = await drain(build.root);
    results.set(build.name, [...(results.get(build.name) ?? []), r]);
    console.log(
      `  round ${round + 1} ${build.name.padEnd(10)}: all done ${seconds(r.doneMs)} s (CPU ${seconds(r.doneCpu)} s)` +
        `, every rendition ${seconds(r.allMs)} s (CPU ${seconds(r.allCpu)} s)` +
        `, page 1 median ${seconds(median(r.page1))} s worst ${seconds(Math.max(...r.page1))} s` +
        (r.failed ? `, ${r.failed} failed` : ''),
    );
  }
}
const mean = (name: string, pick: (r: Awaited<ReturnType<typeof drain>>) => number) => {
  const xs = results.get(name) ?? [];
  return xs.reduce((s, r) => s + pick(r), 0) / xs.length;
};
const ratio = (pick: (r: Awaited<ReturnType<typeof drain>>) => number) =>
  (mean('this build', pick) / mean('baseline', pick)).toFixed(2);
console.log(`this build / baseline (mean of ${rounds} round${rounds > 1 ? 's' : ''}):`);
console.log(`  all done            ${ratio((r) => r.doneMs)}  (CPU ${ratio((r) => r.doneCpu)})`);
console.log(`  every rendition     ${ratio((r) => r.allMs)}  (CPU ${ratio((r) => r.allCpu)})`);
console.log(`  page 1 median       ${ratio((r) => median(r.page1))}`);
console.log(`  page 1 worst        ${ratio((r) => Math.max(...r.page1))}`);
