// bench/busy: what the API answers while processing fills the cores (tester 51: a preview push
// answered 503 when a statement passed the database's 5 s timeout under a load of 9 on two
// cores). One daemon as users run it (`flipbook serve`, the embedded store, its default lanes),
// in one run: GET the flipbook list and a version's status with 4 connections for --seconds
// idle, then the same while --documents documents (the bench's manuals, in turn) process. Prints
// the medians and p99 of each, the ratios busy/idle, the 503s and errors, and the load average.
//
//   npm run bench:busy [-- --seconds 20 --documents 6]
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { publishAndWait, startBenchDaemon } from './benchDaemon.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '20' },
    documents: { type: 'string', default: '6' },
  },
});
const seconds = Number(values.seconds);
const documents = Number(values.documents);
const corpus =
  process.env.FLIPBOOK_TEST_CORPUS ?? resolve(import.meta.dirname, '../../shared/corpus');
const FILES = [
  join(import.meta.dirname, 'documents/text_biblatex-manual-2.1.pdf'),
  join(corpus, 'text_why3-manual.pdf'),
  join(corpus, 'vec_asymptote.pdf'),
];

const { key, daemon, url } = await startBenchDaemon('busy');
const headers = { authorization: `Bearer ${key}` };
try {
  const small = await publishAndWait(url, key, readFileSync(join(corpus, 'vec_vector.pdf')));
  const targets = {
    list: `${url}/api/v1/flipbooks`,
    status: `${url}/api/v1/flipbooks/${small.flipbook_id}/versions/${small.version_id}/status`,
  };
  const measure = async () => {
    const figures: Record<
      string,
      { p50: number; p99: number; max: number; non2xx: number; errors: number }
    > = {};
    await Promise.all(
      Object.entries(targets).map(async ([name, target]) => {
        const result = await autocannon({
          url: target,
          connections: 2,
          duration: seconds,
          headers,
        });
        figures[name] = {
          p50: result.latency.p50,
          p99: result.latency.p99,
          max: result.latency.max,
          non2xx: result.non2xx,
          errors: result.errors,
        };
      }),
    );
    return { figures, load: loadavg()[0] ?? 0 };
  };
  await autocannon({ url: targets.list, connections: 2, duration: 1, headers }); // warm-up
  const idle = await measure();
  // Enough documents to keep every lane busy for the whole measure.
  const processing = Array.from({ length: documents }, (_, i) =>
    publishAndWait(url, key, readFileSync(FILES[i % FILES.length] as string), undefined, {
      name: `busy-${i}.pdf`,
      pollMs: 1000,
    }),
  );
  await new Promise((r) => setTimeout(r, 2000)); // (processing under way)
  const busy = await measure();
  const done = await Promise.allSettled(processing);
  const row = (name: string) => {
    const a = idle.figures[name];
    const b = busy.figures[name];
    if (!a || !b) return '';
    return `| ${name} | ${a.p50} / ${a.p99} ms | ${b.p50} / ${b.p99} / ${b.max} ms | ${(b.p99 / Math.max(1, a.p99)).toFixed(1)} | ${b.non2xx} / ${b.errors} |`;
  };
  console.log(
    `\nbench:busy, ${seconds} s each, 2 connections a route, ${documents} documents processing`,
  );
  console.log(
    `load average: idle ${idle.load.toFixed(2)}, busy ${busy.load.toFixed(2)}; documents done: ${done.filter((d) => d.status === 'fulfilled').length}/${documents}`,
  );
  console.log(
    '| route | idle p50 / p99 | busy p50 / p99 / max | p99 busy/idle | busy non-2xx / errors |',
  );
  console.log('|---|---|---|---|---|');
  console.log(row('list'));
  console.log(row('status'));
} finally {
  daemon.kill('SIGTERM');
}
