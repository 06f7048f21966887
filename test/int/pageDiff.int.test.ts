// Pixels of two renders of a page compared (src/pdf/pageDiff.ts), on pages poppler renders as
// processing does (1000 px, JPEG): the smallest change of one word is found, where it is, and
// JPEG's noise alone (the same page encoded again, at several qualities) is never a change.
import { execFile } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changedRegions, imageHash, markedImage } from '../../src/pdf/pageDiff.ts';
import { corpus } from '../support/corpus.ts';
import { editsFolder, pagesFrom, STAMP, withWord } from '../support/editedPdfs.ts';
import { pdfBytes, stream, text } from '../support/pdfWriter.ts';

const run = promisify(execFile);

let dir: string;
beforeAll(async () => {
  dir = await editsFolder();
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Page `page` of `pdf` as processing renders it at 1000 px. */
const render = async (pdf: string, page = 1) => {
  const out = join(dir, `${Math.random().toString(36).slice(2)}`);
  await run('pdftoppm', [
    '-f',
    `${page}`,
    '-l',
    `${page}`,
    '-scale-to',
    '1000',
    '-jpeg',
    '-singlefile',
    pdf,
    out,
  ]);
  return readFile(`${out}.jpg`);
};

/** A page of small body text whose 21st line says `The price of the item is <word> per unit`. */
const bodyText = async (word: string, size: number) => {
  const objects = new Map<number, string>();
  objects.set(1, '<< /Type /Catalog /Pages 2 0 R >>');
  objects.set(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 612 792] >>');
  objects.set(
    3,
    '<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
  );
  const lines = Array.from({ length: 40 }, (_, i) =>
    text(
      72,
      740 - i * 16,
      i === 20
        ? `The price of the item is ${word} per unit.`
        : 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod.',
      size,
    ),
  );
  objects.set(4, stream(lines.join(' ')));
  objects.set(5, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  const file = join(dir, `body-${size}-${word.replace(/\W/g, '_')}.pdf`);
  await writeFile(file, pdfBytes({ objects, root: 1 }));
  return render(file);
};

describe('comparing two renders of a page', () => {
  it.each([
    [8, '$12.50', '$12.60'],
    [8, 'brown', 'brawn'],
    [8, 'one', 'ore'],
    [10, 'brown', 'brawn'],
  ])('finds a change of one word in %i pt text (%s → %s), on its line', async (size, was, now) => {
    const regions = await changedRegions(await bodyText(was, size), await bodyText(now, size));
    expect(regions.length).toBeGreaterThanOrEqual(1);
    // the 21st line: 740 - 20 * 16 = 420 pt from the bottom, so 372 / 792 from the top
    const line = (792 - 420) / 792;
    for (const [, y, , h] of regions) {
      expect(y).toBeLessThan(line + 0.01);
      expect(y + h).toBeGreaterThan(line - 0.03);
    }
  });

  it('finds a full stop made a comma when told the text differs (the second, finer look)', async () => {
    const [was, now] = [await bodyText('one.', 8), await bodyText('one,', 8)];
    const regions = await changedRegions(was, now, { textDiffers: true });
    expect(regions.length).toBeGreaterThanOrEqual(1);
    expect(regions).not.toEqual([[0, 0, 1, 1]]);
  });

  it('finds a word laid over a real page where it was laid, and nothing else', async () => {
    const base = await pagesFrom(join(dir, 'base.pdf'), [corpus('vec_tracemonkey.pdf'), '3']);
    const stamped = await withWord(base, 1, 'REVIEWED', join(dir, 'stamped.pdf'));
    const regions = await changedRegions(await render(base), await render(stamped));
    expect(regions).toHaveLength(1);
    const [x = 0, y = 0, w = 0, h = 0] = regions[0] ?? [];
    const box = {
      x: STAMP.x / 612,
      y: (792 - STAMP.y - STAMP.height) / 792,
      w: STAMP.width / 612,
      h: STAMP.height / 792,
    };
    expect(x).toBeGreaterThan(box.x - 0.02);
    expect(x + w).toBeLessThan(box.x + box.w + 0.02);
    expect(y).toBeGreaterThan(box.y - 0.02);
    expect(y + h).toBeLessThan(box.y + box.h + 0.02);
  });

  it.each([
    ['a text page', 'vec_tracemonkey.pdf', 3],
    ['a photo', 'img_photos-issue5481.pdf', 1],
    ['a scan', 'img_scans-multipage.pdf', 2],
  ])('sees no change in %s encoded again at JPEG quality 50, 70 and 90', async (_, file, page) => {
    const original = await render(corpus(file), page);
    for (const quality of [50, 70, 90]) {
      const again = await sharp(original).jpeg({ quality }).toBuffer();
      expect(await changedRegions(original, again), `quality ${quality}`).toEqual([]);
    }
    // and the hash that aligns pages without text hardly moves
    const hash = await imageHash(original);
    const againHash = await imageHash(await sharp(original).jpeg({ quality: 50 }).toBuffer());
    const differing = (BigInt(`0x${hash}`) ^ BigInt(`0x${againHash}`))
      .toString(2)
      .replace(/0/g, '').length;
    expect(differing).toBeLessThanOrEqual(8);
  });

  it('marks the changed areas on the small image, which stays a JPEG of the same size', async () => {
    const small = await sharp(await render(corpus('vec_tracemonkey.pdf'), 3))
      .resize(300, 300, { fit: 'inside' })
      .jpeg()
      .toBuffer();
    const marked = await markedImage(small, [[0.25, 0.25, 0.5, 0.1]]);
    const [was, now] = await Promise.all([sharp(small).metadata(), sharp(marked).metadata()]);
    expect([now.format, now.width, now.height]).toEqual(['jpeg', was.width, was.height]);
    // the outline is red where it was drawn
    const { data, info } = await sharp(marked).raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number) => {
      const i = (Math.round(y) * info.width + Math.round(x)) * info.channels;
      return [data[i], data[i + 1], data[i + 2]] as number[];
    };
    const [r = 0, g = 0, b = 0] = at(0.25 * info.width - 2, 0.3 * info.height);
    expect(r - g).toBeGreaterThan(60);
    expect(r - b).toBeGreaterThan(60);
  });
});
