// A quick look at a PDF with `pdfinfo`: page count and encryption, enough to refuse unreadable
// files at upload and to estimate the work. Rendering happens later. pdfinfo runs under the same
// memory and CPU caps as the renderer (poppler.ts): a hostile upload must not exhaust the daemon's
// machine before a worker ever sees it.
import { resolve as absolute } from 'node:path';
import { DEFAULT_LIMITS, type ProcessLimits, runLimited, ToolFailure } from './poppler.ts';
import { classify, lastError } from './renderFailure.ts';

export type PdfInspection =
  | { kind: 'readable'; pages: number }
  | { kind: 'password-protected' }
  | { kind: 'unreadable'; reason: string };

export type InspectOptions = { limits: ProcessLimits; timeoutMs: number };

const DEFAULTS: InspectOptions = { limits: DEFAULT_LIMITS, timeoutMs: 15_000 };

export const inspectPdf = async (
  path: string,
  options: InspectOptions = DEFAULTS,
): Promise<PdfInspection> => {
  try {
    const run = await runLimited(options.limits, 'pdfinfo', [absolute(path)], {
      signal: AbortSignal.timeout(options.timeoutMs),
      maxBytes: 1024 * 1024,
    });
    if (run.code !== 0) throw new ToolFailure('pdfinfo', run.code, null, run.stderr);
    // pdfinfo exits 0 when an allocation failed on the way; what it printed is not to be trusted.
    if (/Out of memory|Bogus memory allocation/i.test(run.stderr)) {
      throw new ToolFailure('pdfinfo', 0, null, run.stderr);
    }
    const pages = Number(/^Pages:\s*(\d+)/m.exec(run.stdout)?.[1]);
    if (!Number.isInteger(pages) || pages < 1) {
      return { kind: 'unreadable', reason: 'the PDF has no pages' };
    }
    return { kind: 'readable', pages };
  } catch (error) {
    switch (classify(error)) {
      case 'password':
        return { kind: 'password-protected' };
      case 'memory':
        return { kind: 'unreadable', reason: 'reading it needed more memory than allowed' };
      case 'cpu':
        return { kind: 'unreadable', reason: 'reading it used more CPU time than allowed' };
      case 'crash':
        return { kind: 'unreadable', reason: 'it crashed the PDF reader; it is probably damaged' };
      case 'timeout':
        return { kind: 'unreadable', reason: 'reading the PDF took too long' };
      case 'other':
        return { kind: 'unreadable', reason: lastError(error) || 'unknown error' };
    }
  }
};
