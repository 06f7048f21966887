// bench/convert: an office document from upload to `done`, against its baseline measured in the
// same run: LibreOffice's own conversion (`soffice --headless --convert-to pdf`, a fresh profile
// as the service uses) plus this service's processing of the PDF it made (issue 45: at most
// 1.2x). The defaults a user gets (`flipbook serve` as shipped), a 40-slide deck and a report of
// about 60 pages made by LibreOffice itself from flat OpenDocument (test/support/officeFixtures.ts).
//
//   npm run bench:convert [-- --rounds 3]
//
// Wall time of each, and the CPU time of this process's children (soffice) beside the baseline's;
// and the daemon's own resident memory over each conversion, sampled every 20 ms, against what it
// held before the upload (at most +64 MB; LibreOffice's is its own process's).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fodp, makeOffice } from '../test/support/officeFixtures.ts';
import { publishAndWait, startBenchDaemon } from './benchDaemon.ts';
import { cpuMs } from './cpuTime.ts';

const run = promisify(execFile);
const at = process.argv.indexOf('--rounds');
const ROUNDS = at === -1 ? 3 : Number(process.argv[at + 1]);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

const NS = (name: string, uri: string) =>
  `xmlns:${name}="urn:oasis:names:tc:opendocument:xmlns:${uri}"`;
const WORDS =
  'Flipbooks turn the documents teams already have into pages a reader can turn on any screen, ';
/** A report: 60 chapters, each a heading and seven paragraphs (about a page each). */
const report = () =>
  `<?xml version="1.0" encoding="UTF-8"?><office:document ${NS('office', 'office:1.0')} ${NS('text', 'text:1.0')} office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.text"><office:body><office:text>${Array.from(
    { length: 60 },
    (_, i) =>
      `<text:h text:outline-level="1">Chapter ${i + 1}</text:h>${`<text:p>${WORDS.repeat(7)}</text:p>`.repeat(7)}`,
  ).join('')}</office:text></office:body></office:document>`;

const dir = await mkdtemp(join(tmpdir(), 'flipbook-bench-convert-'));
const bench = await startBenchDaemon('convert');

/** The daemon's resident memory now, in MB. */
const daemonRss = async () => {
  const status = await readFile(`/proc/${bench.daemon.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
};

/**
 * Uploads a file and waits until its version is done: wall ms, its page count, and how far the
 * daemon's resident memory rose above where it was before (MB).
 */
const publish = async (bytes: Buffer, name: string) => {
  const before = await daemonRss();
  let peak = before;
  const sampling = setInterval(() => {
    void daemonRss().then((mb) => {
      peak = Math.max(peak, mb);
    });
  }, 20);
  const started = performance.now();
  try {
    const { pages } = await publishAndWait(bench.url, bench.key, bytes, undefined, {
      name,
      pollMs: 25,
    });
    return { ms: performance.now() - started, pages, rssMb: peak - before };
  } finally {
    clearInterval(sampling);
  }
};

/** LibreOffice's own conversion, as a user would run it: wall and CPU ms, and the PDF. */
const plainConversion = async (file: string, out: string) => {
  const profile = await mkdtemp(join(tmpdir(), 'flipbook-bench-profile-'));
  const [wall, cpu] = [performance.now(), await cpuMs()];
  await run('soffice', [
    `-env:UserInstallation=file://${profile}`,
    ...['--headless', '--norestore', '--convert-to', 'pdf', '--outdir', out, file],
  ]);
  const result = { wall: performance.now() - wall, cpu: (await cpuMs()) - cpu };
  await rm(profile, { recursive: true, force: true });
  return result;
};

try {
  await makeOffice(dir, 'deck.fodp', fodp(40), ['pptx']);
  await makeOffice(dir, 'report.fodt', report(), ['docx']);
  console.log(
    'upload to done (median of %d, ms): service | soffice + processing its PDF | ratio',
    ROUNDS,
  );
  for (const name of ['deck.pptx', 'report.docx']) {
    const file = join(dir, name);
    const bytes = await readFile(file);
    const service: number[] = [];
    const baseline: number[] = [];
    const sofficeCpu: number[] = [];
    const rss: number[] = [];
    let pages = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const out = join(dir, `out-${round}`);
      const plain = await plainConversion(file, out);
      const pdf = await readFile(join(out, name.replace(/\.\w+$/, '.pdf')));
      const processed = await publish(pdf, name.replace(/\.\w+$/, '.pdf'));
      baseline.push(plain.wall + processed.ms);
      sofficeCpu.push(plain.cpu);
      const converted = await publish(bytes, name);
      service.push(converted.ms);
      rss.push(converted.rssMb);
      pages = converted.pages;
    }
    const [s, b] = [median(service), median(baseline)];
    console.log(
      `  ${`${name} (${pages} pages)`.padEnd(28)} ${s.toFixed(0).padStart(6)} | ${b.toFixed(0).padStart(6)} (soffice CPU ${median(sofficeCpu).toFixed(0)}) | ${(s / b).toFixed(2)}x | daemon RSS +${Math.max(...rss).toFixed(0)} MB at most`,
    );
  }
} finally {
  bench.daemon.kill('SIGTERM');
  await rm(dir, { recursive: true, force: true });
}
