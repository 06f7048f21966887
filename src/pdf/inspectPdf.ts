// A quick look at a PDF with `pdfinfo` (through node-poppler): page count and encryption, enough
// to refuse unreadable files at upload and to estimate the work. Rendering happens later.
import { Poppler } from 'node-poppler';

export type PdfInspection =
  | { kind: 'readable'; pages: number }
  | { kind: 'password-protected' }
  | { kind: 'unreadable'; reason: string };

const TIMEOUT_MS = 15_000;
const poppler = new Poppler();

export const inspectPdf = async (path: string): Promise<PdfInspection> => {
  try {
    const info = await poppler.pdfInfo(path, {}, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    const text =
      typeof info === 'string'
        ? info
        : Object.entries(info)
            .map(([k, v]) => `${k}: ${v}`)
            .join('\n');
    const pages = Number(/^Pages:\s*(\d+)/m.exec(text)?.[1]);
    if (!Number.isInteger(pages) || pages < 1)
      return { kind: 'unreadable', reason: 'the PDF has no pages' };
    return { kind: 'readable', pages };
  } catch (error) {
    const message = String((error as Error)?.message ?? error);
    if (/Incorrect password/i.test(message)) return { kind: 'password-protected' };
    if ((error as Error)?.name === 'TimeoutError' || /abort/i.test(message)) {
      return { kind: 'unreadable', reason: 'reading the PDF took too long' };
    }
    return { kind: 'unreadable', reason: summarise(message) };
  }
};

/** The most telling line of poppler's complaint, without its "Syntax Error (123):" prefix. */
const summarise = (message: string) => {
  const lines = message
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /error/i.test(l));
  const last = lines.at(-1) ?? message.split('\n')[0] ?? 'unknown error';
  return (
    last.replace(/^.*?(Syntax|Command Line|Internal) Error( \(\d+\))?:\s*/i, '').slice(0, 200) ||
    'unknown error'
  );
};
