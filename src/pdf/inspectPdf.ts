// A quick look at a PDF with `pdfinfo`: page count and encryption, enough to refuse unreadable
// files at upload and to estimate the work. Rendering happens later. pdfinfo runs under the same
// memory and CPU caps as the renderer (poppler.ts): a hostile upload must not exhaust the daemon's
// machine before a worker ever sees it. A failure of the machine itself (a full TMPDIR) is thrown
// as a MachineFailure: it says nothing about the file.
import { resolve as absolute } from 'node:path';
import { MachineFailure } from '../domain/errors.ts';
import { DEFAULT_LIMITS, type ProcessLimits, runPoppler } from './poppler.ts';
import { classify, lastError } from './renderFailure.ts';

export type PdfInspection =
  | { kind: 'readable'; pages: number }
  | { kind: 'password-protected' }
  | { kind: 'unreadable'; reason: string };

export type InspectOptions = { limits: ProcessLimits; timeoutMs: number };

/** What pdfinfo says of a document whose page tree counts no page. */
const NO_PAGES = /can not be after the last page \(0\)/;
const NO_PAGES_WORDS = 'the PDF has no pages, or its page tree cannot be read';

const DEFAULTS: InspectOptions = { limits: DEFAULT_LIMITS, timeoutMs: 15_000 };

export const inspectPdf = async (
  path: string,
  options: InspectOptions = DEFAULTS,
): Promise<PdfInspection> => {
  try {
    // A pdfinfo that exits 0 after an allocation failed is a failure too: its wrapper says so
    // (toolWrappers.ts), as what it printed is not to be trusted.
    const info = await runPoppler(
      options.limits,
      { tool: 'pdfinfo', file: absolute(path), options: {} },
      { signal: AbortSignal.timeout(options.timeoutMs), maxBytes: 1024 * 1024 },
    );
    const pages = Number(/^Pages:\s*(\d+)/m.exec(info)?.[1]);
    if (!Number.isInteger(pages) || pages < 1) {
      return { kind: 'unreadable', reason: 'the PDF has no pages' };
    }
    return { kind: 'readable', pages };
  } catch (error) {
    // The machine failed (TMPDIR full: pdfinfo's output could not be kept), not the PDF: the
    // caller answers 503, never a verdict on the file.
    if (error instanceof MachineFailure) throw error;
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
      case 'other': {
        const said = lastError(error);
        // pdfinfo (poppler 22) refuses a PDF it counts no page in as a bad page range: one of no
        // pages, or one whose page tree's count it cannot believe (a tester's finds).
        if (NO_PAGES.test(said)) return { kind: 'unreadable', reason: NO_PAGES_WORDS };
        return { kind: 'unreadable', reason: said || 'unknown error' };
      }
    }
  }
};
