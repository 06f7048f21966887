// A reader's watermark drawn into a page image (issue 44, "Know who reads"): the same text as on
// a stamped PDF (stampText.ts, stampPages.ts), in rows at 30°, grey and faint, blended into
// the pixels and encoded again, so no overlay element can be removed from the page.
//
// The mark is an SVG that sharp renders (librsvg, fonts through fontconfig: DejaVu Sans, the only
// family installed; the text is Latin-1 by then, so every glyph exists). Rendering it costs more
// than drawing it, and a reader asks for many pages of one size: the rendered mark is kept per
// (text, width, height) in a small LRU, as one byte a pixel (its coverage: 0.7 MB at mid, 5.7 MB
// at max), and blended into the decoded page here (see stampImage).
import sharp from 'sharp';
import { stampText } from './stampText.ts';

const ANGLE = -30;
/** Font size as a fraction of the image's short side (as on the PDF), never below legibility. */
const FONT = 1 / 30;
const MIN_FONT_PX = 9;
const ROW_GAP = 6;
/** The mark's grey (0-255) and how far towards it a covered pixel moves. */
const GREY = 0x5a;
const OPACITY = 0.16;
/** The JPEG quality of the service's mid and min renditions (renditions.ts); max is 75. */
const QUALITY = 82;

export const MARKS_KEPT = 32;
/** And at most this many bytes of them (eleven marks at max, ninety at mid). */
const MARK_BYTES_KEPT = 64 * 1024 * 1024;
const marks = new Map<string, Promise<Uint8Array>>();
const markBytes = new Map<string, number>();

/** How many rendered marks are kept (for tests: the cache stays bounded). */
export const keptMarks = () => marks.size;

const escapeXml = (text: string) => text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** The mark's font size on an image of this size: as on the PDF, never below legibility. */
const fontSize = (width: number, height: number) =>
  Math.round(Math.max(MIN_FONT_PX, Math.min(width, height) * FONT));

/**
 * One repetition of the mark, level, as SVG: the text (in Latin-1) once, at the font size of an
 * image of width × height, on a strip just high enough. The mark across a page is drawn from it
 * (drawMark): librsvg's text costs by the pixel, and one strip is a small fraction of a page.
 */
export const markSvg = (original: string, width: number, height: number) => {
  const text = escapeXml(stampText(original));
  const size = fontSize(width, height);
  const stripWidth = Math.ceil((stampText(original).length + 2) * size * 0.75);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${stripWidth}" height="${Math.ceil(size * 1.5)}">` +
    `<text x="0" y="${(size * 1.15).toFixed(1)}" fill="#000" font-family="DejaVu Sans" ` +
    `font-size="${size}">${text}</text></svg>`
  );
};

type Strip = { alpha: Buffer; width: number; height: number; textWidth: number };

/** The strip rendered (its coverage), and how wide its text came out. */
const renderStrip = async (text: string, width: number, height: number): Promise<Strip> => {
  const { data, info } = await sharp(Buffer.from(markSvg(text, width, height)))
    .extractChannel('alpha')
    .raw()
    .toBuffer({ resolveWithObject: true });
  let textWidth = 0;
  for (let y = 0; y < info.height; y++) {
    for (let x = info.width - 1; x > textWidth; x--) {
      if ((data[y * info.width + x] ?? 0) > 0) {
        textWidth = x + 1;
        break;
      }
    }
  }
  return { alpha: data, width: info.width, height: info.height, textWidth };
};

/**
 * The mark's coverage over a width × height image, one byte a pixel: rows of the strip's text
 * turned by ANGLE about the centre, ROW_GAP font sizes apart, every other row staggered by half
 * a repetition like bricks; each pixel sampled from the strip (bilinear) through the inverse
 * turn. 10 ms for a 1000 px page, where librsvg drew the whole page's text in 50.
 */
const drawMark = (strip: Strip, width: number, height: number, size: number) => {
  const out = new Uint8Array(width * height);
  const theta = (ANGLE * Math.PI) / 180;
  const [cos, sin] = [Math.cos(theta), Math.sin(theta)];
  const gap = size * ROW_GAP;
  const period = strip.textWidth + size * 3;
  const baseline = size * 1.15;
  const { alpha, width: sw, height: sh, textWidth } = strip;
  const [cx, cy] = [width / 2, height / 2];
  const shift = period / 2;
  for (let y = 0; y < height; y++) {
    const dy = y - cy;
    // u and v move by (cos, -sin) a pixel along the row: no multiplication in the inner loop
    let u = -cos * cx + sin * dy;
    let v = sin * cx + cos * dy;
    const line = y * width;
    for (let x = 0; x < width; x++, u += cos, v -= sin) {
      const row = Math.round(v / gap);
      const ys = v - row * gap + baseline;
      if (ys < 0 || ys >= sh - 1) continue;
      let xs = (row & 1 ? u + shift : u) % period;
      if (xs < 0) xs += period;
      if (xs >= textWidth || xs >= sw - 1) continue;
      const x0 = xs | 0;
      const y0 = ys | 0;
      const fx = xs - x0;
      const fy = ys - y0;
      const i = y0 * sw + x0;
      const top = (alpha[i] as number) * (1 - fx) + (alpha[i + 1] as number) * fx;
      const bottom = (alpha[i + sw] as number) * (1 - fx) + (alpha[i + sw + 1] as number) * fx;
      out[line + x] = top * (1 - fy) + bottom * fy;
    }
  }
  return out;
};

/** Strips kept per (text, font size): a reader's pages share a few sizes. */
const strips = new Map<string, Promise<Strip>>();
const stripFor = (text: string, width: number, height: number) => {
  const key = `${fontSize(width, height)}\n${text}`;
  let strip = strips.get(key);
  if (!strip) {
    if (strips.size >= MARKS_KEPT * 2) strips.delete(strips.keys().next().value as string);
    strip = renderStrip(text, width, height);
    strip.catch(() => strips.delete(key));
    strips.set(key, strip);
  }
  return strip;
};

/** The mark's coverage, one byte a pixel, at exactly width × height. */
const renderMark = async (text: string, width: number, height: number) =>
  drawMark(await stripFor(text, width, height), width, height, fontSize(width, height));

const forget = (key: string) => {
  marks.delete(key);
  markBytes.delete(key);
};

/**
 * The rendered mark for this text and size, from the LRU or rendered now (then kept): one byte a
 * pixel, how far (of 256) the pixel moves towards the mark's grey.
 */
const markFor = (text: string, width: number, height: number): Promise<Uint8Array> => {
  const key = `${width}x${height}\n${text}`;
  const kept = marks.get(key);
  if (kept) {
    // Most recently used last: the first key is the one to drop.
    marks.delete(key);
    marks.set(key, kept);
    return kept;
  }
  const made = renderMark(text, width, height).then((coverage) => {
    const weights = new Uint8Array(coverage.length);
    for (let i = 0; i < coverage.length; i++) {
      weights[i] = Math.round(((coverage[i] ?? 0) * OPACITY * 256) / 255);
    }
    return weights;
  });
  // A failed render is not kept: the next page tries again.
  made.catch(() => forget(key));
  marks.set(key, made);
  markBytes.set(key, width * height);
  let bytes = 0;
  for (const size of markBytes.values()) bytes += size;
  while (marks.size > 1 && (marks.size > MARKS_KEPT || bytes > MARK_BYTES_KEPT)) {
    const oldest = marks.keys().next().value as string;
    bytes -= markBytes.get(oldest) ?? 0;
    forget(oldest);
  }
  return made;
};

export type StampImageOptions = {
  /** JPEG quality of the result: the rendition's own (82 for mid and min, 75 for max) */
  quality?: number;
};

/**
 * `jpeg` with `text` (a reader's address and a date) drawn faintly across it, as a JPEG of the
 * same size. The text is made Latin-1 first (stampText.ts: domains in punycode).
 */
export const stampImage = async (
  jpeg: Buffer,
  text: string,
  options: StampImageOptions = {},
): Promise<Buffer> => {
  // Our renditions carry no EXIF orientation; one that did is turned first, as it is shown.
  const { data, info } = await sharp(jpeg).autoOrient().raw().toBuffer({ resolveWithObject: true });
  const { width, height, channels } = info;
  const weights = await markFor(text, width, height);
  // The blend by hand: sharp's composite works in floating point, 4x the cost of decoding and
  // encoding the page again (mid: 17 ms against 6); a mark of one grey needs one multiply.
  for (let p = 0, i = 0; p < weights.length; p++, i += channels) {
    const w = weights[p] as number;
    if (w === 0) continue;
    for (let c = 0; c < channels; c++) {
      const v = data[i + c] as number;
      data[i + c] = v + (((GREY - v) * w) >> 8);
    }
  }
  return sharp(data, { raw: { width, height, channels } })
    .jpeg({ quality: options.quality ?? QUALITY, optimiseCoding: false })
    .toBuffer();
};
