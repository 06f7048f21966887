// bench/render: the service's processing speed against the rendition a person would script by hand.
//
//   npm run bench:render [-- [--s3] file.pdf ...]     (files from ../shared/corpus by default)
//
// With --s3, the daemon keeps its blobs in a bucket on an S3-protocol server this script starts
// (s3rver, as the tests do): the worker uploads each page as it finishes, and page 1 is fetched
// through the daemon from the bucket.
//
// The daemon runs with the defaults a user gets (every core, the largest rendition after `done`).
// For each document, in one run: (a) one plain `pdftoppm -jpeg -scale-to 2000` process over all
// pages (one rendition, no text); (b) the service from upload to `done` (mid and min, the text
// and the structure); (c) from upload until the background fill has rendered every page's
// 2000 px image too (all three renditions); (d) (b) again with the daemon limited to one core
// (`taskset -c 0`). Prints (b)/(a), (c)/(a), CPU beside wall, CPU/wall while processing, the
// one-core/all-cores ratio (d)/(b), how long after the upload's 201 page 1's mid.jpg could be
// fetched, where the service's time went, and the daemon's peak RSS. Then page 1's latency for
// an upload made while two long documents render. Run it on an idle machine: it measures
// wall-clock time.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { flipbook, startDaemon } from '../test/support/cli.ts';
import { CORPUS } from '../test/support/corpus.ts';
import { freshBucket, startS3Server } from '../test/support/s3Server.ts';
import { cpuMs, cpuSplitMs } from './cpuTime.ts';

const DEFAULT_FILES = ['text_why3-manual.pdf', 'vec_asymptote.pdf', 'img_GS9_Color_Management.pdf'];
const MAX_SIDE = 2000;

const run = (command: string, args: string[]) =>
  new Promise<void>((done, fail) => {
    const child = spawn(command, args, { stdio: 'ignore' });
    child.on('exit', (code) =>
      code === 0 ? done() : fail(new Error(`${command} exited ${code}`)),
    );
  });

const seconds = (ms: number) => (ms / 1000).toFixed(2);

const baseline = async (pdf: string) => {
  const out = await mkdtemp(join(tmpdir(), 'bench-pdftoppm-'));
  const cpuBefore = await cpuMs('self');
  const started = performance.now();
  await run('pdftoppm', ['-jpeg', '-scale-to', String(MAX_SIDE), pdf, join(out, 'p')]);
  const ms = performance.now() - started;
  const cpu = (await cpuMs('self')) - cpuBefore;
  await rm(out, { recursive: true, force: true });
  return { ms, cpu };
};

type Timings = {
  inspectMs: number;
  renderMs: number;
  firstPageMs: number;
  textMs: number;
  storeMs: number;
  structureMs: number;
};

/** ms from `since` until the URL answers 200: asked again 20 ms after each 404. */
const firstAnswer = async (url: string, since: number, signal: AbortSignal) => {
  while (!signal.aborted) {
    const res = await fetch(url, { signal }).catch(() => null);
    await res?.arrayBuffer().catch(() => null);
    if (res?.status === 200) return performance.now() - since;
    await new Promise((r) => setTimeout(r, 20));
  }
  return Number.NaN;
};

const args = process.argv.slice(2);
const onS3 = args.includes('--s3');
const s3 = onS3 ? await startS3Server() : null;

const service = async (pdf: string, prefix: string[] = []) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-data-'));
  const store = ['--data-dir', dataDir];
  const created = await flipbook(['workspace', 'create', 'bench', ...store]);
  if (created.code !== 0) throw new Error(`workspace create: ${created.stderr}`);
  const issued = await flipbook(['key', 'create', '--workspace', 'bench', '--json', ...store]);
  if (issued.code !== 0) throw new Error(`key create: ${issued.stderr}`);
  const key = JSON.parse(issued.stdout).key;
  // The defaults a user gets: every core shared by the documents in flight (here, one).
  const blobs = s3 ? (await freshBucket(s3.endpoint)).args : [];
  const daemon = await startDaemon([...store, ...blobs, '--rate-limit', '0'], {}, prefix);
  let peakRssKb = 0;
  const sampler = setInterval(async () => {
    const status = await readFile(`/proc/${daemon.process.pid}/status`, 'utf8').catch(() => '');
    peakRssKb = Math.max(peakRssKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
  }, 100);
  try {
    const bytes = await readFile(pdf);
    const form = new FormData();
    form.set('file', new Blob([bytes], { type: 'application/pdf' }), basename(pdf));
    const headers = { authorization: `Bearer ${key}` };
    const pid = daemon.process.pid as number;
    const cpuBefore = await cpuMs(pid);
    const splitBefore = await cpuSplitMs(pid);
    const started = performance.now();
    // This process's own CPU meanwhile: the S3-protocol server's, with --s3.
    const benchCpuBefore = process.cpuUsage();
    const created = await fetch(`${daemon.url}/api/v1/flipbooks`, {
      method: 'POST',
      headers,
      body: form,
    });
    if (created.status !== 201)
      throw new Error(`upload: ${created.status} ${await created.text()}`);
    const { flipbook_id, version_id } = (await created.json()) as {
      flipbook_id: string;
      version_id: string;
    };
    const answered = performance.now();
    const gaveUp = new AbortController();
    const firstPage = firstAnswer(
      `${daemon.url}/files/pages/${version_id}/1/mid.jpg`,
      answered,
      gaveUp.signal,
    );
    // The end is the daemon's own log line, written once the version is done (read here, so
    // watching costs the daemon nothing: polling its status endpoint every 50 ms cost it ~5 %
    // of the baseline's CPU); the status endpoint then confirms it.
    const ended = () =>
      daemon
        .logs()
        .split('\n')
        .some((l) => /"msg":"version (processed|failed)"/.test(l) && l.includes(version_id));
    while (!ended()) await new Promise((r) => setTimeout(r, 10));
    const ms = performance.now() - started;
    const cpu = (await cpuMs(pid)) - cpuBefore;
    const bench = process.cpuUsage(benchCpuBefore);
    const serverCpu = (bench.user + bench.system) / 1000;
    const splitAfter = await cpuSplitMs(pid);
    const own = splitAfter.own - splitBefore.own;
    const res = await fetch(
      `${daemon.url}/api/v1/flipbooks/${flipbook_id}/versions/${version_id}/status`,
      { headers },
    );
    const { status, pages } = (await res.json()) as { status: string; pages: number };
    gaveUp.abort();
    const firstPageMs = await firstPage;
    if (status !== 'done') throw new Error(`processing ended in ${status}`);
    // (c): every page's largest image too, rendered by the fill after `done`.
    const filled = () =>
      daemon
        .logs()
        .split('\n')
        .some((l) => l.includes('"renditions filled in"') && l.includes(version_id));
    while (!filled()) await new Promise((r) => setTimeout(r, 10));
    const allMs = performance.now() - started;
    const allCpu = (await cpuMs(pid)) - cpuBefore;
    // pino writes asynchronously: the line may land a moment after the status says done.
    let line: string | undefined;
    for (let i = 0; i < 40 && !line; i++) {
      line = daemon
        .logs()
        .split('\n')
        .find((l) => l.includes('"version processed"'));
      if (!line) await new Promise((r) => setTimeout(r, 50));
    }
    const timings = (line ? JSON.parse(line).timings : {}) as Timings;
    return {
      ms,
      cpu,
      allMs,
      allCpu,
      own,
      serverCpu,
      pages,
      timings,
      firstPageMs,
      peakRssMb: Math.round(peakRssKb / 1024),
    };
  } finally {
    clearInterval(sampler);
    await daemon.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
};

/** Page 1's latency for an upload made while two long documents render, on one daemon. */
const busy = async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-busy-'));
  const store = ['--data-dir', dataDir];
  await flipbook(['workspace', 'create', 'bench', ...store]);
  const key = JSON.parse(
    (await flipbook(['key', 'create', '--workspace', 'bench', '--json', ...store])).stdout,
  ).key;
  const daemon = await startDaemon([...store, '--rate-limit', '0']);
  const headers = { authorization: `Bearer ${key}` };
  const upload = async (name: string) => {
    const form = new FormData();
    const bytes = await readFile(resolve(CORPUS, name));
    form.set('file', new Blob([bytes], { type: 'application/pdf' }), name);
    const res = await fetch(`${daemon.url}/api/v1/flipbooks`, {
      method: 'POST',
      headers,
      body: form,
    });
    return (await res.json()) as { flipbook_id: string; version_id: string };
  };
  const pagesDone = async (ids: { flipbook_id: string; version_id: string }) => {
    const res = await fetch(
      `${daemon.url}/api/v1/flipbooks/${ids.flipbook_id}/versions/${ids.version_id}/status`,
      { headers },
    );
    return ((await res.json()) as { pages_done?: number }).pages_done ?? 0;
  };
  try {
    const long = [await upload('text_freeculture.pdf'), await upload('text_why3-manual.pdf')];
    while ((await Promise.all(long.map(pagesDone))).some((n) => n === 0)) {
      await new Promise((r) => setTimeout(r, 50));
    }
    for (const name of ['vec_tracemonkey.pdf', 'img_GS9_Color_Management.pdf']) {
      const started = performance.now();
      const ids = await upload(name);
      const answered = performance.now();
      const ms = await firstAnswer(
        `${daemon.url}/files/pages/${ids.version_id}/1/mid.jpg`,
        answered,
        AbortSignal.timeout(30_000),
      );
      console.log(
        `${name.padEnd(32)} page 1 ${seconds(ms)} s after its 201 (upload ${seconds(answered - started)} s), while two long documents render`,
      );
    }
  } finally {
    await daemon.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
};

const named = args.filter((a) => a !== '--s3');
const files = named.length > 0 ? named : DEFAULT_FILES;
if (onS3) console.log(`blobs in a bucket on s3rver (${s3?.endpoint})`);
console.log(
  `document                         pages  pdftoppm(a)  done(b)  (b)/(a)  all(c)  (c)/(a)   cpu(a)   cpu(b)  cpu(b)/(a)  cpu(c)/(a)  cpu/wall  1 core(d)  (d)/(b)  daemon  page 1   render   text  store  struct     RSS${onS3 ? '  s3 cpu' : ''}`,
);
for (const name of files) {
  const pdf = resolve(CORPUS, name);
  const a = await baseline(pdf);
  const b = await service(pdf);
  const d = await service(pdf, ['taskset', '-c', '0']);
  const t = b.timings;
  console.log(
    [
      name.padEnd(32),
      String(b.pages).padStart(5),
      `${seconds(a.ms)} s`.padStart(11),
      `${seconds(b.ms)} s`.padStart(8),
      (b.ms / a.ms).toFixed(2).padStart(8),
      `${seconds(b.allMs)} s`.padStart(7),
      (b.allMs / a.ms).toFixed(2).padStart(8),
      `${seconds(a.cpu)} s`.padStart(8),
      `${seconds(b.cpu)} s`.padStart(8),
      (b.cpu / a.cpu).toFixed(2).padStart(11),
      (b.allCpu / a.cpu).toFixed(2).padStart(11),
      (b.cpu / b.ms).toFixed(2).padStart(9),
      `${seconds(d.ms)} s`.padStart(10),
      (d.ms / b.ms).toFixed(2).padStart(8),
      `${seconds(b.own)} s`.padStart(7),
      `${seconds(b.firstPageMs)} s`.padStart(7),
      `${seconds(t.renderMs)} s`.padStart(8),
      `${seconds(t.textMs)} s`.padStart(6),
      `${seconds(t.storeMs)} s`.padStart(6),
      `${seconds(t.structureMs)} s`.padStart(7),
      `${b.peakRssMb} MB`.padStart(7),
      ...(onS3 ? [`${seconds(b.serverCpu)} s`.padStart(7)] : []),
    ].join(' '),
  );
}
console.log(
  [
    "page 1: from the upload's 201 until /files/pages/<version>/1/mid.jpg answered 200.",
    'done (b): upload to `done` (mid and min, text, structure); all (c): until the fill after',
    '`done` had rendered every 2000 px image too. cpu: user + system time of pdftoppm (a) and of',
    'the daemon with its poppler processes (b, c); cpu/wall: cores busy on average until done.',
    '1 core (d): (b) with the daemon under `taskset -c 0`; (d)/(b) is what the second core gives.',
    'render: the renderer processes, start to end; text: until pdftotext ended (among them);',
    'store: appending events; struct: document.json. daemon: the part of cpu(b) spent in the',
    'daemon process itself (receiving the upload, events, HTTP, watching renders).',
    ...(onS3
      ? ['s3 cpu: the S3-protocol server (s3rver, in this process) meanwhile: not in cpu(b).']
      : []),
  ].join('\n'),
);
if (!onS3 && named.length === 0) await busy();
await s3?.stop();
