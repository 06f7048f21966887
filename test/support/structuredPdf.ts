// Small PDFs with a known structure, written by hand (see pdfWriter.ts), for the tests of
// document structure: what each holds is listed beside it, so a test can assert every field.
import { type PdfObjects, stream, text, utf16 } from './pdfWriter.ts';

/**
 * Five pages: a cover, a contents page full of links, chapter one, a landscape page and a page
 * turned a quarter (/Rotate 90) with a crop box. It has
 * - a Title with a tab and a control character: "  Structured\t Book \x01 test  ";
 * - /ViewerPreferences /Direction /R2L (its text is Latin: the declaration wins);
 * - /PageLabels: i, ii, then 1, 2, then "A-1" (prefix "A-");
 * - a nested outline whose targets are explicit, named (/Dests and the /Names tree), through a
 *   GoTo action, unresolvable (dropped), a web bookmark (dropped), a heading without a target
 *   that groups two entries, and a /Next that loops back to the first entry;
 * - links on page 2: a GoTo action, a /Dest name, a /Dest string, https, mailto, javascript:
 *   (dropped), a JavaScript action (dropped), file: (dropped), a Launch action (dropped) and a
 *   Named NextPage action named by its /Contents; on page 4 a link back to page 2; on page 5 a
 *   web link on the turned page.
 */
export const structuredPdf = (): PdfObjects => {
  const objects = new Map<number, string>();
  const add = (n: number, body: string) => objects.set(n, body);
  const page = (n: number, content: number, extra = '') =>
    add(n, `<< /Type /Page /Parent 2 0 R /Contents ${content} 0 R ${extra}>>`);

  add(
    1,
    `<< /Type /Catalog /Pages 2 0 R /Outlines 20 0 R /PageMode /UseOutlines
  /PageLabels << /Nums [0 << /S /r >> 2 << /S /D >> 4 << /S /D /P (A-) >>] >>
  /ViewerPreferences << /Direction /R2L >>
  /Names << /Dests 40 0 R >> /Dests 41 0 R >>`,
  );
  add(
    2,
    `<< /Type /Pages /Kids [3 0 R 4 0 R 5 0 R 6 0 R 7 0 R] /Count 5 /MediaBox [0 0 612 792]
  /Resources << /Font << /F1 8 0 R >> >> >>`,
  );
  page(3, 9);
  page(4, 10, '/Annots [30 0 R 31 0 R 32 0 R 33 0 R 34 0 R 35 0 R 36 0 R 37 0 R 38 0 R 39 0 R] ');
  page(5, 11);
  page(6, 12, '/MediaBox [0 0 792 612] /Annots [43 0 R] ');
  page(7, 13, '/Rotate 90 /CropBox [50 100 562 742] /Annots [44 0 R] ');
  add(8, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  add(9, stream(text(72, 700, 'Cover', 36)));
  add(
    10,
    stream(
      [
        text(72, 700, 'Chapter One'),
        text(72, 670, 'Chapter Two'),
        text(72, 640, 'Section Two'),
        text(72, 610, 'Example site'),
        text(72, 580, 'Write to us'),
        text(72, 550, 'Run script'),
        text(72, 520, 'Script action'),
        text(72, 490, 'Local file'),
        text(72, 460, 'Launch it'),
      ].join('\n'),
    ),
  );
  add(11, stream(text(72, 700, 'Chapter One')));
  add(12, stream(text(100, 500, 'Back to contents')));
  add(13, stream(text(110, 620, 'Rotated link')));

  // Outline: 21 Front matter (22 Contents), 23 Chapter One (24 Section 1.1, 26 Section 1.2),
  // 25 Grouping heading (27 Appendix, 28 Broken), 29 Web bookmark, 42 Loop (-> 21 again).
  add(20, '<< /Type /Outlines /First 21 0 R /Last 42 0 R /Count 9 >>');
  add(
    21,
    '<< /Title (Front matter) /Parent 20 0 R /Dest [3 0 R /Fit] /First 22 0 R /Last 22 0 R /Next 23 0 R >>',
  );
  add(22, '<< /Title (Contents) /Parent 21 0 R /Dest /contents >>');
  add(
    23,
    '<< /Title (Chapter One) /Parent 20 0 R /A << /S /GoTo /D [5 0 R /Fit] >> /First 24 0 R /Last 26 0 R /Prev 21 0 R /Next 25 0 R >>',
  );
  add(24, '<< /Title (Section 1.1) /Parent 23 0 R /Dest [5 0 R /XYZ 0 500 0] /Next 26 0 R >>');
  add(
    25,
    `<< /Title ${utf16('Grouping — heading')} /Parent 20 0 R /First 27 0 R /Last 28 0 R /Prev 23 0 R /Next 29 0 R >>`,
  );
  add(26, '<< /Title (Section 1.2) /Parent 23 0 R /A << /S /GoTo /D (sec.2) >> /Prev 24 0 R >>');
  add(27, '<< /Title (Appendix) /Parent 25 0 R /Dest [7 0 R /Fit] /Next 28 0 R >>');
  add(28, '<< /Title (Broken) /Parent 25 0 R /Dest [99 0 R /Fit] /Prev 27 0 R >>');
  add(
    29,
    '<< /Title (Web bookmark) /Parent 20 0 R /A << /S /URI /URI (https://example.org/) >> /Prev 25 0 R /Next 42 0 R >>',
  );
  add(42, '<< /Title (Loop) /Parent 20 0 R /Dest [6 0 R /Fit] /Prev 29 0 R /Next 21 0 R >>');

  const link = (n: number, rect: string, target: string) =>
    add(n, `<< /Type /Annot /Subtype /Link /Rect [${rect}] /Border [0 0 0] ${target} >>`);
  // Links 30 to 38 stand in a column on the contents page, each 30 points below the one before.
  [
    '/A << /S /GoTo /D [5 0 R /XYZ 0 792 0] >>',
    '/Dest /chap2',
    '/Dest (sec.2)',
    '/A << /S /URI /URI (https://example.org/a?b=1) >>',
    '/A << /S /URI /URI (mailto:team@example.org) >>',
    '/A << /S /URI /URI (javascript:alert\\(1\\)) >>',
    '/A << /S /JavaScript /JS (app.alert\\(1\\)) >>',
    '/A << /S /URI /URI (file:///etc/passwd) >>',
    '/A << /S /Launch /F (calc.exe) >>',
  ].forEach((target, i) => {
    link(30 + i, `70 ${695 - 30 * i} 200 ${715 - 30 * i}`, target);
  });
  link(39, '500 50 560 80', '/Contents (Next page) /A << /S /Named /N /NextPage >>');
  link(43, '90 490 300 515', '/Dest [4 0 R /Fit]');
  link(44, '100 600 300 650', '/A << /S /URI /URI (http://example.com/rotated) >>');

  add(40, '<< /Names [(sec.2) << /D [6 0 R /XYZ 0 0 0] >>] >>');
  add(41, '<< /chap2 [6 0 R /Fit] /contents << /D [4 0 R /Fit] >> >>');
  add(50, '<< /Title (  Structured\t Book \\001 test  ) /Author (Tests) >>');
  return { objects, root: 1, info: 50 };
};

/** Two Letter pages of Latin text and nothing else, titled in UTF-16: "Élan — 書". */
export const plainPdf = (): PdfObjects => {
  const objects = new Map<number, string>();
  objects.set(1, '<< /Type /Catalog /Pages 2 0 R >>');
  objects.set(2, '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /MediaBox [0 0 612 792] >>');
  objects.set(
    3,
    '<< /Type /Page /Parent 2 0 R /Contents 5 0 R /Resources << /Font << /F1 6 0 R >> >> >>',
  );
  objects.set(
    4,
    '<< /Type /Page /Parent 2 0 R /Contents 5 0 R /Resources << /Font << /F1 6 0 R >> >> >>',
  );
  objects.set(5, stream(text(72, 700, 'Plain text, left to right.')));
  objects.set(6, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  objects.set(7, `<< /Title ${utf16('Élan — 書')} >>`);
  return { objects, root: 1, info: 7 };
};
