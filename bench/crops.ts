// bench/crops: text at 1000 px (img_mid) from both paths, side by side, for docs/processing.md.
//
//   node bench/crops.ts FILE PAGE LEFT TOP WIDTH HEIGHT OUT.png      (FILE from ../shared/corpus)
//
// Left: the old path, poppler's 2000 px JPEG scaled down with lanczos3 (sharp, full decode);
// right: the new, pdftoppm rendering the page at 1000 px. Both JPEG quality 82, as served; the
// crop (in 1000 px coordinates) is enlarged 2x with nearest-neighbour so pixels stay pixels.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { CORPUS } from '../test/support/corpus.ts';
import { sideBySide } from './sideBySide.ts';

const [file = '', page = '1', left, top, width, height, out = 'crops.png'] = process.argv.slice(2);
const dir = mkdtempSync(join(tmpdir(), 'bench-crops-'));
const pdf = resolve(CORPUS, file);
const render = (size: number, quality: number, name: string) =>
  execFileSync('pdftoppm', [
    ...['-jpeg', '-jpegopt', `quality=${quality}`, '-cropbox', '-scale-to', String(size)],
    ...['-f', page, '-l', page, '-singlefile', pdf, join(dir, name)],
  ]);
try {
  render(2000, 75, 'max');
  render(1000, 82, 'rendered');
  await sharp(join(dir, 'max.jpg'))
    .resize(1000, 1000, { fit: 'inside', fastShrinkOnLoad: false })
    .jpeg({ quality: 82, optimiseCoding: false })
    .toFile(join(dir, 'derived.jpg'));
  const region = {
    left: Number(left),
    top: Number(top),
    width: Number(width),
    height: Number(height),
  };
  const cut = (name: string) => sharp(join(dir, name)).extract(region).png().toBuffer();
  await sideBySide(await cut('derived.jpg'), await cut('rendered.jpg'), region, out);
  // sharp's sharpness: the standard deviation of the Laplacian, of the crop in grey
  const measure = async (name: string) => {
    const { size } = await stat(join(dir, name));
    const { sharpness } = await sharp(join(dir, name)).extract(region).greyscale().stats();
    return `${name.replace('.jpg', '')}: ${size} bytes, sharpness ${sharpness.toFixed(2)}`;
  };
  console.log(`${out}: ${await measure('derived.jpg')}; ${await measure('rendered.jpg')}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
