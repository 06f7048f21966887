// Watermarks drawn into page images (src/pdf/stampImage.ts), on a page poppler renders as
// processing does (1000 px JPEG): same size, still a JPEG, changed in many places but faintly,
// text with XML's special characters drawn as text, and the cache of rendered marks bounded.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keptMarks, MARKS_KEPT, markSvg, stampImage } from '../../src/pdf/stampImage.ts';
import { corpus } from '../support/corpus.ts';

const run = promisify(execFile);
const ADDRESS = 'bob@example.org · 2026-12-03';

let dir: string;
let page: Buffer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'flipbook-stamp-image-'));
  const prefix = join(dir, 'page');
  await run('pdftoppm', [
    ...['-f', '1', '-l', '1', '-scale-to', '1000', '-jpeg', '-singlefile'],
    corpus('text_multicolumn.pdf'),
    prefix,
  ]);
  page = await readFile(`${prefix}.jpg`);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const grey = (jpeg: Buffer) => sharp(jpeg).grayscale().raw().toBuffer();

describe('stampImage', () => {
  it('draws the mark into a JPEG of the same size, faintly, across the page', async () => {
    const stamped = await stampImage(page, ADDRESS);
    const [before, after] = await Promise.all([sharp(page).metadata(), sharp(stamped).metadata()]);
    expect(after.format).toBe('jpeg');
    expect([after.width, after.height]).toEqual([before.width, before.height]);
    const [a, b] = await Promise.all([grey(page), grey(stamped)]);
    let sum = 0;
    let changed = 0;
    const quadrants = new Set<number>();
    const width = before.width ?? 0;
    for (let i = 0; i < a.length; i++) {
      const d = Math.abs((a[i] ?? 0) - (b[i] ?? 0));
      sum += d;
      if (d > 12) {
        changed++;
        const [x, y] = [i % width, Math.floor(i / width)];
        quadrants.add((x < width / 2 ? 0 : 1) + (y < (before.height ?? 0) / 2 ? 0 : 2));
      }
    }
    const mean = sum / a.length;
    // Faint: a grey level or a few on average; but drawn, in many places, all over the page.
    expect(mean).toBeGreaterThan(0.3);
    expect(mean).toBeLessThan(6);
    expect(changed).toBeGreaterThan(5000);
    expect(quadrants.size).toBe(4);
  });

  it('takes XML’s special characters as text, and non-Latin addresses in their Latin-1 form', async () => {
    const svg = markSvg('<a&b>@x.org "q" \'s\'', 400, 300);
    expect(svg).toContain('&#60;a&#38;b&#62;@x.org &#34;q&#34; &#39;s&#39;');
    expect(svg).not.toContain('<a&b>');
    const stamped = await stampImage(page, '<a&b>@x.org');
    expect((await sharp(stamped).metadata()).width).toBe((await sharp(page).metadata()).width);
    expect(markSvg('user@例え.jp', 400, 300)).not.toContain('例');
    await stampImage(page, 'user@例え.jp');
  });

  it('keeps at most a few dozen rendered marks', async () => {
    for (let i = 0; i < MARKS_KEPT + 8; i++) {
      await stampImage(page, `reader${i}@example.org · 2026-12-03`);
    }
    expect(keptMarks()).toBe(MARKS_KEPT);
  });
});
