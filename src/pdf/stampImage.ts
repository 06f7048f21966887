// A reader's watermark drawn into a page image (issue 44, "Know who reads"): the same text as on
// a stamped PDF (stampText.ts, stampPages.ts), in rows at 30°, grey and faint, composited by
// sharp into the pixels and encoded again, so no overlay element can be removed from the page.
//
// The mark is an SVG that sharp renders (librsvg, fonts through fontconfig: DejaVu Sans, the only
// family installed; the text is Latin-1 by then, so every glyph exists). Rendering it costs more
// than compositing it, and a reader asks for many pages of one size: the rendered mark is kept
// per (text, width, height) in a small LRU, as PNG (a mark is mostly transparent: tens of KB,
// where raw RGBA at 2000 px would be ~20 MB an entry).
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
const FILL = '#5a5a5a';
const OPACITY = 0.16;
/** The JPEG quality of the service's mid and min renditions (renditions.ts); max is 75. */
const QUALITY = 82;

export const MARKS_KEPT = 32;
const marks = new Map<string, Promise<Buffer>>();

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
    `<g fill="${FILL}" fill-opacity="${OPACITY}" font-family="DejaVu Sans" ` +
    `font-size="${size.toFixed(1)}" transform="rotate(${ANGLE} ${cx} ${cy})">` +
    `${rows.join('')}</g></svg>`
  );
};

/** The rendered mark for this text and size, from the LRU or rendered now (then kept). */
const markFor = (text: string, width: number, height: number): Promise<Buffer> => {
  const key = `${width}x${height}\n${text}`;
  const kept = marks.get(key);
  if (kept) {
    // Most recently used last: the first key is the one to drop.
    marks.delete(key);
    marks.set(key, kept);
    return kept;
  }
  const made = sharp(Buffer.from(markSvg(text, width, height)))
    .png({ compressionLevel: 1 })
    .toBuffer();
  // A failed render is not kept: the next page tries again.
  made.catch(() => marks.delete(key));
  marks.set(key, made);
  while (marks.size > MARKS_KEPT) marks.delete(marks.keys().next().value as string);
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
  const image = sharp(jpeg);
  const { width, height, orientation } = await image.metadata();
  if (!width || !height) throw new Error('stampImage: the image has no size');
  // Our renditions carry no EXIF orientation; one that did would be shown turned, mark and all.
  const [w, h] = (orientation ?? 1) >= 5 ? [height, width] : [width, height];
  const mark = await markFor(text, w, h);
  return image
    .autoOrient()
    .composite([{ input: mark }])
    .jpeg({ quality: options.quality ?? QUALITY, optimiseCoding: false })
    .toBuffer();
};
