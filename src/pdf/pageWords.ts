// The words of one page with their boxes, for the reader's search highlights: `pdftotext -bbox-layout`
// on that page alone, under the same limits as rendering. Boxes are fractions of the page as the
// reader shows it (the crop box, as pdftotext turns it upright), from its top-left corner.
import { resolve as absolute } from 'node:path';
import { unescapeXml } from './pageLinks.ts';
import type { PageWord } from './pageWord.ts';
import { type ProcessLimits, runPoppler } from './poppler.ts';
import { tsvReader } from './textPass.ts';

const MAX_OUTPUT_BYTES = 8 * 1024 * 1024;
const TIMEOUT_MS = 20_000;

export const readPageWords = async (
  pdfPath: string,
  position: number,
  options: { limits: ProcessLimits; signal?: AbortSignal },
): Promise<PageWord[] | null> => {
  const signal = AbortSignal.any(
    [options.signal, AbortSignal.timeout(TIMEOUT_MS)].filter(
      (s): s is AbortSignal => s !== undefined,
    ),
  );
  const path = absolute(pdfPath);
  const pages = { firstPageToConvert: position, lastPageToConvert: position };
  const read = Promise.all([
    runPoppler(
      options.limits,
      {
        tool: 'pdftotext',
        file: path,
        options: { boundingBoxXhtmlLayout: true, cropBox: true, outputEncoding: 'UTF-8', ...pages },
      },
      { signal, maxBytes: MAX_OUTPUT_BYTES },
    ),
    runPoppler(
      options.limits,
      { tool: 'pdfinfo', file: path, options: pages },
      { signal, maxBytes: 1024 * 1024 },
    ),
  ]);
  // null: the words could not be read, whatever stopped the tools (a failure to try again
  // later, not a page without words)
  const [words, info] = await read.catch(() => [null, null]);
  if (words === null || info === null) return null;
  const rotation = Number(/^Page\s+\d+\s+rot:\s+(\d+)/m.exec(info)?.[1] ?? 0);
  return parsePageWords(words, rotation);
};

/**
 * The words of the first <page> of `pdftotext -bbox-layout` output (or -bbox's, without lines),
 * as fractions of its size: read as the text pass reads its rows (./textPass.ts), each line's
 * words in the order they are read. The page's size is printed as the PDF has it, before /Rotate,
 * while the words are placed on the page as it is shown: turned a quarter, its width and height
 * swap.
 */
export const parsePageWords = (xhtml: string, rotation = 0): PageWord[] => {
  const size = /<page width="([\d.]+)" height="([\d.]+)">/.exec(xhtml);
  const [width, height] = [Number(size?.[1]), Number(size?.[2])];
  if (!(width > 0 && height > 0)) return [];
  const reader = tsvReader([{ position: 1, width, height, rotation }]);
  reader.startPage(1, width, height);
  let [flow, block, line] = [0, 0, 0];
  for (const m of xhtml.matchAll(
    /<(flow|block|line)[ >]|<word xMin="([\d.-]+)" yMin="([\d.-]+)" xMax="([\d.-]+)" yMax="([\d.-]+)">([^<]*)<\/word>/g,
  )) {
    if (m[1] === 'flow') [flow, block, line] = [flow + 1, 0, 0];
    else if (m[1] === 'block') [block, line] = [block + 1, 0];
    else if (m[1] === 'line') line += 1;
    else {
      const [left, top, right, bottom] = [m[2], m[3], m[4], m[5]].map(Number) as number[];
      reader.addWord(
        String(flow),
        String(block),
        `${flow}/${block}/${line}`,
        unescapeXml(m[6] ?? ''),
        {
          left: left as number,
          top: top as number,
          width: (right as number) - (left as number),
          height: (bottom as number) - (top as number),
        },
      );
    }
  }
  return reader.end().words[0] ?? [];
};
