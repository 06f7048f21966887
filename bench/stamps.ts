// bench/stamps: what a reader's watermark costs (docs/architecture.md, "Watermarks: qpdf overlay").
//
//   npm run bench:stamps [-- --rounds 5]
//
// PDFs: stampPdf on the corpus's longest documents and on a 300-page book made from one with
// qpdf; the bound is 2 s for the 300 pages. Images: stampImage against a plain copy (decoded and
// encoded again at the same quality, what serving a page through sharp costs anyway) for each
// size the service serves (min 200, mid 1000, max 2000 px wide; a 512 px tile), with the mark
// already rendered (the cache's steady state) and, once, without. Wall and CPU time side by side:
// CPU time moves less with whatever else the machine runs.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { stampImage } from '../src/pdf/stampImage.ts';
import { stampPdf } from '../src/pdf/stampPdf.ts';
import { corpus } from '../test/support/corpus.ts';
import { cpuMs } from './cpuTime.ts';

const run = promisify(execFile);
const at = process.argv.indexOf('--rounds');
const ROUNDS = at === -1 ? 5 : Number(process.argv[at + 1]);
const ADDRESS = 'bob@example.org · 2026-12-03';
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** Median wall and CPU ms (this process and the children it reaped) of `work`. */
const measure = async (work: () => Promise<unknown>, rounds = ROUNDS) => {
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const [wall, cpu] = [performance.now(), await cpuMs()];
    await work();
    walls.push(performance.now() - wall);
    cpus.push((await cpuMs()) - cpu);
  }
  return { wall: median(walls), cpu: median(cpus) };
};

const dir = await mkdtemp(join(tmpdir(), 'flipbook-bench-stamps-'));
try {
  const book = join(dir, 'book300.pdf');
  await run('qpdf', ['--empty', '--pages', corpus('text_freeculture.pdf'), '1-300', '--', book]);
  console.log('stampPdf (median of %d; wall ms / CPU ms, qpdf and pdfinfo included)', ROUNDS);
  const documents: [string, string][] = [
    ['300 pages (freeculture 1-300)', book],
    ['text_freeculture.pdf (352 pages)', corpus('text_freeculture.pdf')],
    ['vec_asymptote.pdf (196 pages)', corpus('vec_asymptote.pdf')],
    ['text_why3-manual.pdf (184 pages)', corpus('text_why3-manual.pdf')],
    ['img_GS9_Color_Management.pdf (42 pages)', corpus('img_GS9_Color_Management.pdf')],
  ];
  let over = false;
  for (const [name, file] of documents) {
    const { wall, cpu } = await measure(() => stampPdf(file, join(dir, 'out.pdf'), ADDRESS));
    console.log(
      `  ${name.padEnd(42)} ${wall.toFixed(0).padStart(6)} / ${cpu.toFixed(0).padStart(6)}`,
    );
    if (file === book && wall > 2000) over = true;
  }

  console.log('\nstampImage per page image (median of %d; wall ms / CPU ms)', ROUNDS * 4);
  const pageJpeg = async (width: number, quality: number) => {
    const prefix = join(dir, `page-${width}`);
    await run('pdftoppm', [
      ...['-f', '1', '-l', '1', '-scale-to-x', `${width}`, '-scale-to-y', '-1'],
      ...['-jpeg', '-jpegopt', `quality=${quality}`, '-singlefile'],
      corpus('text_multicolumn.pdf'),
      prefix,
    ]);
    return readFile(`${prefix}.jpg`);
  };
  const sizes: [string, number, number][] = [
    ['min (200 px)', 200, 82],
    ['mid (1000 px)', 1000, 82],
    ['max (2000 px)', 2000, 75],
  ];
  const images: [string, Buffer, number][] = [];
  for (const [name, width, quality] of sizes)
    images.push([name, await pageJpeg(width, quality), quality]);
  const big = await pageJpeg(2048, 75);
  const tile = await sharp(big)
    .extract({ left: 512, top: 512, width: 512, height: 512 })
    .toBuffer();
  images.push(['tile (512 px)', tile, 75]);
  console.log('  size             plain copy      stamped (cached)  added   first (mark rendered)');
  for (const [name, jpeg, quality] of images) {
    const plain = await measure(
      () => sharp(jpeg).jpeg({ quality, optimiseCoding: false }).toBuffer(),
      ROUNDS * 4,
    );
    const first = await measure(
      () => stampImage(jpeg, `first-${Math.random()}@example.org`, { quality }),
      1,
    );
    await stampImage(jpeg, ADDRESS, { quality });
    const stamped = await measure(() => stampImage(jpeg, ADDRESS, { quality }), ROUNDS * 4);
    const cell = (m: { wall: number; cpu: number }) =>
      `${m.wall.toFixed(1).padStart(6)} / ${m.cpu.toFixed(0).padStart(4)}`;
    console.log(
      `  ${name.padEnd(15)} ${cell(plain)}   ${cell(stamped)}   ${(stamped.wall - plain.wall).toFixed(1).padStart(6)}   ${cell(first)}`,
    );
  }
  if (over) {
    console.log('\n300 pages took over 2 s');
    process.exitCode = 1;
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
