// An eight-page book for the reader's feature tests (test/e2e/readerFeatures.e2e.test.ts),
// written by hand with pdfWriter.ts: every feature the reader shows has something to show.
// - Pages of three shapes: Letter portrait, one Letter landscape page (4) and one tall poster
//   page (6, 400 × 1200 pt), so a spread pairs a portrait page with a landscape one.
// - /PageLabels: i, ii, then 1, 2, 3... (page 3 is "1").
// - A two-level outline: "Harbour and Tides" (page 3) holding "The Harbour" (3) and "The Tides"
//   (5), then "The Storm" (7).
// - A contents page (2) whose lines link to pages 3 to 7, a web link and a mailto link.
// - Real text on every page, with one word found on that page only (`UNIQUE[n - 1]`).
import { type PdfObjects, stream, text, utf16 } from './pdfWriter.ts';

export const TITLE = 'The Lighthouse Keeper’s Almanac';

/** [width, height] of each page in points. */
export const PAGE_SIZES: [number, number][] = [
  [612, 792],
  [612, 792],
  [612, 792],
  [792, 612],
  [612, 792],
  [400, 1200],
  [612, 792],
  [612, 792],
];

export const LABELS = ['i', 'ii', '1', '2', '3', '4', '5', '6'];

/** A word printed on page n (UNIQUE[n - 1]) and on no other page. */
export const UNIQUE = [
  'cormorant',
  'kittiwake',
  'samphire',
  'fathometer',
  'barnacles',
  'spindrift',
  'quillwort',
  'sandpiper',
];

/** The outline as the reader should list it: [depth, title, page]. */
export const OUTLINE: [number, string, number][] = [
  [0, 'Harbour and Tides', 3],
  [1, 'The Harbour', 3],
  [1, 'The Tides', 5],
  [0, 'The Storm', 7],
];

export const WEB_LINK = 'https://example.com/almanac?from=contents';
export const WEB_TEXT = 'Visit the almanac online';
export const MAIL_LINK = 'mailto:keeper@example.com';
export const MAIL_TEXT = 'Write to the keeper';

/** The contents page's lines that link inside the book: [text, page]. */
export const CONTENTS: [string, number][] = [
  ['Part One: The Harbour', 3],
  ['A Chart of the Coast', 4],
  ['Part Two: The Tides', 5],
  ['The Tall Lighthouse', 6],
  ['Part Three: The Storm', 7],
];

// Words for the body text: none of them is one of UNIQUE, nor a part of one.
const VOCABULARY = (
  'the keeper climbs stair lamp oil wick glass lens night watch ship light sea rock wave wind ' +
  'salt rope boat gull shore cliff morning evening lantern signal beacon coast north south ' +
  'east west harbour tide storm calm fog bell horn log book entry weather cloud rain sky ' +
  'star moon clock brass iron paint white red stone tower door window kettle bread supper'
).split(' ');

/** Lines of made-up prose, fixed for page n, about `width` characters each. */
const prose = (n: number, lines: number, width: number) => {
  let seed = n * 7919 + 17;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed;
  };
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    let line = '';
    while (line.length < width) {
      const word = VOCABULARY[next() % VOCABULARY.length] as string;
      line = line ? `${line} ${word}` : word.charAt(0).toUpperCase() + word.slice(1);
    }
    out.push(`${line}.`);
  }
  return out;
};

/** Text lines from (x, top) down, 16 pt apart, in 11 pt Helvetica. */
const paragraph = (x: number, top: number, lines: string[]) =>
  lines.map((line, i) => text(x, top - i * 16, line, 11)).join('\n');

/** Helvetica's average advance, near enough to size a link's box around a line of text. */
const textWidth = (words: string, size: number) => words.length * size * 0.6;

export const readerPdf = (): PdfObjects => {
  const objects = new Map<number, string>();
  const add = (n: number, body: string) => objects.set(n, body);
  // Objects: 1 catalog, 2 pages, 3 font, 4 info; pages at 10 + n, their content at 30 + n;
  // outline 60..64; link annotations from 70.
  const pageObject = (n: number) => 10 + n;
  const contentObject = (n: number) => 30 + n;
  const pages = PAGE_SIZES.map((_, i) => i + 1);
  add(
    1,
    `<< /Type /Catalog /Pages 2 0 R /Outlines 60 0 R
  /PageLabels << /Nums [0 << /S /r >> 2 << /S /D >>] >> >>`,
  );
  add(
    2,
    `<< /Type /Pages /Kids [${pages.map((n) => `${pageObject(n)} 0 R`).join(' ')}] /Count ${pages.length}
  /Resources << /Font << /F1 3 0 R >> >> >>`,
  );
  add(3, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  add(4, `<< /Title ${utf16(TITLE)} /Author (Reader tests) >>`);

  const annots = new Map<number, number[]>();
  let nextAnnot = 70;
  const link = (
    page: number,
    x: number,
    y: number,
    words: string,
    size: number,
    action: string,
  ) => {
    const n = nextAnnot++;
    const rect = [x - 2, y - 4, x + textWidth(words, size) + 2, y + size + 2].map((v) =>
      v.toFixed(1),
    );
    add(n, `<< /Type /Annot /Subtype /Link /Rect [${rect.join(' ')}] /Border [0 0 0] ${action} >>`);
    annots.set(page, [...(annots.get(page) ?? []), n]);
  };

  const header = (n: number, w: number, h: number) =>
    [
      // a thin rule and the running head, the page's label in the corner
      `0.6 0.6 0.6 RG 0.5 w 54 ${h - 48} m ${w - 54} ${h - 48} l S`,
      `0.45 0.45 0.45 rg ${text(54, h - 42, TITLE.replace('’', "'"), 8)}`,
      `${text(w - 70, 30, LABELS[n - 1] as string, 9)} 0 0 0 rg`,
    ].join('\n');

  const content = new Map<number, string>();
  // 1: the cover.
  content.set(
    1,
    [
      '0.11 0.23 0.38 rg 0 0 612 792 re f',
      '0.98 0.84 0.35 rg 286 300 40 220 re f 276 520 60 30 re f',
      `1 1 1 rg ${text(72, 660, 'The Lighthouse', 40)}`,
      text(72, 614, 'Keeper\u0092s Almanac', 40),
      text(72, 560, `A year of lamps and weather, with a ${UNIQUE[0]} on the cover.`, 12),
      text(72, 120, 'Reader tests edition', 11),
    ].join('\n'),
  );
  // 2: contents, every line a link.
  {
    const lines: string[] = [header(2, 612, 792), text(72, 680, 'Contents', 28)];
    CONTENTS.forEach(([words, page], i) => {
      const y = 620 - i * 34;
      lines.push(text(72, y, words, 14), text(500, y, LABELS[page - 1] as string, 14));
      link(2, 72, y, words, 14, `/Dest [${pageObject(page)} 0 R /Fit]`);
    });
    lines.push(text(72, 400, WEB_TEXT, 14));
    link(2, 72, 400, WEB_TEXT, 14, `/A << /S /URI /URI (${WEB_LINK}) >>`);
    lines.push(text(72, 366, MAIL_TEXT, 14));
    link(2, 72, 366, MAIL_TEXT, 14, `/A << /S /URI /URI (${MAIL_LINK}) >>`);
    lines.push(paragraph(72, 300, [`Kept in the ${UNIQUE[1]} cupboard by the stair.`]));
    content.set(2, lines.join('\n'));
  }
  // 3, 5, 7, 8: chapters of prose.
  const chapter = (n: number, heading: string) =>
    [
      header(n, 612, 792),
      text(72, 690, heading, 24),
      paragraph(72, 640, prose(n, 12, 70)),
      paragraph(72, 430, [`On this page alone the keeper wrote of ${UNIQUE[n - 1]} at dusk.`]),
      paragraph(72, 400, prose(n + 100, 14, 70)),
    ].join('\n');
  content.set(3, chapter(3, 'Part One: The Harbour'));
  content.set(5, chapter(5, 'Part Two: The Tides'));
  content.set(7, chapter(7, 'Part Three: The Storm'));
  content.set(8, chapter(8, 'Afterword'));
  // 4: a landscape chart of the coast.
  content.set(
    4,
    [
      header(4, 792, 612),
      text(72, 520, 'A Chart of the Coast', 24),
      '0.55 0.75 0.9 rg 72 110 648 370 re f',
      '0.86 0.8 0.6 rg 72 110 m 300 110 l 360 250 l 250 400 l 72 480 l f',
      '0.8 0.2 0.2 rg 330 260 12 12 re f',
      `0 0 0 rg ${text(350, 262, `Light on the rock, where the ${UNIQUE[3]} reads nine fathoms`, 11)}`,
      text(72, 80, 'Soundings in fathoms at low water; the chart is not for navigation.', 10),
    ].join('\n'),
  );
  // 6: a tall poster of the lighthouse.
  content.set(
    6,
    [
      header(6, 400, 1200),
      text(60, 1080, 'The Tall', 36),
      text(60, 1036, 'Lighthouse', 36),
      '0.85 0.2 0.2 rg 170 200 60 700 re f',
      '1 1 1 rg 170 300 60 60 re f 170 500 60 60 re f 170 700 60 60 re f',
      '0.98 0.84 0.35 rg 160 900 80 50 re f',
      `0 0 0 rg ${text(60, 150, `Its lamp outshines the ${UNIQUE[5]} on any night.`, 12)}`,
      text(60, 120, 'One hundred and twelve steps to the lantern.', 12),
    ].join('\n'),
  );

  for (const n of pages) {
    const [w, h] = PAGE_SIZES[n - 1] as [number, number];
    const links = annots.get(n);
    add(
      pageObject(n),
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${w} ${h}] /Contents ${contentObject(n)} 0 R${
        links ? ` /Annots [${links.map((a) => `${a} 0 R`).join(' ')}]` : ''
      } >>`,
    );
    add(contentObject(n), stream(content.get(n) ?? ''));
  }

  // The outline: 61 "Harbour and Tides" (62 "The Harbour", 63 "The Tides"), 64 "The Storm".
  const dest = (page: number) => `/Dest [${pageObject(page)} 0 R /XYZ 0 792 0]`;
  add(60, '<< /Type /Outlines /First 61 0 R /Last 64 0 R /Count 4 >>');
  add(
    61,
    `<< /Title (Harbour and Tides) /Parent 60 0 R ${dest(3)} /First 62 0 R /Last 63 0 R /Count 2 /Next 64 0 R >>`,
  );
  add(62, `<< /Title (The Harbour) /Parent 61 0 R ${dest(3)} /Next 63 0 R >>`);
  add(63, `<< /Title (The Tides) /Parent 61 0 R ${dest(5)} /Prev 62 0 R >>`);
  add(64, `<< /Title (The Storm) /Parent 60 0 R ${dest(7)} /Prev 61 0 R >>`);

  return { objects, root: 1, info: 4 };
};
