// bench/comparison: what a preview's comparison costs beside the processing of its version, on a
// 300-page document (issue 43: at most 0.2 of it), and whether a preview's first page comes as
// fast as a publish's. Run by hand, on an idle machine:
//
//   npm run bench:comparison [-- --runs N]
//
// Each run starts a fresh daemon with the defaults a user gets (embedded store) and publishes to
// a slug a 300-page document made from the corpus with qpdf (text_why3-manual.pdf, 184 pages,
// then text_GeoTopo.pdf's first 116); then, in an order that alternates between runs, a preview
// of it with known edits (a word laid over pages 20, 120 and 250, a page inserted after page 99,
// page 200 removed) and a publish of that same edited file to another slug: the baseline,
// measured in the same run. For each: the time from the upload's 201 until page 1's mid.jpg is
// served (at the preview's URL, or the book's), and until the version is done, with the daemon's
// CPU over it; for the preview, then, the time from done until the API's `compare` is not null,
// and the daemon's own log line `preview compared` (its ms). CPU is the daemon's /proc figure,
// split into its own (sharp's decoding and the pixel loop are there) and its children's
// (poppler's processes: processing, and the background fill of the 2000 px rendition that runs
// after a version is done, beside the comparison). Each step waits for the previous version's
// fill to end, so no step starts on a busy daemon. Last, the comparison's worst case, beside the
// issue's: a preview with a word laid over every page (every page's pixels compared, every
// page's before and marked images kept).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { corpus } from '../test/support/corpus.ts';
import { pagesFrom, withWord } from '../test/support/editedPdfs.ts';
import { startBenchDaemon } from './benchDaemon.ts';
import { cpuSplitMs } from './cpuTime.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '1' } } });
const RUNS = Number(values.runs);
/** the target: the comparison costs at most this share of processing the version */
const TARGET = 0.2;
const WORD_PAGES = [20, 120, 250];
const SLUG = 'manual';

type Daemon = Awaited<ReturnType<typeof startBenchDaemon>>;
type Json = Record<string, unknown>;

const dir = await mkdtemp(join(tmpdir(), 'bench-comparison-'));
const why3 = corpus('text_why3-manual.pdf');
const geoTopo = corpus('text_GeoTopo.pdf');
const base = await pagesFrom(join(dir, 'manual-300.pdf'), [why3, '1-184'], [geoTopo, '1-116']);
let worded = base;
for (const page of WORD_PAGES)
  worded = await withWord(worded, page, 'REVIEWED', join(dir, `worded-${page}.pdf`));
const stamped = await withWord(base, '1-z', 'REVIEWED', join(dir, 'manual-300-stamped.pdf'));
const edited = await pagesFrom(
  join(dir, 'manual-300-edited.pdf'),
  [worded, '1-99'],
  [corpus('text_freeculture.pdf'), '5'],
  [worded, '100-199,201-300'],
);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** ms from `since` until `url` answers 200 */
const firstAnswer = async (url: string, since: number) => {
  for (;;) {
    const res = await fetch(url).catch(() => null);
    await res?.arrayBuffer().catch(() => null);
    if (res?.status === 200) return performance.now() - since;
    await sleep(25);
  }
};

const until = async <T>(what: string, check: () => Promise<T | undefined>, ms = 900_000) => {
  const deadline = performance.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
};

const logLine = (server: Daemon, msg: string, versionId: string) =>
  server
    .logs()
    .split('\n')
    .filter((line) => line.includes(`"msg":"${msg}"`) && line.includes(versionId))
    .map((line) => JSON.parse(line) as Json)[0];

/** the version's background fill ended (or never had anything to do) */
const filled = (server: Daemon, versionId: string) =>
  until(`the fill of ${versionId}`, async () =>
    logLine(server, 'renditions filled in', versionId) ||
    logLine(server, 'fill ended early', versionId)
      ? true
      : undefined,
  );

const api =
  (server: Daemon) =>
  async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${server.url}/api/v1${path}`, {
      ...init,
      headers: { authorization: `Bearer ${server.key}`, ...init.headers },
    });
    const body = (await res.json()) as Json;
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
    return body;
  };

const fileForm = async (file: string) => {
  const form = new FormData();
  form.set('file', new Blob([await readFile(file)], { type: 'application/pdf' }), basename(file));
  return form;
};

type Upload = {
  /** upload's 201 until page 1's mid.jpg is served */
  page1Ms: number;
  /** upload's 201 until done */
  doneMs: number;
  cpu: { own: number; children: number };
  versionId: string;
};

/**
 * Uploads `file` to `path`, then measures as above; `pageUrl` and `status` say where the
 * version's page 1 and status are, from the 201's answer.
 */
const upload = async (
  server: Daemon,
  path: string,
  file: string,
  pageUrl: (created: Json) => string,
  status: (created: Json) => Promise<unknown>,
): Promise<Upload> => {
  const pid = server.daemon.pid as number;
  const form = await fileForm(file);
  const cpuBefore = await cpuSplitMs(pid);
  const created = await api(server)(path, { method: 'POST', body: form });
  const accepted = performance.now();
  const page1 = firstAnswer(pageUrl(created), accepted);
  await until('processing', async () => {
    const now = await status(created);
    if (now === 'error') throw new Error(`${file} failed processing`);
    return now === 'done' ? true : undefined;
  });
  const doneMs = performance.now() - accepted;
  const cpuAfter = await cpuSplitMs(pid);
  return {
    page1Ms: await page1,
    doneMs,
    cpu: { own: cpuAfter.own - cpuBefore.own, children: cpuAfter.children - cpuBefore.children },
    versionId: created.version_id as string,
  };
};

const publish = async (server: Daemon, slug: string, file: string) => {
  const call = api(server);
  return upload(
    server,
    `/flipbooks/by-slug/${slug}/versions`,
    file,
    (c) => `${server.url}/files/pages/${c.version_id}/1/mid.jpg`,
    async (c) => (await call(`/flipbooks/${c.flipbook_id}/versions/${c.version_id}/status`)).status,
  );
};

const preview = async (server: Daemon, name: string, file: string) => {
  const previewPath = `/flipbooks/by-slug/${SLUG}/previews/${name}`;
  const call = api(server);
  const pid = server.daemon.pid as number;
  let shown: Json = {};
  const processed = await upload(
    server,
    previewPath,
    file,
    (c) => `${c.preview_url}/pages/${c.version_id}/1/mid.jpg`,
    async () => {
      shown = await call(previewPath);
      return shown.status;
    },
  );
  const done = performance.now();
  const cpuBefore = await cpuSplitMs(pid);
  const compare = await until('the comparison', async () => {
    shown = await call(previewPath);
    return (shown.compare as Json | null) ?? undefined;
  });
  const compareMs = performance.now() - done;
  const cpuAfter = await cpuSplitMs(pid);
  const logged = logLine(server, 'preview compared', processed.versionId);
  return {
    ...processed,
    compareMs,
    loggedMs: Number(logged?.ms),
    compareCpu: {
      own: cpuAfter.own - cpuBefore.own,
      children: cpuAfter.children - cpuBefore.children,
    },
    compare,
  };
};

const run = async (n: number) => {
  const server = await startBenchDaemon('comparison');
  try {
    const live = await publish(server, SLUG, base);
    await filled(server, live.versionId);
    const order =
      n % 2 === 0 ? (['preview', 'publish'] as const) : (['publish', 'preview'] as const);
    let compared: Awaited<ReturnType<typeof preview>> | undefined;
    let published: Upload | undefined;
    for (const step of order) {
      if (step === 'preview') {
        compared = await preview(server, 'pr-1', edited);
        await filled(server, compared.versionId);
      } else {
        published = await publish(server, `${SLUG}-copy`, edited);
        await filled(server, published.versionId);
      }
    }
    // the comparison's worst case: every page's pixels compared, every page's images kept
    const everyPage = await preview(server, 'pr-2', stamped);
    return {
      live,
      compared: compared as NonNullable<typeof compared>,
      published: published as Upload,
      everyPage,
    };
  } finally {
    server.daemon.kill('SIGTERM');
    await new Promise((r) => server.daemon.once('exit', r));
    await rm(server.dataDir, { recursive: true, force: true });
  }
};

const s = (ms: number) => (ms / 1000).toFixed(1);
const cpu = (c: { own: number; children: number }) =>
  `${s(c.own + c.children)} (${s(c.own)} + ${s(c.children)})`;
const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  return Number.isInteger(mid)
    ? ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2
    : (sorted[Math.floor(mid)] ?? NaN);
};

console.log(
  `${hostname()}, ${new Date().toISOString().slice(0, 10)}: a 300-page document, default settings, embedded store; ` +
    `CPU s as the daemon's own + its children's (poppler)`,
);
type Compared = Awaited<ReturnType<typeof preview>>;
const row = (what: string, page1: string, wall: string, cpuText: string) =>
  console.log(`  ${what.padEnd(34)} | ${page1.padStart(6)} | ${wall.padStart(6)} | ${cpuText}`);
const processingCpu = (p: Compared) => p.cpu.own + p.cpu.children;
const ratios = (p: Compared) =>
  `wall ${(p.compareMs / p.doneMs).toFixed(3)}, CPU ${((p.compareCpu.own + p.compareCpu.children) / processingCpu(p)).toFixed(3)}`;
const found = (c: Json) =>
  `changed ${(c.changed as Json[]).length} ${JSON.stringify((c.changed as Json[]).slice(0, 5).map((x) => [x.before, x.after]))}, ` +
  `inserted ${JSON.stringify(c.inserted)}, removed ${JSON.stringify(c.removed)}, moved ${JSON.stringify(c.moved)}, unchanged ${c.unchanged}`;

const results: Awaited<ReturnType<typeof run>>[] = [];
for (let n = 0; n < RUNS; n++) {
  const r = await run(n);
  results.push(r);
  const { live, compared: p, published: q, everyPage: e } = r;
  console.log(`run ${n + 1} (${n % 2 === 0 ? 'preview first' : 'publish first'}), seconds:`);
  row('what', 'page 1', 'wall', 'CPU (own + children)');
  row('publish, unedited (the live one)', s(live.page1Ms), s(live.doneMs), cpu(live.cpu));
  row('publish, edited', s(q.page1Ms), s(q.doneMs), cpu(q.cpu));
  row('preview, edited', s(p.page1Ms), s(p.doneMs), cpu(p.cpu));
  row('  its comparison', '', s(p.compareMs), `${cpu(p.compareCpu)}; logged ${s(p.loggedMs)}`);
  row('preview, a word on every page', s(e.page1Ms), s(e.doneMs), cpu(e.cpu));
  row('  its comparison', '', s(e.compareMs), `${cpu(e.compareCpu)}; logged ${s(e.loggedMs)}`);
  console.log(`  comparison / processing, edited: ${ratios(p)}; every page: ${ratios(e)}`);
  console.log(`  preview's page 1 / the publish's: ${(p.page1Ms / q.page1Ms).toFixed(2)}`);
  console.log(`  edited: ${found(p.compare)}`);
  console.log(`  every page: ${found(e.compare)}`);
}
const ratio = median(results.map((r) => r.compared.compareMs / r.compared.doneMs));
const worst = median(results.map((r) => r.everyPage.compareMs / r.everyPage.doneMs));
const page1 = median(results.map((r) => r.compared.page1Ms / r.published.page1Ms));
console.log(
  `median of ${RUNS}: comparison / processing ${ratio.toFixed(3)} (target ≤ ${TARGET}): ${ratio <= TARGET ? 'ok' : 'OVER'}, ` +
    `${worst.toFixed(3)} with every page changed; preview's page 1 / publish's ${page1.toFixed(2)}`,
);
await rm(dir, { recursive: true, force: true });
