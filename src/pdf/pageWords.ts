// The words of one page with their boxes, for the reader's search highlights: `pdftotext -bbox-layout`
// on that page alone, under the same limits as rendering. Boxes are fractions of the page as the
// reader shows it (the crop box, as pdftotext turns it upright), from its top-left corner.
import { resolve as absolute } from 'node:path';
import { lineAsRead, wordAsRead } from './bidiText.ts';
import { unescapeXml } from './pageLinks.ts';
import { type ProcessLimits, runPoppler } from './poppler.ts';

export type PageWord = { x: number; y: number; w: number; h: number; t: string };

/** A page of more words than this is a table of numbers: the first ones are plenty to light. */
export const MAX_WORDS = 20_000;
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

/** A fraction of the page to five decimals (a hundred-thousandth of the page: under a pixel). */
export const round = (n: number) => Math.round(n * 100_000) / 100_000;

/**
 * The words of the first <page> of `pdftotext -bbox-layout` output (or -bbox's, without lines),
 * as fractions of its size, each line's in the order they are read (./bidiText.ts). The page's
 * size is printed as the PDF has it, before /Rotate, while the words are placed on the page as
 * it is shown: turned a quarter, its width and height swap.
 */
export const parsePageWords = (xhtml: string, rotation = 0): PageWord[] => {
  const size = /<page width="([\d.]+)" height="([\d.]+)">/.exec(xhtml);
  const quarter = Math.abs(rotation) % 180 === 90;
  const width = Number(size?.[quarter ? 2 : 1]);
  const height = Number(size?.[quarter ? 1 : 2]);
  if (!(width > 0 && height > 0)) return [];
  const words: PageWord[] = [];
  const lines = xhtml.includes('<line') ? xhtml.split(/<\/line>/) : [xhtml];
  for (const line of lines) {
    const standing = [
      ...line.matchAll(
        /<word xMin="([\d.-]+)" yMin="([\d.-]+)" xMax="([\d.-]+)" yMax="([\d.-]+)">([^<]*)<\/word>/g,
      ),
    ];
    for (const m of lineAsRead(standing, (word) => word[5] ?? '')) {
      if (words.length >= MAX_WORDS) return words;
      const [xMin, yMin, xMax, yMax] = [m[1], m[2], m[3], m[4]].map(Number) as number[];
      const text = wordAsRead(unescapeXml(m[5] ?? '')).trim();
      if (!text || ![xMin, yMin, xMax, yMax].every(Number.isFinite)) continue;
      words.push({
        x: round((xMin as number) / width),
        y: round((yMin as number) / height),
        w: round(((xMax as number) - (xMin as number)) / width),
        h: round(((yMax as number) - (yMin as number)) / height),
        t: text,
      });
    }
  }
  return words;
};
