// Real corpus documents with known edits, for the comparison of a preview with the version before
// it: pages kept, dropped, inserted or reordered (qpdf's --pages), and a word replaced on one page
// (a small page of our own, a white box and a word, laid over it with qpdf's --overlay).
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { pdfBytes, stream, text } from './pdfWriter.ts';

const run = promisify(execFile);

/** Where a stamp's word goes on the page, in PDF points from the bottom left of a Letter page. */
export const STAMP = { x: 300, y: 430, width: 150, height: 22 };

export const editsFolder = () => mkdtemp(join(tmpdir(), 'flipbook-edits-'));

/**
 * `qpdf --pages`: `parts` are [file, ranges] in order (ranges as qpdf reads them: "1-3,5-z").
 * The first file's document-level parts (outline, metadata) are kept.
 */
export const pagesFrom = async (out: string, ...parts: [string, string][]) => {
  const first = parts[0]?.[0] as string;
  await run('qpdf', ['--empty', '--pages', ...parts.flat(), '--', out]).catch(async () =>
    run('qpdf', [first, '--pages', ...parts.flat(), '--', out]),
  );
  return out;
};

/**
 * `source` with page `page` covered, at STAMP, by a white box holding `word`; `pages` as qpdf reads
 * them ("3,7", "1-z") covers each of those.
 */
export const withWord = async (
  source: string,
  page: number | string,
  word: string,
  out: string,
) => {
  const objects = new Map<number, string>();
  objects.set(1, '<< /Type /Catalog /Pages 2 0 R >>');
  objects.set(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 612 792] >>');
  objects.set(
    3,
    '<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
  );
  const { x, y, width, height } = STAMP;
  objects.set(
    4,
    stream(`1 g ${x} ${y} ${width} ${height} re f 0 g ${text(x + 4, y + 5, word, 14)}`),
  );
  objects.set(5, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  const stamp = `${out}.stamp.pdf`;
  await writeFile(stamp, pdfBytes({ objects, root: 1 }));
  // --repeat: the stamp's one page over every page named, not only the first
  await run('qpdf', [
    source,
    '--overlay',
    stamp,
    `--to=${page}`,
    '--from=1',
    '--repeat=1',
    '--',
    out,
  ]);
  return out;
};
