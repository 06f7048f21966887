// A finished render's text files beside its images: each page's text.txt (alternative text, the
// search's text) and words.json (search highlights), and the version's lines.json (every page's
// lines in one file: the reader's text in place, ../pdf/pageLines.ts).
import type { RenderTarget } from '../blobs/blobStore.ts';
import { linesOfPages as linesOf } from '../pdf/pageLines.ts';
import type { RenderedPage } from '../pdf/renderPdf.ts';

/** Writes them; gives how many lines lines.json holds (document.json says it). */
export const writeTextFiles = async (target: RenderTarget, pages: readonly RenderedPage[]) => {
  const lines = linesOf(pages);
  await Promise.all([
    ...pages.flatMap((page) => [
      target.writeFile(`${page.position}/text.txt`, page.text),
      target.writeFile(`${page.position}/words.json`, JSON.stringify({ words: page.words })),
    ]),
    target.writeFile('lines.json', JSON.stringify({ pages: lines })),
  ]);
  return lines.reduce((sum, page) => sum + page.length, 0);
};
