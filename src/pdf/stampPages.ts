// The watermark as a small PDF of its own, one page per page shape, for qpdf to overlay on a
// document (src/pdf/stampPdf.ts): qpdf copies pages but cannot write text, so we write this file.
//
// Each page is the text in rows at 30°, in grey at 15 % opacity (an ExtGState's /ca), in the
// standard Helvetica with WinAnsiEncoding: no font embedded, so the file stays a few KB whatever
// the page count (stampText.ts has made the text Latin-1). The rows carry an empty /ActualText,
// so text extraction skips them (rotated text breaks the page's own lines, see below); the text
// to find is one small level line along the bottom edge, which pdftotext reads on every page.
// All of it is marked content `/Artifact` with the /Watermark subtype, the tagged-PDF way to say
// "not part of the document": screen readers skip it.
//
// qpdf scales an overlay page to fit the destination page, keeping its aspect: a stamp of another
// shape would leave bands unmarked, so each page shape gets a stamp page of that shape. The
// text's size is a fraction of the page's short side, so the mark looks alike on every page.

/** A page's shape as the reader sees it (after /Rotate): only the ratio matters. */
export type Shape = { width: number; height: number };

const ANGLE = (30 * Math.PI) / 180;
/** Font size as a fraction of the page's short side (20 pt on A4). */
const FONT = 1 / 30;
/** Rows this many font sizes apart, across the rows. */
const ROW_GAP = 6;
/** The spaces between two repetitions along a row. */
const SPACER = '        ';
/** Helvetica is narrower than this on average (em): a row never comes out short. */
const NARROWEST_EM = 0.45;
/** The line to find, at the bottom, this size against the rows' text. */
const FOOTER = 0.5;
const GREY = 0.45;
const OPACITY = 0.15;

const fixed = (n: number) => (Math.abs(n) < 1e-9 ? '0' : n.toFixed(3).replace(/\.?0+$/, ''));

/** The content stream of one stamp page of `shape`. */
const pageContent = (latin1: string, { width, height }: Shape) => {
  const size = Math.min(width, height) * FONT;
  const [cos, sin] = [Math.cos(ANGLE), Math.sin(ANGLE)];
  // The page's corners measured along the rows (u) and across them (v).
  const corners = [
    [0, 0],
    [width, 0],
    [0, height],
    [width, height],
  ] as const;
  const us = corners.map(([x, y]) => x * cos + y * sin);
  const vs = corners.map(([x, y]) => -x * sin + y * cos);
  const [uMin, uMax] = [Math.min(...us), Math.max(...us)];
  const [vMin, vMax] = [Math.min(...vs), Math.max(...vs)];
  const unit = (latin1.length + SPACER.length) * size * NARROWEST_EM;
  const repeats = Math.ceil((uMax - uMin) / unit) + 2;
  const row = Buffer.from(Array(repeats).fill(latin1).join(SPACER), 'latin1').toString('hex');
  const gap = size * ROW_GAP;
  const lines = [
    '/Artifact <</Type /Pagination /Subtype /Watermark>> BDC',
    'q /Mark gs BT',
    `${GREY} g /F1 ${fixed(size)} Tf`,
    // Rotated text, read back, breaks the page's own lines in pdftotext's default mode into
    // single letters (a two-column page: 63 lines became 373): an empty /ActualText makes
    // extraction (poppler, pdf.js, Acrobat) skip the rows; the line below is what it finds.
    '/Span <</ActualText ()>> BDC',
  ];
  for (let k = Math.ceil(vMin / gap); k * gap <= vMax; k++) {
    // Every other row starts half a repetition earlier: the marks stagger like bricks.
    const u = uMin - unit * (k % 2 === 0 ? 1 : 0.5);
    const v = k * gap;
    const [x, y] = [u * cos - v * sin, u * sin + v * cos];
    lines.push(
      `${fixed(cos)} ${fixed(sin)} ${fixed(-sin)} ${fixed(cos)} ${fixed(x)} ${fixed(y)} Tm`,
    );
    lines.push(`<${row}> Tj`);
  }
  // The text to find: once, level, small, along the bottom edge, below where footers sit (a
  // line crossing the page's own would be merged into them by extraction).
  const small = size * FOOTER;
  lines.push('EMC', `/F1 ${fixed(small)} Tf 1 0 0 1 ${fixed(small)} ${fixed(small * 0.6)} Tm`);
  lines.push(`<${Buffer.from(latin1, 'latin1').toString('hex')}> Tj`);
  lines.push('ET Q', 'EMC', '');
  return lines.join('\n');
};

/**
 * The bytes of a PDF with one stamp page per shape, in order, each `text` (already Latin-1:
 * stampText.ts) repeated across it. Shapes are scaled so the short side is 1000 pt: the overlay
 * is scaled to each page anyway, and all stamps then share one set of numbers.
 */
export const stampPagesPdf = (latin1: string, shapes: Shape[]): Buffer => {
  const objects: string[] = [];
  const add = (body: string) => objects.push(body);
  add('<< /Type /Catalog /Pages 2 0 R >>');
  add(''); // the page tree, once the pages' numbers are known
  add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  add(`<< /Type /ExtGState /ca ${OPACITY} /CA ${OPACITY} >>`);
  const pages: number[] = [];
  for (const shape of shapes) {
    const scale = 1000 / Math.max(1e-6, Math.min(shape.width, shape.height));
    const box = { width: shape.width * scale, height: shape.height * scale };
    const content = pageContent(latin1, box);
    add(`<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}endstream`);
    add(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${fixed(box.width)} ${fixed(box.height)}] ` +
        `/Resources << /Font << /F1 3 0 R >> /ExtGState << /Mark 4 0 R >> >> ` +
        `/Contents ${objects.length} 0 R >>`,
    );
    pages.push(objects.length);
  }
  objects[1] = `<< /Type /Pages /Kids [${pages.map((n) => `${n} 0 R`).join(' ')}] /Count ${pages.length} >>`;
  let body = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(Buffer.byteLength(body, 'latin1'));
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = Buffer.byteLength(body, 'latin1');
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
};
