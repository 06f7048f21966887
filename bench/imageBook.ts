// bench/imageBook: a folder of photos, zipped, from upload to `done`, against one plain pdftoppm
// pass over the same pages as a PDF, measured in the same run (issue 45: the image book in less
// time than that pass). The PDF is the one the service makes of them (src/pdf/imagesPdf.ts); the
// pass renders every page once at the reader's size (1000 px), as poppler users would. The
// defaults a user gets (`flipbook serve` as shipped).
//
//   npm run bench:imageBook [-- --photos 100 --megapixels 12]
//
// Wall and CPU time (the daemon's, its children's included) side by side.
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import sharp from 'sharp';
import yazl from 'yazl';
import { imagesToPdf } from '../src/pdf/imagesPdf.ts';
import { listZip } from '../src/pdf/zipImages.ts';
import { publishAndWait, startBenchDaemon } from './benchDaemon.ts';
import { cpuMs } from './cpuTime.ts';

const run = promisify(execFile);
const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const PHOTOS = arg('photos', 100);
const MEGAPIXELS = arg('megapixels', 12);

const dir = await mkdtemp(join(tmpdir(), 'flipbook-bench-images-'));
const bench = await startBenchDaemon('images');
try {
  // Photographs as a camera makes them: 4:3, detail everywhere (blurred noise over a gradient),
  // JPEG at quality 90. Made once and stored under 100 names (each page decodes its own copy).
  const width = Math.round(Math.sqrt((MEGAPIXELS * 1e6 * 4) / 3));
  const height = Math.round((width * 3) / 4);
  const detail = await sharp({
    create: {
      width,
      height,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 40 },
    },
  })
    .blur(1.2)
    .jpeg({ quality: 90 })
    .toBuffer();
  const zipPath = join(dir, 'photos.zip');
  const zip = new yazl.ZipFile();
  for (let i = 1; i <= PHOTOS; i++) zip.addBuffer(detail, `photo-${i}.jpg`, { compress: false });
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(zipPath));
  console.log(
    '%d photos of %d x %d (%s MB each, %s MB zipped)',
    PHOTOS,
    width,
    height,
    (detail.length / 1e6).toFixed(1),
    ((await stat(zipPath)).size / 1e6).toFixed(0),
  );

  // The baseline: the same pages as the PDF the service makes, one pdftoppm pass at 1000 px.
  const listed = await listZip(zipPath);
  if (listed.kind !== 'images') throw new Error('not a folder of images');
  const pdf = join(dir, 'photos.pdf');
  await imagesToPdf(zipPath, pdf, { zipNames: listed.names, scratch: dir });
  const [wall, cpu] = [performance.now(), await cpuMs()];
  await run('pdftoppm', ['-jpeg', '-scale-to', '1000', pdf, join(dir, 'page')]);
  const baseline = { wall: performance.now() - wall, cpu: (await cpuMs()) - cpu };

  // The service: upload to done.
  const daemonCpu = () => cpuMs(bench.daemon.pid ?? 'self');
  const [serviceStart, serviceCpu] = [performance.now(), await daemonCpu()];
  const { pages } = await publishAndWait(bench.url, bench.key, await readFile(zipPath), undefined, {
    name: 'photos.zip',
    pollMs: 50,
  });
  const service = {
    wall: performance.now() - serviceStart,
    cpu: (await daemonCpu()) - serviceCpu,
  };
  console.log('wall ms / CPU ms');
  console.log(
    `  one pdftoppm pass at 1000 px   ${baseline.wall.toFixed(0).padStart(7)} / ${baseline.cpu.toFixed(0)}`,
  );
  console.log(
    `  the service, upload to done    ${service.wall.toFixed(0).padStart(7)} / ${service.cpu.toFixed(0)} (${pages} pages)`,
  );
  console.log(
    `  ratio ${(service.wall / baseline.wall).toFixed(2)}x (wall), ${(service.cpu / baseline.cpu).toFixed(2)}x (CPU)`,
  );
  // Where the service's time went: its own account of the conversion and the render.
  for (const line of bench.logs().split('\n')) {
    if (/"msg":"(version converted|version processed)"/.test(line)) console.log(`  ${line}`);
  }
} finally {
  bench.daemon.kill('SIGTERM');
  await rm(dir, { recursive: true, force: true });
}
