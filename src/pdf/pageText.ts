// Each page's text, for the reader's search and alternative text.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Poppler } from 'node-poppler';
import { logicalOrder } from './bidiText.ts';
import { storageProblem } from './renderFailure.ts';

/**
 * Each page's text, from one pdftotext run (pages end with a form feed), right-to-left runs in
 * logical order (pdftotext writes them reversed: see bidiText.ts). Never fatal for the
 * document's sake; a full disk is thrown, so the render is tried again rather than kept textless.
 */
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
    return logicalOrder(text)
      .split('\f')
      .map((t) => t.replace(/[ \t]+\n/g, '\n').trim());
  } catch (error) {
    const storage = storageProblem(error);
    if (storage) throw storage;
    return [];
  }
};
