// Each page's text, for the reader's search and alternative text.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Poppler } from 'node-poppler';

/** Each page's text, from one pdftotext run (pages end with a form feed). Never fatal. */
export const extractText = async (
  poppler: Poppler,
  pdfPath: string,
  work: string,
  signal: AbortSignal,
) => {
  try {
    // To a file: node-poppler answers "No Error" instead of an empty stdout.
    const file = join(work, 'text.txt');
    await poppler.pdfToText(pdfPath, file, { outputEncoding: 'UTF-8' }, { signal });
    const text = await readFile(file, 'utf8');
    return text.split('\f').map((t) => t.replace(/[ \t]+\n/g, '\n').trim());
  } catch {
    return [];
  }
};
