// How many pages a PDF has and the size of each, from one `pdfinfo -f 1 -l N` run under the
// process limits: what the render plans its work from.
import { resolve as absolute } from 'node:path';
import { MachineFailure } from '../domain/errors.ts';
import { type PageGeometry, parsePageSizes } from './pageSizes.ts';
import { type ProcessLimits, runPoppler } from './poppler.ts';
import { explain, RenderFailure, TooManyPages } from './renderFailure.ts';

/** pdfinfo prints two short lines a page: this is ample for the 2000 pages a document may have. */
const MAX_INFO_BYTES = 4 * 1024 * 1024;

export const readPages = async (
  limits: ProcessLimits,
  pdfPath: string,
  maxPages: number,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<PageGeometry[]> => {
  const signal = AbortSignal.any(
    [options.signal, AbortSignal.timeout(options.timeoutMs)].filter(
      (s): s is AbortSignal => s !== undefined,
    ),
  );
  let text: string;
  try {
    // One run for the count and the sizes: -l beyond the last page stops at the last page, and
    // a document over the limit is refused from its count, whatever sizes were printed.
    text = await runPoppler(
      limits,
      {
        tool: 'pdfinfo',
        file: absolute(pdfPath),
        options: { firstPageToConvert: 1, lastPageToConvert: maxPages + 1 },
      },
      { signal, maxBytes: MAX_INFO_BYTES },
    );
  } catch (error) {
    // A full TMPDIR (pdfinfo's output lost) is the machine's: the render is tried again later.
    if (error instanceof MachineFailure) throw error;
    throw explain(error, 'read');
  }
  const pages = Number(/^Pages:\s*(\d+)/m.exec(text)?.[1] ?? 0);
  if (!(pages >= 1)) throw new RenderFailure('The PDF has no pages');
  if (pages > maxPages) {
    throw new TooManyPages(pages, maxPages);
  }
  const geometry = parsePageSizes(text);
  if (geometry.length !== pages) {
    throw new RenderFailure(`The PDF says it has ${pages} pages but describes ${geometry.length}`);
  }
  return geometry;
};
