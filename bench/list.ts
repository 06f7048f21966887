// bench/list: what a page of the list costs as a workspace grows (issue 12).
//
//   npm run bench:list [-- 500 10000 100000] [--seconds 5] [--rounds 3] [--explain] [--data-dir DIR]
//
// Fills one workspace to each size in turn (bench/seedFlipbooks.ts: the event path, in bulk, no
// HTTP), then, against a daemon run as its own process (`flipbook serve`, no workers, a rate
// limit too high to bite but still counted), measures with autocannon at 10 connections, in this
// same run: GET one flipbook (the baseline), the default list, page 400, and a title search
// sorted by title, each for --seconds, in --rounds rounds one after the other (the machine's load
// moves: a shape is compared with GET one of the same round). Prints the medians of req/s, p99,
// the CPU time per request of the daemon and of PostgreSQL (which the load barely moves), the
// load average, and the ratios the issue asks for; then what the rate limit and
// authentication cost per call (bench/gateCost.ts). --explain prints EXPLAIN ANALYZE of each
// list shape's queries. --data-dir keeps the store (seeding only what is missing) for a rerun.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, open, readdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { issueApiKey } from '../src/app/apiKeys.ts';
import { createWorkspace } from '../src/app/workspaces.ts';
import { listFlipbooks, nothingRemembered, type Remembered } from '../src/queries/flipbookList.ts';
import type { ListQuery } from '../src/readTables/flipbooks.ts';
import type { Db } from '../src/readTables/readTable.ts';
import { openStore, type Store } from '../src/store/store.ts';
import { cpuMs } from './cpuTime.ts';
import { measureGate, timed } from './gateCost.ts';
import { RARE_WORD, seedFlipbooks } from './seedFlipbooks.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    explain: { type: 'boolean', default: false },
    'data-dir': { type: 'string' },
  },
});
const sizes = (positionals.length ? positionals : ['500', '10000', '100000']).map(Number);
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const ROOT = resolve(import.meta.dirname, '..');
const META = { actor: { type: 'admin' as const, id: 'bench' } };

const list = (q: Partial<ListQuery>): ListQuery => ({
  page: 1,
  perPage: 20,
  search: null,
  status: null,
  sort: 'created_at',
  dir: 'desc',
  ...q,
});

const SHAPES: { name: string; path: string; query: ListQuery }[] = [
  {
    name: 'default list',
    path: '/api/v1/flipbooks?per_page=20',
    query: list({}),
  },
  {
    name: 'page 400',
    path: '/api/v1/flipbooks?per_page=20&page=400',
    query: list({ page: 400 }),
  },
  {
    name: 'title search',
    path: `/api/v1/flipbooks?per_page=20&search=${RARE_WORD.toLowerCase()}&sort=title&dir=asc`,
    query: list({ search: RARE_WORD.toLowerCase(), sort: 'title', dir: 'asc' }),
  },
];

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

const freePort = () =>
  new Promise<number>((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });

/** CPU ms of the PostgreSQL server: the postmaster, its reaped children and its live backends. */
const postgresCpuMs = async (store: Store) => {
  const { rows } = await store.pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const backendStat = await readFile(`/proc/${rows[0]?.pid}/stat`, 'utf8');
  const postmaster = Number(backendStat.slice(backendStat.lastIndexOf(')') + 2).split(' ')[1]);
  let total = await cpuMs(postmaster);
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[1]) !== postmaster) continue;
    total += (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime of a live backend
  }
  return total;
};

const startDaemon = async (dataDir: string, port: number) => {
  const log = await open(join(dataDir, 'daemon.log'), 'a');
  const child = spawn(
    join(ROOT, 'bin/flipbook'),
    [
      'serve',
      ...['--data-dir', dataDir, '--port', String(port), '--workers', '0'],
      ...['--rate-limit', '1000000'],
    ],
    { stdio: ['ignore', log.fd, log.fd], env: { ...process.env } },
  );
  child.once('exit', () => void log.close());
  for (let i = 0; i < 300; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new Error(`the daemon did not start: see ${join(dataDir, 'daemon.log')}`);
};

const stopDaemon = (child: ChildProcess) =>
  new Promise<void>((done) => {
    if (child.exitCode !== null) return done();
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });

type Measured = { rps: number; p99: number; cpuPerRequest: number; pgPerRequest: number };

const measure = async (
  store: Store,
  daemon: ChildProcess,
  url: string,
  key: string,
): Promise<Measured> => {
  const headers = { authorization: `Bearer ${key}` };
  await autocannon({ url, connections: 10, duration: 1, headers }); // warm-up
  const [cpu0, pg0] = [await cpuMs(daemon.pid), await postgresCpuMs(store)];
  const result = await autocannon({ url, connections: 10, duration: seconds, headers });
  const [cpu1, pg1] = [await cpuMs(daemon.pid), await postgresCpuMs(store)];
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  }
  const requests = result['2xx'];
  return {
    rps: requests / result.duration,
    p99: result.latency.p99,
    cpuPerRequest: (cpu1 - cpu0) / requests,
    pgPerRequest: (pg1 - pg0) / requests,
  };
};

const explain = async (db: Db, query: ListQuery, workspaceId: string, memory?: Remembered) => {
  const plans: string[] = [];
  const explaining: Db = {
    query: async (text, params) => {
      const plan = await db.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN (ANALYZE, BUFFERS) ${typeof text === 'string' ? text : text.text}`,
        params,
      );
      plans.push(plan.rows.map((r) => r['QUERY PLAN']).join('\n'));
      return db.query(text, params);
    },
  };
  await listFlipbooks(explaining, workspaceId, query, memory);
  return plans.join('\n--\n');
};

const dataDir = values['data-dir']
  ? resolve(values['data-dir'])
  : await mkdtemp(join(tmpdir(), 'bench-list-'));
await mkdir(dataDir, { recursive: true });
await chmod(dataDir, 0o755); // the embedded PostgreSQL runs as `postgres` when we are root
const store = await openStore({ dataDir });
let daemon: ChildProcess | undefined;
try {
  const workspace =
    (
      await store.pool.query<{ id: string }>(
        "SELECT workspace_id AS id FROM workspaces WHERE name = 'bench'",
      )
    ).rows[0] ?? (await createWorkspace(store, { name: 'bench', plan: 'team' }, META, new Date()));
  const { key } = await issueApiKey(store, { workspace: { id: workspace.id } }, META, new Date());
  const port = await freePort();
  daemon = await startDaemon(dataDir, port);
  const base = `http://127.0.0.1:${port}`;
  const results = new Map<number, Map<string, Measured>>();

  for (const size of sizes) {
    const have = Number(
      (
        await store.pool.query<{ n: string }>(
          'SELECT count(*) AS n FROM flipbooks WHERE workspace_id = $1',
          [workspace.id],
        )
      ).rows[0]?.n,
    );
    const seedStarted = performance.now();
    await seedFlipbooks(store, workspace.id, have, size);
    const seeded = (performance.now() - seedStarted) / 1000;
    // What autovacuum does after a bulk insert, done now so that every run starts alike.
    await store.pool.query('VACUUM (ANALYZE) flipbooks, versions, pages');
    console.log(
      `\n== ${size} flipbooks (${Math.max(0, size - have)} seeded in ${seeded.toFixed(0)} s; ` +
        `load average ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')})`,
    );
    const one = (
      await store.pool.query<{ id: string }>(
        'SELECT flipbook_id AS id FROM flipbooks WHERE workspace_id = $1 ORDER BY created_at LIMIT 1',
        [workspace.id],
      )
    ).rows[0]?.id;
    const shapes = [{ name: 'GET one', path: `/api/v1/flipbooks/${one}` }, ...SHAPES];
    const samples = new Map<string, Measured[]>(shapes.map((shape) => [shape.name, []]));
    const ratios = new Map<string, number[]>(shapes.map((shape) => [shape.name, []]));
    for (let round = 0; round < rounds; round++) {
      let baseline = 0;
      for (const shape of shapes) {
        const m = await measure(store, daemon, base + shape.path, key);
        baseline ||= m.rps;
        samples.get(shape.name)?.push(m);
        ratios.get(shape.name)?.push(m.rps / baseline);
      }
    }
    const row = new Map<string, Measured>();
    results.set(size, row);
    for (const shape of shapes) {
      const of = (pick: (m: Measured) => number) =>
        median((samples.get(shape.name) ?? []).map(pick));
      const m: Measured = {
        rps: of((x) => x.rps),
        p99: of((x) => x.p99),
        cpuPerRequest: of((x) => x.cpuPerRequest),
        pgPerRequest: of((x) => x.pgPerRequest),
      };
      row.set(shape.name, m);
      const getOne = row.get('GET one') as Measured;
      const atSmallest = results.get(sizes[0] as number)?.get(shape.name);
      const cpu = (x: Measured) => x.cpuPerRequest + x.pgPerRequest;
      console.log(
        `${shape.name.padEnd(13)} ${m.rps.toFixed(0).padStart(6)} req/s  p99 ${String(m.p99).padStart(4)} ms  ` +
          `CPU/request: daemon ${m.cpuPerRequest.toFixed(2)} ms, PostgreSQL ${m.pgPerRequest.toFixed(2)} ms  ` +
          `× GET one ${median(ratios.get(shape.name) ?? []).toFixed(2)} (by CPU ${(cpu(getOne) / cpu(m)).toFixed(2)})` +
          (atSmallest && size !== sizes[0]
            ? `  × at ${sizes[0]} ${(m.rps / atSmallest.rps).toFixed(2)}`
            : ''),
      );
    }
    console.log(`(load average after: ${loadavg()[0]?.toFixed(2)})`);
    console.log('-- the gate in front of each request (in this process):');
    await measureGate(store, key, workspace.id, one as string, () => postgresCpuMs(store));
    console.log('-- the list query alone (in this process):');
    // "cold": with nothing remembered of earlier pages and searches
    const cold = SHAPES.slice(1).map((shape) => ({ ...shape, name: `${shape.name}, cold` }));
    for (const shape of [...SHAPES, ...cold]) {
      const memory = shape.name.endsWith('cold') ? nothingRemembered : () => undefined;
      const m = await timed(
        () => postgresCpuMs(store),
        () => listFlipbooks(store.db, workspace.id, shape.query, memory()),
      );
      console.log(
        `${shape.name.padEnd(17)} ${m.wallUs.toFixed(0).padStart(5)} µs per call (10 at a time), CPU ` +
          `${m.cpuUs.toFixed(0)} µs here + ${m.pgUs.toFixed(0)} µs in PostgreSQL`,
      );
    }
    if (values.explain) {
      for (const shape of [...SHAPES, ...cold]) {
        console.log(`\n-- EXPLAIN ANALYZE, ${shape.name} at ${size}:`);
        const memory = shape.name.endsWith('cold') ? nothingRemembered() : undefined;
        console.log(await explain(store.db, shape.query, workspace.id, memory));
      }
    }
  }
} finally {
  if (daemon) await stopDaemon(daemon);
  await store.close();
  if (!values['data-dir']) await rm(dataDir, { recursive: true, force: true });
}
