// Each page's text, for the reader's search and alternative text.
import { readFile } from 'node:fs/promises';
import { resolve as absolute, join } from 'node:path';
import { logicalOrder } from './bidiText.ts';
import { type ProcessLimits, runPoppler, ToolFailure } from './poppler.ts';
import { storageProblem } from './renderFailure.ts';

/**
 * Each page's text, from one pdftotext run (pages end with a form feed), right-to-left runs in
 * logical order (pdftotext writes them reversed: see bidiText.ts). Never fatal for the
 * document's sake; a full disk is thrown, so the render is tried again rather than kept textless.
 */
export const extractText = async (
  limits: ProcessLimits,
  pdfPath: string,
  work: string,
  signal: AbortSignal,
) => {
  try {
    // To a file, not stdout: a hostile file's text is not held twice in memory.
    const file = join(work, 'text.txt');
    await runPoppler(
      limits,
      {
        tool: 'pdftotext',
        file: absolute(pdfPath),
        output: file,
        options: { outputEncoding: 'UTF-8' },
      },
      { signal, maxBytes: 64 * 1024 },
    );
    const text = await readFile(file, 'utf8');
    return logicalOrder(text)
      .split('\f')
      .map((t) => t.replace(/[ \t]+\n/g, '\n').trim());
  } catch (error) {
    // pdftotext's own failure (a non-zero status) is the document's: no text.
    if (error instanceof ToolFailure && error.code !== null) return [];
    const storage = storageProblem(error);
    if (storage) throw storage;
    return [];
  }
};
