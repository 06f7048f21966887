// bench/phoneCrops: what a 3x phone shows of a page, before and now, side by side (docs/processing.md).
//
//   node bench/phoneCrops.ts FILE PAGE LEFT TOP WIDTH HEIGHT OUT.png   (FILE from ../shared/corpus)
//
// A page shown 390 CSS px wide on a 3x phone fills 1170 device pixels. Before, the phone took the
// 2000 px JPEG (quality 75) and the browser scaled it down to that; now it takes the 1000 px one
// (quality 82, optimized Huffman tables: what pdftoppm writes now) and scales it up. Both are
// scaled to 1170 px wide here as the browser would (sharp, lanczos3), the region (in those
// device pixels) is cut out and enlarged 2x with nearest-neighbour so pixels stay pixels, and
// the file sizes and sharp's sharpness of each crop are printed.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { CORPUS } from '../test/support/corpus.ts';
import { sideBySide } from './sideBySide.ts';

const DEVICE_WIDTH = 1170;
const [file = '', page = '1', left, top, width, height, out = 'phone-crops.png'] =
  process.argv.slice(2);
const dir = mkdtempSync(join(tmpdir(), 'bench-phone-crops-'));
const pdf = resolve(CORPUS, file);
const render = (size: number, jpegopt: string, name: string) =>
  execFileSync('pdftoppm', [
    ...['-jpeg', '-jpegopt', jpegopt, '-cropbox', '-scale-to', String(size)],
    ...['-f', page, '-l', page, '-singlefile', pdf, join(dir, name)],
  ]);
try {
  render(2000, 'quality=75', 'before');
  render(1000, 'quality=82,optimize=y', 'now');
  const region = {
    left: Number(left),
    top: Number(top),
    width: Number(width),
    height: Number(height),
  };
  const shown = async (name: string) =>
    sharp(
      await sharp(join(dir, `${name}.jpg`))
        .resize({ width: DEVICE_WIDTH, kernel: 'lanczos3' })
        .png()
        .toBuffer(),
    )
      .extract(region)
      .png()
      .toBuffer();
  const [before, now] = [await shown('before'), await shown('now')];
  await sideBySide(before, now, region, out);
  const words = async (name: string, png: Buffer) => {
    const bytes = statSync(join(dir, `${name}.jpg`)).size;
    const { sharpness } = await sharp(png).greyscale().stats();
    return `${name}: ${Math.round(bytes / 1024)} KB, sharpness ${sharpness.toFixed(2)}`;
  };
  console.log(`${out}: ${await words('before', before)}; ${await words('now', now)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
