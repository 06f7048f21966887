// bench/tiles: what a flood of deep-zoom tile requests costs a new upload's first page and the
// API, measured against the same daemon idle, in one run.
//
//   npm run bench:tiles [-- --flood 48 --rounds 3]
//
// One daemon (embedded store, default settings: processing in the daemon) with a finished book
// to zoom into. Each round measures, idle and then under the flood: the API (the median of 20
// `GET /api/v1/flipbooks` one after another) and a new upload's first page (from its 201 until
// page 1's image answers 200). The flood is `--flood` clients, each asking for one level-3 tile
// after another, never the same twice (each one a render), as a zoomed reader population would.
// The bound (docs/deploy.md, "Deep zoom"): both within 1.5× of idle. Prints the ratios;
// exits 1 when a median is over. Run it on an idle machine.
import { readFile } from 'node:fs/promises';
import { corpus } from '../test/support/corpus.ts';
import { startBenchDaemon } from './benchDaemon.ts';

const flag = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const FLOOD = flag('--flood', 48);
const ROUNDS = flag('--rounds', 3);
const BOUND = 1.5;

const { daemon, key, url } = await startBenchDaemon('tiles');
const headers = { authorization: `Bearer ${key}` };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

const upload = async (name: string) => {
  const form = new FormData();
  form.set('file', new Blob([await readFile(corpus(name))], { type: 'application/pdf' }), name);
  const res = await fetch(`${url}/api/v1/flipbooks`, { method: 'POST', headers, body: form });
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
  return { answered: performance.now(), ...((await res.json()) as { version_id: string }) };
};

const firstPage = async (versionId: string, since: number) => {
  for (;;) {
    const res = await fetch(`${url}/files/pages/${versionId}/1/mid.jpg`, { headers });
    await res.arrayBuffer();
    if (res.status === 200) return performance.now() - since;
    await new Promise((r) => setTimeout(r, 20));
  }
};

const apiMs = async () => {
  const times: number[] = [];
  for (let i = 0; i < 20; i++) {
    const started = performance.now();
    const res = await fetch(`${url}/api/v1/flipbooks`, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`API: ${res.status}`);
    times.push(performance.now() - started);
  }
  return median(times);
};

const newUploadMs = async () => {
  const { version_id, answered } = await upload('vec_tracemonkey.pdf');
  return firstPage(version_id, answered);
};

try {
  // The book readers zoom into: 14 letter pages, 13 × 16 tiles each at level 3.
  const book = await upload('vec_tracemonkey.pdf');
  await firstPage(book.version_id, book.answered);
  for (;;) {
    const res = await fetch(`${url}/api/v1/flipbooks`, { headers });
    const body = (await res.json()) as { data: { status?: string; active_version?: unknown }[] };
    if (JSON.stringify(body).includes('"done"')) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const tiles: string[] = [];
  for (let page = 1; page <= 14; page++)
    for (let row = 0; row < 16; row++)
      for (let column = 0; column < 12; column++)
        tiles.push(`${url}/files/pages/${book.version_id}/${page}/tile-3-${column}-${row}.jpg`);
  let next = 0;
  const statuses = new Map<number, number>();
  const flood = async (signal: AbortSignal) => {
    while (!signal.aborted) {
      const tile = tiles[next++ % tiles.length] as string;
      const started = performance.now();
      const res = await fetch(tile, { headers, redirect: 'manual' }).catch(() => null);
      await res?.arrayBuffer().catch(() => null);
      statuses.set(res?.status ?? 0, (statuses.get(res?.status ?? 0) ?? 0) + 1);
      longest = Math.max(longest, performance.now() - started);
    }
  };
  let longest = 0;
  const idle = { api: [] as number[], page: [] as number[] };
  const flooded = { api: [] as number[], page: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    idle.api.push(await apiMs());
    idle.page.push(await newUploadMs());
    const stop = new AbortController();
    const clients = Array.from({ length: FLOOD }, () => flood(stop.signal));
    await new Promise((r) => setTimeout(r, 3_000)); // the flood under way
    flooded.api.push(await apiMs());
    flooded.page.push(await newUploadMs());
    stop.abort();
    await Promise.all(clients);
    await new Promise((r) => setTimeout(r, 2_000)); // renders in flight end
  }
  const ms = (xs: number[]) => `${Math.round(median(xs))} ms`;
  const apiRatio = median(flooded.api) / median(idle.api);
  const pageRatio = median(flooded.page) / median(idle.page);
  console.log(`${FLOOD} clients asking for tiles, ${ROUNDS} rounds (medians)`);
  console.log(
    `API GET /flipbooks   idle ${ms(idle.api)}, flooded ${ms(flooded.api)}: ${apiRatio.toFixed(2)}×`,
  );
  console.log(
    `new upload's page 1  idle ${ms(idle.page)}, flooded ${ms(flooded.page)}: ${pageRatio.toFixed(2)}×`,
  );
  console.log(
    `tile answers: ${JSON.stringify(Object.fromEntries(statuses))}, longest ${Math.round(longest)} ms`,
  );
  if (apiRatio > BOUND || pageRatio > BOUND) process.exitCode = 1;
} finally {
  daemon.kill('SIGTERM');
}
