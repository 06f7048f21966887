// A copy of a PDF with a reader's watermark on every page (issue 44, "Know who reads"): qpdf
// overlays pages of a small stamp PDF we write (stampPages.ts) onto the document's pages. qpdf
// copies the document's objects as they are, so the copy costs about what reading and writing
// the file costs (a 300-page book: ~0.3 s), with nothing re-rendered and nothing lost.
//
// qpdf fits an overlay page into each page's TrimBox, upright as the page is shown (it undoes
// /Rotate) and keeping the overlay's aspect. So the stamp has one page per page shape, taken
// from `pdfinfo -box` (TrimBox and rotation per page), and each is overlaid on its pages only
// (`--from` names a stamp page for each page of `--to`). qpdf is asked for the page count too: where the two readers
// disagree (a damaged file each repairs its own way), some page could go unmarked, so the copy
// is refused.
//
// Everything runs under the process limits of the other tools (toolWrappers.ts) and a wall
// clock (30 s by default), then SIGKILL. The copy is written beside `output` and renamed into
// place when qpdf has finished: a reader never gets half a file.
import { rm, writeFile } from 'node:fs/promises';
import { resolve as absolute, dirname, join } from 'node:path';
import { writeAtomically } from '../atomicFile.ts';
import { DEFAULT_LIMITS, type ProcessLimits, runPoppler, runQpdf, ToolFailure } from './poppler.ts';
import { ReasonedFailure } from './reasonedFailure.ts';
import { stampPagesPdf } from './stampPages.ts';
import { parseTrimShapes, shapeGroups } from './stampShapes.ts';
import { stampText } from './stampText.ts';

export type StampReason = 'password' | 'damaged' | 'timeout' | 'failed';

/**
 * The document could not be stamped, and why: `password` (it needs a password to open; one
 * with an empty user password opens and is stamped), `damaged` (qpdf or poppler cannot read it,
 * or they disagree on its pages), `timeout` (the wall clock, or the caller's signal), `failed`
 * (qpdf died, a limit killed it, the disk refused the copy). Nothing was written at `output`.
 */
export class StampFailure extends ReasonedFailure<StampReason> {
  override name = 'StampFailure';
}

export type StampPdfOptions = {
  limits?: ProcessLimits;
  /** the whole job's wall clock, pdfinfo and qpdf together */
  timeoutMs?: number;
  signal?: AbortSignal;
};

const TIMEOUT_MS = 30_000;
/** pdfinfo -box prints seven lines a page: ample for 2000 pages. */
const MAX_INFO_BYTES = 4 * 1024 * 1024;

/**
 * Writes to `output` a copy of the PDF at `input` with `text` (a reader's address and a date)
 * faintly across every page. The text is made Latin-1 first (stampText.ts: domains in punycode);
 * resolves with the page count and the text as drawn. Rejects with a StampFailure.
 */
export const stampPdf = async (
  input: string,
  output: string,
  text: string,
  options: StampPdfOptions = {},
): Promise<{ pages: number; drawn: string }> => {
  const limits = options.limits ?? DEFAULT_LIMITS;
  const clock = AbortSignal.timeout(options.timeoutMs ?? TIMEOUT_MS);
  const signal = options.signal ? AbortSignal.any([clock, options.signal]) : clock;
  const file = absolute(input);
  const drawn = stampText(text);
  try {
    const [count, info] = await Promise.allSettled([
      runQpdf(limits, ['--show-npages', file], { signal, maxBytes: 64 * 1024 }),
      runPoppler(
        limits,
        {
          tool: 'pdfinfo',
          file,
          options: { printBoundingBoxes: true, firstPageToConvert: 1, lastPageToConvert: 1e6 },
        },
        { signal, maxBytes: MAX_INFO_BYTES },
      ),
    ]);
    // qpdf's verdict first: it is the one that writes the copy.
    if (count.status === 'rejected') throw count.reason;
    if (count.value.code !== 0 && count.value.code !== 3) throw refused(count.value.stderr);
    if (info.status === 'rejected') throw info.reason;
    const pages = Number(count.value.stdout.trim());
    const shapes = parseTrimShapes(info.value);
    if (!(pages >= 1) || shapes.length !== pages) {
      throw new StampFailure(
        'damaged',
        `qpdf counts ${pages} pages where pdfinfo describes ${shapes.length}: not every page could be marked`,
      );
    }
    const { shapes: distinct, stampOf } = shapeGroups(shapes);
    const stamp = join(dirname(absolute(output)), `.stamp-${process.pid}-${Date.now()}.pdf`);
    await writeFile(stamp, stampPagesPdf(drawn, distinct), { flag: 'wx' });
    try {
      await writeAtomically(absolute(output), async (to) => {
        // One shape: stamp page 1 repeated; several: the stamp page of each page, in order.
        const from =
          distinct.length === 1 ? ['--from=1', '--repeat=1'] : [`--from=${stampOf.join(',')}`];
        const overlay = ['--overlay', stamp, `--to=1-${pages}`, ...from, '--'];
        const run = await runQpdf(limits, [file, ...overlay, to], { signal, maxBytes: 64 * 1024 });
        if (run.code !== 0 && run.code !== 3) throw refused(run.stderr);
      });
    } finally {
      await rm(stamp, { force: true });
    }
    return { pages, drawn };
  } catch (error) {
    throw failure(error, signal, clock);
  }
};

/** qpdf's own refusal: a password it lacks, or a file it cannot read. */
const refused = (stderr: string) =>
  /invalid password/i.test(stderr)
    ? new StampFailure('password', 'The PDF needs a password to open')
    : new StampFailure('damaged', `qpdf cannot read the PDF: ${lastLine(stderr)}`);

const lastLine = (text: string) => text.trim().split('\n').at(-1)?.trim() ?? '';

const failure = (error: unknown, signal: AbortSignal, clock: AbortSignal) => {
  if (error instanceof StampFailure) return error;
  if (signal.aborted) {
    return new StampFailure(
      'timeout',
      clock.aborted ? 'Stamping the PDF took too long' : 'Stamping the PDF was stopped',
      { cause: error },
    );
  }
  // pdfinfo's failures: poppler reads what qpdf read, so this is rare.
  if (error instanceof ToolFailure && error.tool === 'pdfinfo') {
    return /Incorrect password/i.test(error.stderr)
      ? new StampFailure('password', 'The PDF needs a password to open', { cause: error })
      : new StampFailure('damaged', `pdfinfo cannot read the PDF: ${lastLine(error.stderr)}`, {
          cause: error,
        });
  }
  return new StampFailure(
    'failed',
    `Stamping the PDF failed: ${(error as Error)?.message ?? error}`,
    {
      cause: error,
    },
  );
};
