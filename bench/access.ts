// bench/access: what reading a private flipbook's page images costs beside a public one's
// (issue 29: every request under /a/<grant>/ checks the grant's signature and then, in the
// database, that its holder may still read; a public image is one status query).
//
//   node bench/access.ts [--requests 3000]
//
// One daemon (embedded store, the defaults but the rate limit), the same PDF published twice:
// public, and links-only with a share link. Interleaved rounds of GETs of page 1's mid.jpg, 10 at
// a time on keep-alive connections: at /files/... for the public book, at /a/<grant>/... (the
// URL the share link's reader gives) for the private one. Prints requests per second, median and
// p99 latency, and the daemon's CPU time per request (with PostgreSQL's beside it).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { publishAndWait, startBenchDaemon } from './benchDaemon.ts';
import { cpuMs } from './cpuTime.ts';

const ROOT = resolve(import.meta.dirname, '..');
const PDF = join(ROOT, '../shared/corpus/text_multicolumn.pdf');
const { values } = parseArgs({ options: { requests: { type: 'string', default: '3000' } } });
const REQUESTS = Number(values.requests);
const LANES = 10;

const { dataDir, key, daemon, url } = await startBenchDaemon('access');

try {
  const api = `${url}/api/v1`;
  const auth = { authorization: `Bearer ${key}` };
  const publish = (visibility: string) => publishAndWait(url, key, readFileSync(PDF), visibility);
  const open = await publish('public');
  const closed = await publish('links');
  const link = (await (
    await fetch(`${api}/flipbooks/${closed.flipbook_id}/links`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ label: 'bench' }),
    })
  ).json()) as { url: string };
  const html = await (await fetch(link.url)).text();
  const grant = /\/a\/([A-Za-z0-9._-]+)\/pages\//.exec(html)?.[1];
  if (!grant) throw new Error('no grant in the share link reader');

  const cases = {
    public: `${url}/files/pages/${open.version_id}/1/mid.jpg`,
    private: `${url}/a/${grant}/pages/${closed.version_id}/1/mid.jpg`,
  };
  const postgresCpu = async () => {
    const pids = execFileSync('pgrep', ['-f', `postgres.*${dataDir}|postgres: `], {
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .filter(Boolean);
    let total = 0;
    for (const pid of pids) total += await cpuMs(Number(pid)).catch(() => 0);
    return total;
  };
  const round = async (target: string, count: number) => {
    const latencies: number[] = [];
    let left = count;
    const lane = async () => {
      while (left-- > 0) {
        const started = performance.now();
        const res = await fetch(target);
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${target}: ${res.status}`);
        latencies.push(performance.now() - started);
      }
    };
    const [cpu0, pg0, t0] = [await cpuMs(daemon.pid), await postgresCpu(), performance.now()];
    await Promise.all(Array.from({ length: LANES }, lane));
    const [t1, cpu1, pg1] = [performance.now(), await cpuMs(daemon.pid), await postgresCpu()];
    return { latencies, ms: t1 - t0, cpu: cpu1 - cpu0, pg: pg1 - pg0 };
  };
  for (const target of Object.values(cases)) await round(target, 300); // warm-up
  const results: Record<string, { latencies: number[]; ms: number; cpu: number; pg: number }> = {
    public: { latencies: [], ms: 0, cpu: 0, pg: 0 },
    private: { latencies: [], ms: 0, cpu: 0, pg: 0 },
  };
  // Interleaved, so whatever else the machine does weighs on both alike.
  for (let i = 0; i < 6; i++) {
    for (const [name, target] of Object.entries(cases)) {
      const r = await round(target, Math.ceil(REQUESTS / 6));
      const into = results[name] as (typeof results)['public'];
      into.latencies.push(...r.latencies);
      into.ms += r.ms;
      into.cpu += r.cpu;
      into.pg += r.pg;
    }
  }
  const at = (xs: number[], q: number) =>
    [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * q)] ?? Number.NaN;
  const rows = Object.entries(results).map(([name, r]) => ({
    name,
    perSecond: Math.round((r.latencies.length * 1000) / r.ms),
    medianMs: at(r.latencies, 0.5).toFixed(2),
    p99Ms: at(r.latencies, 0.99).toFixed(2),
    daemonCpuUs: Math.round((r.cpu * 1000) / r.latencies.length),
    postgresCpuUs: Math.round((r.pg * 1000) / r.latencies.length),
  }));
  console.table(rows);
  const [pub, priv] = rows as [(typeof rows)[number], (typeof rows)[number]];
  console.log(
    `private/public: ${(pub.perSecond / priv.perSecond).toFixed(2)}x the time per request, ${(
      (priv.daemonCpuUs + priv.postgresCpuUs) / (pub.daemonCpuUs + pub.postgresCpuUs)
    ).toFixed(2)}x the CPU`,
  );
} finally {
  daemon.kill('SIGTERM');
}
