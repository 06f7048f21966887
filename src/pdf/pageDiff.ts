// Pixels of two page images compared (a preview's page against the one before it,
// src/app/comparison.ts): where they differ, as regions in fractions of the page, and a small
// image of the page with those regions marked. Also the 64-bit difference hash that tells pages
// without text apart when pages are aligned (src/domain/pageAlignment.ts).
//
// Both images are made grey, the same size, and slightly blurred before they are compared: JPEG's
// noise (8x8 blocks, ringing at edges) is small and local, and the blur leaves it below the
// threshold, while a word changed moves dark strokes by whole glyphs. What differs is counted in
// cells of 8 px; cells near each other join into one region (a changed word is one region, not
// one per letter).
import sharp, { type Metadata } from 'sharp';
import type { Region } from '../domain/pageAlignment.ts';

// Chosen on this machine (1000 px pages): with them, a full stop made a comma in 8 pt text is
// found, and the same text page, photo and scan re-encoded at JPEG quality 50, 70 and 90 show no
// change at all (test/int/pageDiff.int.test.ts keeps both sides of that).
/** A grey level difference this large, after the blur, is a change (JPEG's noise stays under it). */
const THRESHOLD = 24;
const BLUR = 1;
const CELL = 8;
/** Pixels over the threshold a cell needs: a lone pixel is noise. */
const CELL_PIXELS = 2;
/** Changed cells this close (in cells) belong to one region. */
const JOIN = 2;
/** At most this many regions a page: more are merged into bands across the page. */
const MAX_REGIONS = 64;
/** Pages whose shapes differ more than this are changed as a whole. */
const ASPECT_TOLERANCE = 0.02;

/** The 64-bit difference hash of an image, as 16 hex digits (alike images: few bits differ). */
export const imageHash = async (jpeg: Uint8Array): Promise<string> => {
  const data = await sharp(jpeg).grayscale().resize(9, 8, { fit: 'fill' }).raw().toBuffer();
  let hash = 0n;
  for (let y = 0; y < 8; y++)
    for (let x = 0; x < 8; x++)
      hash = (hash << 1n) | ((data[y * 9 + x] ?? 0) < (data[y * 9 + x + 1] ?? 0) ? 1n : 0n);
  return hash.toString(16).padStart(16, '0');
};

const grey = (jpeg: Uint8Array, width: number, height: number, blur: number) => {
  const image = sharp(jpeg).grayscale().resize(width, height, { fit: 'fill' });
  return (blur > 0 ? image.blur(blur) : image).raw().toBuffer();
};

/**
 * Where `after` differs from `before`, in fractions of the page; none when they are alike. When
 * the pages' texts differ, something changed even if the first look finds nothing (a full stop
 * made a comma in small print): a second look without the blur finds it, and failing that the
 * whole page is the region (changed, somewhere in it).
 */
export const changedRegions = async (
  before: Uint8Array,
  after: Uint8Array,
  { textDiffers = false } = {},
): Promise<Region[]> => {
  if (Buffer.from(before).equals(Buffer.from(after))) return textDiffers ? [[0, 0, 1, 1]] : [];
  const found = await look(before, after, BLUR);
  if (found.length > 0 || !textDiffers) return found;
  const finer = await look(before, after, 0);
  return finer.length > 0 ? finer : [[0, 0, 1, 1]];
};

const look = async (before: Uint8Array, after: Uint8Array, blur: number): Promise<Region[]> => {
  const [was, now] = await Promise.all([sharp(before).metadata(), sharp(after).metadata()]);
  const width = now.width ?? 1;
  const height = now.height ?? 1;
  const aspect = (m: Metadata) => (m.width ?? 1) / (m.height ?? 1);
  if (Math.abs(aspect(was) / aspect(now) - 1) > ASPECT_TOLERANCE) return [[0, 0, 1, 1]];
  const [a, b] = await Promise.all([
    grey(before, width, height, blur),
    grey(after, width, height, blur),
  ]);
  const columns = Math.ceil(width / CELL);
  const rows = Math.ceil(height / CELL);
  const counts = new Uint16Array(columns * rows);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (Math.abs((a[i] ?? 0) - (b[i] ?? 0)) > THRESHOLD) {
        const cell = Math.floor(y / CELL) * columns + Math.floor(x / CELL);
        counts[cell] = (counts[cell] ?? 0) + 1;
      }
    }
  const boxes = joinCells(counts, columns, rows);
  const regions = boxes.length > MAX_REGIONS ? bands(boxes, rows) : boxes;
  return regions.map(([c0, r0, c1, r1]) => {
    const x = (c0 * CELL) / width;
    const y = (r0 * CELL) / height;
    return [
      round(x),
      round(y),
      round(Math.min(1, ((c1 + 1) * CELL) / width) - x),
      round(Math.min(1, ((r1 + 1) * CELL) / height) - y),
    ];
  });
};

const round = (n: number) => Math.round(n * 10_000) / 10_000;

type Box = [number, number, number, number]; // first column, first row, last column, last row

/** The changed cells' groups (cells within JOIN of each other), as boxes of cells. */
const joinCells = (counts: Uint16Array, columns: number, rows: number): Box[] => {
  const seen = new Uint8Array(counts.length);
  const boxes: Box[] = [];
  for (let start = 0; start < counts.length; start++) {
    if (seen[start] || (counts[start] ?? 0) < CELL_PIXELS) continue;
    seen[start] = 1;
    const box: Box = [
      start % columns,
      Math.floor(start / columns),
      start % columns,
      Math.floor(start / columns),
    ];
    const queue = [start];
    while (queue.length > 0) {
      const cell = queue.pop() as number;
      const cx = cell % columns;
      const cy = Math.floor(cell / columns);
      box[0] = Math.min(box[0], cx);
      box[1] = Math.min(box[1], cy);
      box[2] = Math.max(box[2], cx);
      box[3] = Math.max(box[3], cy);
      for (let y = Math.max(0, cy - JOIN); y <= Math.min(rows - 1, cy + JOIN); y++)
        for (let x = Math.max(0, cx - JOIN); x <= Math.min(columns - 1, cx + JOIN); x++) {
          const next = y * columns + x;
          if (!seen[next] && (counts[next] ?? 0) >= CELL_PIXELS) {
            seen[next] = 1;
            queue.push(next);
          }
        }
    }
    boxes.push(box);
  }
  return boxes;
};

/** Too many regions (a page rewritten): merged into at most MAX_REGIONS horizontal bands. */
const bands = (boxes: Box[], rows: number): Box[] => {
  const band = Math.ceil(rows / MAX_REGIONS);
  const merged = new Map<number, Box>();
  for (const [c0, r0, c1, r1] of boxes) {
    const key = Math.floor(r0 / band);
    const was = merged.get(key);
    merged.set(
      key,
      was
        ? [Math.min(was[0], c0), Math.min(was[1], r0), Math.max(was[2], c1), Math.max(was[3], r1)]
        : [c0, r0, c1, r1],
    );
  }
  return [...merged.values()];
};

/** The page's small image with its changed regions outlined, for a pull request's table. */
export const markedImage = async (jpeg: Uint8Array, regions: Region[]): Promise<Buffer> => {
  const { width = 1, height = 1 } = await sharp(jpeg).metadata();
  const boxes = regions
    .map(([x, y, w, h]) => {
      const left = Math.max(0, Math.round(x * width) - 2);
      const top = Math.max(0, Math.round(y * height) - 2);
      return `<rect x="${left}" y="${top}" width="${Math.round(w * width) + 4}" height="${Math.round(h * height) + 4}" fill="rgba(220,38,38,0.18)" stroke="#dc2626" stroke-width="2"/>`;
    })
    .join('');
  const overlay = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${boxes}</svg>`,
  );
  return sharp(jpeg)
    .composite([{ input: overlay, top: 0, left: 0 }])
    .jpeg({ quality: 82 })
    .toBuffer();
};
