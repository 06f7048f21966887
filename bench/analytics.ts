// bench/analytics: reader analytics without cookies (issue 30): what taking in the readers'
// beacons costs, whether the reader and the API stay responsive meanwhile, and how long a
// flipbook's report over 90 days of figures takes. The issue's targets: at least 5,000 beacons a
// second into one daemon with a p99 of at most 20 ms, the reader and the API responsive; a 90-day
// report for a flipbook with 10 million page views in at most 200 ms.
//
//   npm run bench:analytics [-- --beacons 50000] [--rate 5000] [--readers 2000]
//     [--connections 64] [--ceiling 20000] [--reports 20] [--books 50] [--explain]
//
// One daemon (bench/benchDaemon.ts: embedded store, the defaults but the API's rate limit, off)
// started with --trust-proxy, as behind a reverse proxy: POST /b allows 3,000 beacons a minute per
// client address (src/reader/beaconRoute.ts), so each simulated reader sends its own
// X-Forwarded-For address (10.x.y.z) and a desktop Chrome's headers (a missing or headless user
// agent is a robot and not counted). A 3-page PDF is published and its reader page's token taken
// from GET /f/<id> (1 reader in 5 comes by one of the book's share links, with that reader's token).
//
// 1. Ingestion. --beacons beacons, made beforehand, go out at --rate a second (open loop: each
//    sent when due whatever the answers) over --connections keep-alive connections, one request at
//    a time on each, as a proxy in front of the daemon sends them; the sender writes prebuilt bytes
//    on plain sockets (undici's request() costs ~0.3 ms of CPU a request here, as much as the
//    daemon, on the same 2 cores). --readers readers each send what src/reader/client/beacon.ts
//    sends: an open (with the referring site), then beacons of one to three page events (a few
//    "more time" ones, links followed, searches, zooms, downloads). Prints the rate achieved, the
//    median and p99 of the 202s (from the moment each beacon was due), the CPU time per 1,000
//    beacons of the daemon, of PostgreSQL (the half-second writes included: measured until the
//    last is done) and of this process, and the daemon's event-loop delay and GC time over it (its
//    /metrics). 2,000 beacons go first, not measured (warm-up). Meanwhile one lane (undici) GETs the reader (/f/<id>) and
//    the API (/api/v1/flipbooks/<id>) in turn: their median and p99 beside those of the same lane
//    idle just before. Then the ceilings, --ceiling requests each with 64 in flight and nothing
//    beside: more beacons; the daemon's GET /healthz (its HTTP path without work); and the same
//    beacons to a bare node:http server that answers 202 (this machine's and this sender's floor,
//    the baseline of the ratio printed). Last, the figures the report gives for the day are
//    checked against those of every beacon answered 202.
// 2. The report. 90 days of figures for the published book are written straight into the
//    analytics tables (10,000,000 page views over 200 pages a day, 6 rows a day in analytics_daily:
//    the book's own URL and 5 share links, 30 links followed and 103 sources a day), and the same
//    shapes for --books other flipbooks; VACUUM ANALYZE. Then GET /api/v1/flipbooks/<id>/stats over
//    the 90 days and over the last 30 (the baseline), interleaved, --reports times each after 3
//    warm-ups: median and p99 wall time, CPU of the daemon and of PostgreSQL per report, and the
//    query alone (src/state/analytics.ts flipbookStats) run in this process. --explain prints
//    EXPLAIN ANALYZE of the report's queries. Also timed over these tables: the pruning the first
//    write of each day does (pruneFigures, in a transaction rolled back).
//
// The load average is printed at the start and the end: wall times move with whatever else the
// machine runs (CPU times barely do).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { flipbookStats } from '../src/queries/analyticsReports.ts';
import type { Db } from '../src/readTables/readTable.ts';
import { NO_LINK, pruneFigures } from '../src/state/analytics.ts';
import { longWork } from '../src/store/databaseLimits.ts';
import { openStore, type Store } from '../src/store/store.ts';
import { startBenchDaemon } from './benchDaemon.ts';
import { cpuMs } from './cpuTime.ts';
import { seedFlipbooks } from './seedFlipbooks.ts';

const ROOT = resolve(import.meta.dirname, '..');
// The shared corpus, where the tests find it (test/support/corpus.ts): a worktree's is elsewhere.
const PDF = join(
  process.env.FLIPBOOK_TEST_CORPUS || join(ROOT, '../shared/corpus'),
  'text_multicolumn.pdf',
);
const { values } = parseArgs({
  options: {
    beacons: { type: 'string', default: '50000' },
    rate: { type: 'string', default: '5000' },
    readers: { type: 'string', default: '2000' },
    connections: { type: 'string', default: '64' },
    ceiling: { type: 'string', default: '20000' },
    reports: { type: 'string', default: '20' },
    books: { type: 'string', default: '50' },
    explain: { type: 'boolean', default: false },
  },
});
const BEACONS = Number(values.beacons);
const RATE = Number(values.rate);
const READERS = Number(values.readers);
const CONNECTIONS = Number(values.connections);
const CEILING = Number(values.ceiling);
const REPORTS = Number(values.reports);
const OTHER_BOOKS = Number(values.books);
const VIEWS = 10_000_000;
const REPORT_DAYS = 90;
const REPORT_PAGES = 200;
const SHARE_LINKS = 5;
/** Beacons sent before any is measured. */
const WARM = 2000;

const TARGET = { rate: 5000, p99: 20, report: 200 };

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const at = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * q)] ?? Number.NaN;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** A small seeded generator: the same beacons every run. */
const random = (() => {
  let s = 0x9e3779b9;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
})();
const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)] as T;

const CHROMES = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/138.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/139.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/139.0.0.0 Safari/537.36',
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/139.0.0.0 Safari/537.36',
];
const REFERRERS = [
  'https://news.example.org/2026/spring-catalogue',
  'https://www.google.com/',
  'https://t.co/',
  'https://www.linkedin.com/',
  'https://mail.example.com/',
  'https://intranet.example.net/',
];

/** PostgreSQL's CPU ms: the postmaster, its reaped children and its live backends (bench/list.ts). */
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

/** A node:http server that answers 202 to any request once its body is read: the floor. */
const BARE_SERVER = `
const server = require('node:http').createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(202, { 'Cache-Control': 'no-store', 'Content-Length': 0 });
    res.end();
  });
});
server.keepAliveTimeout = 65000;
server.listen(0, '127.0.0.1', () => console.log(server.address().port));`;

/**
 * Keep-alive connections that send requests already made into bytes, one at a time on each (no
 * pipelining), as a proxy in front of the daemon does; answers are read as far as their status and
 * length. About 0.1 ms of CPU a request here, a third of undici's request(): the sender shares the
 * daemon's cores and must take as little of them as it can.
 */
const rawClient = (target: string, connections: number) => {
  const { hostname, port } = new URL(target);
  type Job = { bytes: Buffer; done: (status: number) => void; fail: (e: Error) => void };
  type Conn = { socket: Socket; job: Job | null; buffer: Buffer | null };
  const queue: Job[] = [];
  let head = 0;
  const idle: Conn[] = [];
  const all: Conn[] = [];
  const give = (conn: Conn) => {
    const job = head < queue.length ? queue[head++] : undefined;
    if (head === queue.length && head > 0) {
      queue.length = 0;
      head = 0;
    }
    if (!job) return void idle.push(conn);
    conn.job = job;
    conn.socket.write(job.bytes);
  };
  const open = () =>
    new Promise<void>((ready, failed) => {
      const socket = connect(Number(port), hostname, () => {
        socket.setNoDelay(true);
        ready();
      });
      const conn: Conn = { socket, job: null, buffer: null };
      all.push(conn);
      socket.once('error', failed);
      socket.on('error', (error) => conn.job?.fail(error));
      socket.on('close', () => conn.job?.fail(new Error('connection closed')));
      socket.on('data', (chunk: Buffer) => {
        conn.buffer = conn.buffer ? Buffer.concat([conn.buffer, chunk]) : chunk;
        const end = conn.buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        const headers = conn.buffer.toString('latin1', 0, end);
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(headers)?.[1] ?? 0);
        if (conn.buffer.length < end + 4 + length) return;
        conn.buffer = null;
        const job = conn.job;
        conn.job = null;
        job?.done(Number(headers.slice(9, 12)));
        give(conn);
      });
      idle.push(conn);
    });
  return {
    ready: Promise.all(Array.from({ length: connections }, open)),
    /** The status of the answer to these bytes. */
    send: (bytes: Buffer) =>
      new Promise<number>((done, fail) => {
        const job = { bytes, done, fail };
        const conn = idle.pop();
        if (!conn) return void queue.push(job);
        conn.job = job;
        conn.socket.write(bytes);
      }),
    close: () => {
      for (const conn of all) conn.socket.destroy();
    },
  };
};

console.log(`load average at start: ${load()}`);
const { dataDir, key, daemon, url } = await startBenchDaemon('analytics', ['--trust-proxy']);
// A connection of this process's own, without the statement limit (seeding is long work).
const store = await openStore({
  dataDir,
  poolSize: 2,
  limits: { connectMs: 30_000, statementMs: null },
});
const lanePool = new Pool(url, { connections: 1, keepAliveTimeout: 60_000 });

try {
  const api = `${url}/api/v1`;
  const auth = { authorization: `Bearer ${key}` };
  const json = async <T>(path: string, init?: RequestInit) => {
    const res = await fetch(`${api}${path}`, { ...init, headers: { ...auth, ...init?.headers } });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };

  // -- a published book, its share links, and the tokens its reader pages carry
  const form = new FormData();
  form.append('visibility', 'public');
  form.append('file', new Blob([readFileSync(PDF)], { type: 'application/pdf' }), 'bench.pdf');
  const book = await json<{ flipbook_id: string; version_id: string }>('/flipbooks', {
    method: 'POST',
    body: form,
  });
  for (;;) {
    const { status } = await json<{ status: string }>(
      `/flipbooks/${book.flipbook_id}/versions/${book.version_id}/status`,
    );
    if (status === 'done') break;
    if (status === 'error') throw new Error('the PDF did not process');
    await sleep(100);
  }
  const links: { id: string; url: string }[] = [];
  for (let i = 0; i < SHARE_LINKS; i++) {
    links.push(
      await json<{ id: string; url: string }>(`/flipbooks/${book.flipbook_id}/links`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ label: `newsletter ${i + 1}` }),
      }),
    );
  }
  const tokenOf = async (readerUrl: string) => {
    const html = await (await fetch(readerUrl)).text();
    const data = /<script type="application\/json" id="flipbook-data">(.*?)<\/script>/s.exec(html);
    const token = (JSON.parse(data?.[1] ?? '{}') as { beacon?: { token: string } }).beacon?.token;
    if (!token) throw new Error(`no beacon token in ${readerUrl}`);
    return token;
  };
  const readerUrl = `${url}/f/${book.flipbook_id}`;
  const ownToken = await tokenOf(readerUrl);
  const linkTokens = [await tokenOf(links[0]?.url ?? ''), await tokenOf(links[1]?.url ?? '')];
  const pageCount = 3; // text_multicolumn.pdf

  // -- the beacons, made beforehand, and what the report must then say
  type Reader = {
    address: string;
    ua: string;
    token: string;
    link: string;
    referer: string;
    step: number;
    page: number;
  };
  const readers: Reader[] = Array.from({ length: READERS }, (_, i) => {
    const viaLink = i % 5 === 4 ? (i % 10 === 4 ? 0 : 1) : null;
    return {
      address: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      ua: pick(CHROMES),
      token: viaLink === null ? ownToken : (linkTokens[viaLink] as string),
      link: viaLink === null ? NO_LINK : (links[viaLink]?.id as string),
      referer: viaLink === null ? readerUrl : (links[viaLink]?.url as string),
      step: 0,
      page: 1,
    };
  });
  type Expected = {
    opens: number;
    views: number;
    seconds: number;
    searches: number;
    downloads: number;
    zooms: number;
    pages: number[];
    clicks: Map<string, number>;
    referrers: Map<string, number>;
    readers: Set<string>;
  };
  let answered = 0;
  const expected: Expected = {
    opens: 0,
    views: 0,
    seconds: 0,
    searches: 0,
    downloads: 0,
    zooms: 0,
    pages: Array.from({ length: pageCount }, () => 0),
    clicks: new Map(),
    referrers: new Map(),
    readers: new Set(),
  };
  type Made = { headers: Record<string, string>; body: string; tally: () => void };
  /** The next beacon of a reader: an open, then 1 to 3 page events (and now and then more). */
  const beaconOf = (r: Reader): Made => {
    const events: Record<string, unknown>[] = [];
    const body: Record<string, unknown> = { v: 1, t: r.token, e: events };
    const tallies: (() => void)[] = [];
    if (r.step % 4 === 0) {
      // a new visit: the reader opens (the first beacon says where it came from)
      events.push({ k: 'open' });
      r.page = 1;
      const referrer = random() < 0.3 ? null : pick(REFERRERS);
      if (referrer) body.r = referrer;
      const host = referrer ? new URL(referrer).hostname.replace(/^www\./, '') : '(direct)';
      tallies.push(() => {
        expected.opens++;
        expected.referrers.set(host, (expected.referrers.get(host) ?? 0) + 1);
      });
    } else {
      /** pages this beacon already spoke of: a page is one view a beacon at most (ingest.ts) */
      const inBeacon = new Set<number>();
      for (let n = 1 + Math.floor(random() * 3); n > 0; n--) {
        const more = random() < 0.15;
        const s = Math.round((1 + random() * 40) * 10) / 10;
        const p = r.page;
        events.push(more ? { k: 'page', p, s, m: 1 } : { k: 'page', p, s });
        const counted = Math.floor(Math.min(s, 1800) * 10) / 10;
        const view = !more && !inBeacon.has(p);
        inBeacon.add(p);
        tallies.push(() => {
          expected.seconds += counted;
          if (view) {
            expected.views++;
            expected.pages[p - 1] = (expected.pages[p - 1] ?? 0) + 1;
          }
        });
        if (!more) r.page = (r.page % pageCount) + 1;
      }
      const extra = random();
      if (extra < 0.05) {
        const p = 1 + Math.floor(random() * pageCount);
        const l = Math.floor(random() * 3);
        events.push({ k: 'link', p, l });
        tallies.push(() =>
          expected.clicks.set(`${p} ${l}`, (expected.clicks.get(`${p} ${l}`) ?? 0) + 1),
        );
      } else if (extra < 0.1) {
        events.push({ k: 'search' });
        tallies.push(() => expected.searches++);
      } else if (extra < 0.14) {
        events.push({ k: 'zoom' });
        tallies.push(() => expected.zooms++);
      } else if (extra < 0.15) {
        events.push({ k: 'download' });
        tallies.push(() => expected.downloads++);
      }
    }
    r.step++;
    const reader = `${r.address} ${r.ua} ${r.link}`;
    return {
      headers: {
        'content-type': 'text/plain;charset=UTF-8',
        'user-agent': r.ua,
        'x-forwarded-for': r.address,
        origin: url,
        referer: r.referer,
        'accept-language': 'en-GB,en;q=0.9',
        'sec-ch-ua-mobile': '?0',
        'sec-ch-ua-platform': r.ua.includes('Windows')
          ? '"Windows"'
          : r.ua.includes('Mac')
            ? '"macOS"'
            : '"Linux"',
        'sec-fetch-dest': 'empty',
        'sec-fetch-mode': 'no-cors',
        'sec-fetch-site': 'same-origin',
      },
      body: JSON.stringify(body),
      tally: () => {
        answered++;
        expected.readers.add(reader);
        for (const t of tallies) t();
      },
    };
  };
  // warm-up beacons first (the daemon's beacon path compiled, today's salt made), then the measured
  const warm: Made[] = [];
  for (let i = 0; i < WARM; i++) warm.push(beaconOf(readers[i % READERS] as Reader));
  const made: Made[] = [];
  for (let i = 0; i < BEACONS + CEILING; i++) made.push(beaconOf(readers[i % READERS] as Reader));

  /** Beacon i as bytes on the wire: its request line, a desktop Chrome's headers, its body. */
  const wire = (target: string, beacon: Made) => {
    const head = Object.entries(beacon.headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    return Buffer.from(
      `POST /b HTTP/1.1\r\nHost: ${new URL(target).host}\r\nConnection: keep-alive\r\n${head}` +
        `Content-Length: ${Buffer.byteLength(beacon.body)}\r\n\r\n${beacon.body}`,
    );
  };
  const onWire = made.map((beacon) => wire(url, beacon));

  const refused = new Map<string, number>();
  const refuse = (why: string) => refused.set(why, (refused.get(why) ?? 0) + 1);

  // -- the lane that reads and calls the API, idle and under ingestion
  const laneGet = async (path: string, headers: Record<string, string> = {}) => {
    const started = performance.now();
    const res = await lanePool.request({ path, method: 'GET', headers });
    await res.body.dump();
    if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode}`);
    return performance.now() - started;
  };
  const lane = async (until: () => boolean) => {
    const reader: number[] = [];
    const apiGet: number[] = [];
    while (!until()) {
      reader.push(await laneGet(`/f/${book.flipbook_id}`));
      apiGet.push(await laneGet(`/api/v1/flipbooks/${book.flipbook_id}`, auth));
    }
    return { reader, apiGet };
  };
  const cpuNow = async (server = daemon.pid as number) => ({
    daemon: await cpuMs(server),
    postgres: await postgresCpuMs(store),
    self: await cpuMs('self'),
    at: performance.now(),
  });
  type Cpu = Awaited<ReturnType<typeof cpuNow>>;
  const spent = (a: Cpu, b: Cpu) => ({
    daemon: b.daemon - a.daemon,
    postgres: b.postgres - a.postgres,
    self: b.self - a.self,
    ms: b.at - a.at,
  });

  /** The daemon's own figures (/metrics, prom-client's defaults): its event loop's delay, GC. */
  const daemonMetrics = async () => {
    const text = await (await fetch(`${url}/metrics`)).text();
    const value = (name: string) =>
      Number(
        new RegExp(`^flipbook_${name.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? 0,
      );
    return {
      lagMaxMs: value('nodejs_eventloop_lag_max_seconds') * 1000,
      lagP99Ms: value('nodejs_eventloop_lag_p99_seconds') * 1000,
      gc: Object.fromEntries(
        ['major', 'minor', 'incremental'].map((kind) => [
          kind,
          {
            count: value(`nodejs_gc_duration_seconds_count{kind="${kind}"}`),
            ms: value(`nodejs_gc_duration_seconds_sum{kind="${kind}"}`) * 1000,
          },
        ]),
      ),
    };
  };
  const warmUntil = performance.now() + 1000;
  await lane(() => performance.now() > warmUntil);
  const idleUntil = performance.now() + 4000;
  const idle0 = await cpuNow();
  const idle = await lane(() => performance.now() > idleUntil);
  const idleCpu = spent(idle0, await cpuNow());
  const laneRequests = idle.reader.length + idle.apiGet.length;
  const laneCpuPerRequest = idleCpu.daemon / laneRequests;
  const lanePgPerRequest = idleCpu.postgres / laneRequests;

  // -- 1a. ingestion at the target rate, open loop, the lane beside it
  const beacons = rawClient(url, CONNECTIONS);
  await beacons.ready;
  let w = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (w < WARM) {
        const beacon = warm[w++] as Made;
        if ((await beacons.send(wire(url, beacon)).catch(() => 0)) === 202) beacon.tally();
        else refuse('warm-up');
      }
    }),
  );
  await sleep(1500);
  const dayFrom = dayOf(Date.now());
  const latencies: number[] = [];
  let done = false;
  const gcBefore = await daemonMetrics(); // (and the event loop's delay counted anew)
  const before = await cpuNow();
  const busyLane = lane(() => done);
  const started = performance.now();
  const sends: Promise<void>[] = [];
  let next = 0;
  let behind = 0;
  while (next < BEACONS) {
    const due = Math.min(BEACONS, Math.floor(((performance.now() - started) * RATE) / 1000) + 1);
    while (next < due) {
      const i = next++;
      // latency from the moment the beacon was due: a reader does not wait for a free connection
      const dueAt = started + (i * 1000) / RATE;
      behind = Math.max(behind, performance.now() - dueAt);
      sends.push(
        beacons.send(onWire[i] as Buffer).then(
          (status) => {
            if (status !== 202) return void refuse(String(status));
            latencies.push(performance.now() - dueAt);
            made[i]?.tally();
          },
          (error: Error & { code?: string }) => void refuse(error.code ?? error.message),
        ),
      );
    }
    await sleep(1);
  }
  await Promise.all(sends);
  const sentIn = performance.now() - started;
  done = true;
  const during = await busyLane;
  const gcAfter = await daemonMetrics();
  // The last beacons' figures are written within the next second: counted with ingestion.
  await sleep(1500);
  const ingestCpu = spent(before, await cpuNow());
  const duringLane = during.reader.length + during.apiGet.length;
  const ingestRate = (latencies.length * 1000) / sentIn;
  const perThousand = (ms: number, n = BEACONS) => (ms * 1000) / n;
  const daemonPerThousand = perThousand(ingestCpu.daemon - duringLane * laneCpuPerRequest);
  const pgPerThousand = perThousand(ingestCpu.postgres - duringLane * lanePgPerRequest);

  // -- 1b. ceilings, 64 in flight and nothing beside: POST /b; the daemon's GET /healthz (its
  // HTTP path, no work); a bare node:http server answering 202 to the same beacons (the machine's
  // and this client's floor)
  type Ceiling = { name: string; latencies: number[]; rate: number; cpu: ReturnType<typeof spent> };
  const ceilings: Ceiling[] = [];
  const ceiling = async (
    name: string,
    target: string,
    server: number,
    bytes: (i: number) => Buffer,
    ok: number,
    counted?: (i: number) => void,
  ) => {
    const client = rawClient(target, 64);
    await client.ready;
    let lat: number[] = [];
    let i = 0;
    const run = (until: number) =>
      Promise.all(
        Array.from({ length: 64 }, async () => {
          while (i < until) {
            const n = i++;
            const s0 = performance.now();
            const status = await client.send(bytes(n)).catch(() => 0);
            if (status !== ok) {
              refuse(`${name}: ${status}`);
              continue;
            }
            lat.push(performance.now() - s0);
            counted?.(n);
          }
        }),
      );
    await run(Math.floor(CEILING / 10)); // warm-up, not measured
    lat = [];
    const c0 = await cpuNow(server);
    const t0 = performance.now();
    await run(CEILING);
    const took = performance.now() - t0;
    if (counted) await sleep(1500); // the last writes (every half second) done
    const cpu = spent(c0, await cpuNow(server));
    client.close();
    ceilings.push({ name, latencies: lat, rate: (lat.length * 1000) / took, cpu });
  };
  if (CEILING > 0) {
    await ceiling(
      'POST /b',
      url,
      daemon.pid as number,
      (n) => onWire[BEACONS + n] as Buffer,
      202,
      (n) => made[BEACONS + n]?.tally(),
    );
    const health = Buffer.from(
      `GET /healthz HTTP/1.1\r\nHost: ${new URL(url).host}\r\nConnection: keep-alive\r\n` +
        `user-agent: ${CHROMES[0]}\r\naccept: */*\r\n\r\n`,
    );
    await ceiling('daemon GET /healthz', url, daemon.pid as number, () => health, 200);
    const bare = spawn(process.execPath, ['--input-type=commonjs', '-e', BARE_SERVER], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const port = await new Promise<string>((done) =>
        bare.stdout?.once('data', (chunk: Buffer) => done(chunk.toString().trim())),
      );
      const bareUrl = `http://127.0.0.1:${port}`;
      const onBare = made.slice(0, CEILING).map((beacon) => wire(bareUrl, beacon));
      await ceiling(
        'bare node:http POST',
        bareUrl,
        bare.pid as number,
        (n) => onBare[n] as Buffer,
        202,
      );
    } finally {
      bare.kill();
    }
  }
  beacons.close();

  // -- 1c. the figures written against those sent
  await sleep(1000);
  const dayTo = dayOf(Date.now());
  type Stats = {
    opens: number;
    views: number;
    readers: number;
    read_seconds: number;
    searches: number;
    downloads: number;
    zooms: number;
    days: unknown[];
    pages: { position: number; views: number }[];
    links: { page: number; link: number; clicks: number }[];
    referrers: { name: string; opens: number }[];
    devices: { name: string; opens: number }[];
    share_links: { id: string; views: number }[];
  };
  const stats = await json<Stats>(
    `/flipbooks/${book.flipbook_id}/stats?from=${dayFrom}&to=${dayTo}`,
  );
  const sent = answered;
  const checks: [string, number | string, number | string][] = [
    ['opens', expected.opens, stats.opens],
    ['views', expected.views, stats.views],
    ['readers', expected.readers.size, stats.readers],
    ['read seconds', Math.round(expected.seconds), Math.round(stats.read_seconds)],
    ['searches', expected.searches, stats.searches],
    ['zooms', expected.zooms, stats.zooms],
    ['downloads', expected.downloads, stats.downloads],
    ['views by page', expected.pages.join(' '), stats.pages.map((p) => p.views).join(' ')],
    [
      'links followed',
      [...expected.clicks.values()].reduce((a, b) => a + b, 0),
      stats.links.reduce((a, l) => a + l.clicks, 0),
    ],
    [
      'referrers',
      [...expected.referrers]
        .sort()
        .map(([h, n]) => `${h}:${n}`)
        .join(' '),
      [...stats.referrers]
        .sort((a, b) => (a.name < b.name ? -1 : 1))
        .map((r) => `${r.name}:${r.opens}`)
        .join(' '),
    ],
    [
      'devices',
      `desktop:${expected.opens}`,
      stats.devices.map((d) => `${d.name}:${d.opens}`).join(' '),
    ],
  ];
  const figuresOk = checks.every(([, a, b]) => String(a) === String(b));

  console.log(
    `\n== 1. ingestion: ${BEACONS} beacons offered at ${RATE}/s from ${READERS} readers over ${CONNECTIONS} connections (load average ${load()})`,
  );
  const rowOf = (
    phase: string,
    lat: number[],
    rate: number,
    cpu: ReturnType<typeof spent>,
    n: number,
    server = cpu.daemon,
  ) => ({
    phase,
    requests: lat.length,
    'per s': Math.round(rate),
    'median ms': at(lat, 0.5).toFixed(2),
    'p99 ms': at(lat, 0.99).toFixed(2),
    'max ms': at(lat, 1).toFixed(1),
    'server CPU ms/1000': perThousand(server, n).toFixed(0),
    'PostgreSQL CPU ms/1000': perThousand(cpu.postgres, n).toFixed(0),
    'client CPU ms/1000': perThousand(cpu.self, n).toFixed(0),
  });
  console.table([
    {
      ...rowOf(`POST /b at ${RATE}/s, open loop`, latencies, ingestRate, ingestCpu, BEACONS),
      'server CPU ms/1000': daemonPerThousand.toFixed(0),
      'PostgreSQL CPU ms/1000': pgPerThousand.toFixed(0),
    },
    ...ceilings.map((c) =>
      rowOf(`${c.name}, 64 in flight`, c.latencies, c.rate, c.cpu, c.latencies.length),
    ),
  ]);
  const bare = ceilings[2];
  const onB = ceilings[0];
  if (bare && onB) {
    console.log(
      `POST /b against bare node:http: ${(bare.rate / onB.rate).toFixed(2)}x the time per beacon, ` +
        `${(onB.cpu.daemon / bare.cpu.daemon).toFixed(2)}x the server CPU`,
    );
  }
  const share = (ms: number) => `${(ms / (ingestCpu.ms / 1000) / 10).toFixed(0)}%`;
  console.log(
    `(open loop: ${duringLane} lane requests meanwhile taken out of the daemon's CPU at their idle ` +
      `cost, ${laneCpuPerRequest.toFixed(2)} ms each; of a core over the run: daemon ` +
      `${share(ingestCpu.daemon)}, PostgreSQL ${share(ingestCpu.postgres)}, this process ` +
      `${share(ingestCpu.self)}; the sender was at most ${behind.toFixed(1)} ms late)`,
  );
  const gcMs = (kind: string) =>
    `${(gcAfter.gc[kind]?.count ?? 0) - (gcBefore.gc[kind]?.count ?? 0)} ${kind} ` +
    `${((gcAfter.gc[kind]?.ms ?? 0) - (gcBefore.gc[kind]?.ms ?? 0)).toFixed(0)} ms`;
  console.log(
    `(the daemon over the open loop: event-loop delay p99 ${gcAfter.lagP99Ms.toFixed(1)} ms, ` +
      `max ${gcAfter.lagMaxMs.toFixed(1)} ms; GC ${['major', 'minor', 'incremental'].map(gcMs).join(', ')})`,
  );
  if (refused.size > 0) console.log(`not 202: ${JSON.stringify(Object.fromEntries(refused))}`);
  const laneRow = (name: string, idleMs: number[], busyMs: number[]) => ({
    lane: name,
    'idle median ms': at(idleMs, 0.5).toFixed(2),
    'idle p99 ms': at(idleMs, 0.99).toFixed(2),
    'ingesting median ms': at(busyMs, 0.5).toFixed(2),
    'ingesting p99 ms': at(busyMs, 0.99).toFixed(2),
    'median ×': (at(busyMs, 0.5) / at(idleMs, 0.5)).toFixed(2),
    'p99 ×': (at(busyMs, 0.99) / at(idleMs, 0.99)).toFixed(2),
    requests: `${idleMs.length} / ${busyMs.length}`,
  });
  console.log('responsiveness (one lane, one request at a time):');
  console.table([
    laneRow('GET /f/<id> (reader)', idle.reader, during.reader),
    laneRow('GET /api/v1/flipbooks/<id>', idle.apiGet, during.apiGet),
  ]);
  console.log(
    `figures written vs sent (${sent} beacons answered 202, ${dayFrom}${dayTo === dayFrom ? '' : `..${dayTo}`}): ${figuresOk ? 'all match' : 'MISMATCH'}`,
  );
  console.table(checks.map(([what, want, got]) => ({ figure: what, sent: want, written: got })));

  // -- 2. the report over 90 days of 10 M page views
  const today = Date.parse(`${dayOf(Date.now())}T00:00:00Z`);
  const days = Array.from({ length: REPORT_DAYS }, (_, i) =>
    dayOf(today - (REPORT_DAYS - 1 - i) * DAY_MS),
  );
  const workspace = (
    await store.pool.query<{ id: string }>(
      'SELECT workspace_id AS id FROM flipbooks WHERE flipbook_id = $1',
      [book.flipbook_id],
    )
  ).rows[0]?.id as string;
  const seedStarted = performance.now();
  const others = await seedFlipbooks(store, workspace, 0, OTHER_BOOKS);
  const db = store.pool;
  // The published book: the ingested figures out, 90 days of exactly VIEWS page views in.
  for (const table of [
    'analytics_daily',
    'analytics_pages',
    'analytics_links',
    'analytics_sources',
  ]) {
    await db.query(`DELETE FROM ${table} WHERE flipbook_id = $1`, [book.flipbook_id]);
  }
  const dayWeight = days.map(
    (_, d) => 1 + 0.35 * Math.sin((d * 2 * Math.PI) / 7) + d / REPORT_DAYS,
  );
  const pageWeight = Array.from({ length: REPORT_PAGES }, (_, p) => 1 / (1 + p / 25));
  const weightSum = dayWeight.reduce((a, b) => a + b, 0) * pageWeight.reduce((a, b) => a + b, 0);
  const cells = days.flatMap((day, d) =>
    pageWeight.map((w, p) => ({
      day,
      d,
      position: p + 1,
      views: Math.floor((VIEWS * (dayWeight[d] as number) * w) / weightSum),
    })),
  );
  const short = VIEWS - cells.reduce((a, c) => a + c.views, 0);
  for (let i = 0; i < short; i++) (cells[i % cells.length] as { views: number }).views++;
  await db.query(
    `INSERT INTO analytics_pages (flipbook_id, day, version_id, position, views, seconds)
     SELECT $1, d, $5, p, v, v * 21.5 FROM unnest($2::date[], $3::int[], $4::int[]) AS x(d, p, v)`,
    [
      book.flipbook_id,
      cells.map((c) => c.day),
      cells.map((c) => c.position),
      cells.map((c) => c.views),
      book.version_id,
    ],
  );
  const viewsOfDay = days.map(() => 0);
  for (const c of cells) viewsOfDay[c.d] = (viewsOfDay[c.d] ?? 0) + c.views;
  const linkKeys = [NO_LINK, ...links.map((l) => l.id)];
  const linkShare = [0.6, 0.15, 0.1, 0.08, 0.04, 0.03];
  const daily = days.flatMap((day, d) => {
    const total = viewsOfDay[d] as number;
    const parts = linkShare.map((s) => Math.floor(total * s));
    parts[0] = (parts[0] as number) + total - parts.reduce((a, b) => a + b, 0);
    return linkKeys.map((link, l) => ({ day, link, views: parts[l] as number }));
  });
  await db.query(
    `INSERT INTO analytics_daily
       (flipbook_id, day, link_key, opens, views, readers, read_seconds, searches, downloads, zooms)
     SELECT $1, d, l, v / 9, v, v / 11, v * 21.5, v / 180, v / 450, v / 90
     FROM unnest($2::date[], $3::uuid[], $4::int[]) AS x(d, l, v)`,
    [
      book.flipbook_id,
      daily.map((r) => r.day),
      daily.map((r) => r.link),
      daily.map((r) => r.views),
    ],
  );
  // 30 links followed and 3 devices + 100 referring sites a day, the same shapes for the others
  /** the books, each with its active version (pages and links are counted per version) */
  const books = `(SELECT flipbook_id AS b, active_version_id AS v FROM flipbooks
    WHERE flipbook_id = ANY($1::uuid[])) books`;
  const seedShapes = async (ids: string[], onlyExtras: boolean) => {
    await db.query(
      `INSERT INTO analytics_links (flipbook_id, day, version_id, position, link, clicks)
       SELECT b, d::date, v, 1 + n * 6, n % 4, (random() * 400)::int
       FROM ${books}, generate_series($2::date, $3::date, '1 day') d, generate_series(0, 29) n`,
      [ids, days[0], days.at(-1)],
    );
    await db.query(
      `INSERT INTO analytics_sources (flipbook_id, day, kind, name, opens)
       SELECT b, d::date, 'device', k, (random() * 3000)::int
       FROM unnest($1::uuid[]) b, generate_series($2::date, $3::date, '1 day') d,
         unnest(ARRAY['desktop', 'phone', 'tablet']) k
       UNION ALL
       SELECT b, d::date, 'referrer', CASE n WHEN 0 THEN '(direct)' ELSE 'site' || n || '.example.org' END,
         (random() * 2000 / (n + 1))::int
       FROM unnest($1::uuid[]) b, generate_series($2::date, $3::date, '1 day') d,
         generate_series(0, 99) n`,
      [ids, days[0], days.at(-1)],
    );
    if (onlyExtras) return;
    await db.query(
      `INSERT INTO analytics_pages (flipbook_id, day, version_id, position, views, seconds)
       SELECT b, d, v, p, n, n * 20 FROM (
         SELECT b, v, d::date AS d, p, (random() * 1500 / (1 + p / 25.0))::int AS n
         FROM ${books}, generate_series($2::date, $3::date, '1 day') d,
           generate_series(1, $4::int) p) x`,
      [ids, days[0], days.at(-1), REPORT_PAGES],
    );
    await db.query(
      `INSERT INTO analytics_daily
         (flipbook_id, day, link_key, opens, views, readers, read_seconds, searches, downloads, zooms)
       SELECT b, d, k, v / 9, v, v / 11, v * 20, v / 180, v / 450, v / 90 FROM (
         SELECT b, d::date AS d,
           CASE l WHEN 0 THEN '${NO_LINK}'::uuid ELSE md5(b::text || l)::uuid END AS k,
           (random() * 60000 / (l + 1))::int AS v
         FROM unnest($1::uuid[]) b, generate_series($2::date, $3::date, '1 day') d,
           generate_series(0, 5) l) x`,
      [ids, days[0], days.at(-1)],
    );
  };
  await seedShapes([book.flipbook_id], true);
  await seedShapes(others, false);
  await db.query(
    'VACUUM (ANALYZE) analytics_daily, analytics_pages, analytics_links, analytics_sources',
  );
  const sizes = (
    await db.query<{ t: string; n: string; mb: string }>(
      `SELECT relname AS t, n_live_tup AS n, round(pg_total_relation_size(relid) / 1048576.0, 1) AS mb
       FROM pg_stat_user_tables WHERE relname LIKE 'analytics\\_%' ORDER BY relname`,
    )
  ).rows;
  const seeded = (performance.now() - seedStarted) / 1000;
  // What the first write of each day (and of each start) does besides the figures: the day's
  // pruning (src/state/analytics.ts pruneFigures), in one transaction, rolled back here.
  const pruneMs: number[] = [];
  await longWork(store.pool, async (client) => {
    const timing: Db = {
      query: async (text, params) => {
        const t0 = performance.now();
        const result = await client.query(text, params);
        pruneMs.push(performance.now() - t0);
        return result;
      },
    } as Db;
    await client.query('BEGIN');
    try {
      await pruneFigures(timing, days.at(-1) as string);
    } finally {
      await client.query('ROLLBACK');
    }
  });

  const report = async (from: string) => {
    const c0 = await cpuNow();
    const t0 = performance.now();
    const res = await lanePool.request({
      path: `/api/v1/flipbooks/${book.flipbook_id}/stats?from=${from}&to=${days.at(-1)}`,
      method: 'GET',
      headers: auth,
    });
    const text = await res.body.text();
    const ms = performance.now() - t0;
    if (res.statusCode !== 200) throw new Error(`stats: ${res.statusCode} ${text}`);
    const c = spent(c0, await cpuNow());
    return { ms, daemon: c.daemon, postgres: c.postgres, bytes: text.length, body: text };
  };
  const from90 = days[0] as string;
  const from30 = days[REPORT_DAYS - 30] as string;
  const shapes = { '90 days': from90, '30 days': from30 };
  for (let i = 0; i < 3; i++) for (const from of Object.values(shapes)) await report(from);
  const runs: Record<string, { ms: number[]; daemon: number; postgres: number; bytes: number }> = {
    '90 days': { ms: [], daemon: 0, postgres: 0, bytes: 0 },
    '30 days': { ms: [], daemon: 0, postgres: 0, bytes: 0 },
  };
  let checked90: Stats | null = null;
  for (let i = 0; i < REPORTS; i++) {
    for (const [name, from] of Object.entries(shapes)) {
      const r = await report(from);
      const into = runs[name] as (typeof runs)['90 days'];
      into.ms.push(r.ms);
      into.daemon += r.daemon;
      into.postgres += r.postgres;
      into.bytes = r.bytes;
      if (name === '90 days') checked90 = JSON.parse(r.body) as Stats;
    }
  }
  // the query alone, in this process (no HTTP, no JSON of the answer)
  const queryMs: Record<string, number[]> = { '90 days': [], '30 days': [] };
  for (let i = 0; i < REPORTS; i++) {
    for (const [name, from] of Object.entries(shapes)) {
      const t0 = performance.now();
      await flipbookStats(store.db, book.flipbook_id, from, days.at(-1) as string, book.version_id);
      queryMs[name]?.push(performance.now() - t0);
    }
  }

  console.log(
    `\n== 2. the report: 90 days, ${VIEWS.toLocaleString('en')} page views over ${REPORT_PAGES} pages, ` +
      `${OTHER_BOOKS} other flipbooks alike (seeded in ${seeded.toFixed(0)} s; load average ${load()})`,
  );
  console.log(
    `tables: ${sizes.map((s) => `${s.t} ${Number(s.n).toLocaleString('en')} rows ${s.mb} MB`).join(', ')}`,
  );
  console.log(
    `the day's pruning over these tables (the first write of a day or a start, one transaction): ` +
      `${pruneMs.reduce((a, b) => a + b, 0).toFixed(0)} ms in ${pruneMs.length} statements, the longest ` +
      `${Math.max(...pruneMs).toFixed(0)} ms (the daemon's statement limit: 5,000 ms)`,
  );
  console.log(
    `the 90-day answer: views ${checked90?.views.toLocaleString('en')} (${checked90?.views === VIEWS ? 'as seeded' : 'NOT as seeded'}), ${checked90?.days.length} days, ` +
      `${checked90?.pages.length} pages, ${checked90?.links.length} links, ${checked90?.referrers.length} referrers, ` +
      `${checked90?.share_links.length} share links, ${runs['90 days']?.bytes.toLocaleString('en')} bytes`,
  );
  const reportRows = Object.entries(runs).map(([name, r]) => ({
    report: name,
    'median ms': at(r.ms, 0.5).toFixed(1),
    'p99 ms': at(r.ms, 0.99).toFixed(1),
    'daemon CPU ms': (r.daemon / REPORTS).toFixed(1),
    'PostgreSQL CPU ms': (r.postgres / REPORTS).toFixed(1),
    'query alone median ms': at(queryMs[name] ?? [], 0.5).toFixed(1),
  }));
  console.table(reportRows);
  const r90 = runs['90 days'] as (typeof runs)['90 days'];
  const r30 = runs['30 days'] as (typeof runs)['90 days'];
  console.log(
    `90 days / 30 days: ${(at(r90.ms, 0.5) / at(r30.ms, 0.5)).toFixed(2)}x the time, ${(
      (r90.daemon + r90.postgres) / (r30.daemon + r30.postgres)
    ).toFixed(2)}x the CPU`,
  );
  if (values.explain) {
    const explaining: Db = {
      query: async (text, params) => {
        const plan = await store.pool.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN (ANALYZE, BUFFERS) ${typeof text === 'string' ? text : text.text}`,
          params,
        );
        console.log(`\n${plan.rows.map((r) => r['QUERY PLAN']).join('\n')}`);
        return store.db.query(text, params);
      },
    };
    console.log('\n-- EXPLAIN ANALYZE, the 90-day report:');
    await flipbookStats(
      explaining,
      book.flipbook_id,
      from90,
      days.at(-1) as string,
      book.version_id,
    );
  }

  // -- 3. the issue's targets
  const p99 = at(latencies, 0.99);
  const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');
  console.log(`\n== targets (load average at the end: ${load()})`);
  console.table([
    {
      target: `beacons/s into one daemon ≥ ${TARGET.rate}`,
      measured: `${Math.round(ingestRate)} at ${RATE} offered${onB ? `; ceiling ${Math.round(onB.rate)}` : ''}`,
      verdict: verdict(ingestRate >= TARGET.rate * 0.99),
    },
    {
      target: `beacon p99 ≤ ${TARGET.p99} ms`,
      measured: `${p99.toFixed(1)} ms (median ${at(latencies, 0.5).toFixed(1)} ms)`,
      verdict: verdict(p99 <= TARGET.p99),
    },
    {
      target: 'reader and API responsive while ingesting',
      measured: `p99 reader ${at(during.reader, 0.99).toFixed(1)} ms (idle ${at(idle.reader, 0.99).toFixed(1)}), API ${at(during.apiGet, 0.99).toFixed(1)} ms (idle ${at(idle.apiGet, 0.99).toFixed(1)})`,
      verdict: '(see ratios)',
    },
    {
      target: 'figures written = figures sent',
      measured: figuresOk ? 'all match' : 'mismatch',
      verdict: verdict(figuresOk),
    },
    {
      target: `90-day report, 10 M views ≤ ${TARGET.report} ms`,
      measured: `median ${at(r90.ms, 0.5).toFixed(1)} ms, p99 ${at(r90.ms, 0.99).toFixed(1)} ms`,
      verdict: verdict(at(r90.ms, 0.99) <= TARGET.report),
    },
  ]);
} finally {
  await lanePool.close().catch(() => {});
  await store.close();
  // the daemon stops its embedded PostgreSQL as it goes; then the store's folder goes too
  const exited = new Promise((done) => daemon.once('exit', done));
  if (daemon.exitCode === null) daemon.kill('SIGTERM');
  else daemon.emit('exit');
  await exited;
  await rm(dataDir, { recursive: true, force: true });
}
