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
/** DejaVu Sans is narrower than this on average (em): a row never comes out short. */
const NARROWEST_EM = 0.5;
const SPACER = '\u00a0'.repeat(8);
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

/** The mark as SVG: rows of the text (in Latin-1) across the whole image, turned about its centre. */
export const markSvg = (original: string, width: number, height: number) => {
  const text = stampText(original);
  const size = Math.max(MIN_FONT_PX, Math.min(width, height) * FONT);
  const diagonal = Math.hypot(width, height);
  const unit = (text.length + SPACER.length) * size * NARROWEST_EM;
  const row = escapeXml(
    Array(Math.ceil(diagonal / unit) + 2)
      .fill(text)
      .join(SPACER),
  );
  const gap = size * ROW_GAP;
  const [cx, cy] = [width / 2, height / 2];
  const rows: string[] = [];
  for (let k = Math.floor(-diagonal / 2 / gap); k * gap <= diagonal / 2 + gap; k++) {
    // Every other row starts half a repetition earlier: the marks stagger like bricks.
    const x = cx - diagonal / 2 - unit * (k % 2 === 0 ? 1 : 0.5);
    rows.push(`<text x="${x.toFixed(1)}" y="${(cy + k * gap).toFixed(1)}">${row}</text>`);
  }
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<g fill="#000" font-family="DejaVu Sans" ` +
    `font-size="${size.toFixed(1)}" transform="rotate(${ANGLE} ${cx} ${cy})">` +
    `${rows.join('')}</g></svg>`
  );
};

/** The mark's coverage, one byte a pixel, at exactly width × height. */
const renderMark = (text: string, width: number, height: number) =>
  sharp(Buffer.from(markSvg(text, width, height)))
    .extractChannel('alpha')
    .raw()
    .toBuffer();

/**
 * Starts drawing the mark for an image of this size, so that it is ready when the image is asked
 * for (the reader's page is served first, its images a moment later). Never rejects.
 */
export const warmMark = (text: string, width: number, height: number) => {
  markFor(text, width, height).catch(() => {});
};

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
