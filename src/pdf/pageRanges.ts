// What the renderer processes do, in order: page 1's three renditions first (the reader shows the
// first page while the rest renders), then each rendition of the other pages as one long range,
// smallest first, and the text.
import type { PageGeometry } from './pageSizes.ts';
import type { RenditionName } from './renditions.ts';

export type Range = { first: number; last: number; sized: boolean };

export type PagesTask = Range & { kind: 'pages'; rendition: RenditionName };

export type Task = PagesTask | { kind: 'text' };

/**
 * Every process costs its start (loading the document and its fonts: ~20 ms for the why3
 * manual, measured), so the pages go in as few ranges as possible; an idle process takes the
 * second half of a busy one's range instead (renderQueue.ts). Smaller renditions come before
 * larger ones so that what is left at the end, and split, is the largest. `renditions` are the
 * ones rendered now (the largest may be left for later: processing.md, "The largest rendition").
 */
export const planTasks = (
  geometry: PageGeometry[],
  renditions: RenditionName[] = ['max', 'mid', 'min'],
): Task[] => {
  const front = sizedRuns(geometry.slice(0, 1));
  const others = sizedRuns(geometry.slice(1));
  const over = (rendition: RenditionName, ranges: Range[]): Task[] =>
    renditions.includes(rendition)
      ? ranges.map((range) => ({ kind: 'pages', rendition, ...range }))
      : [];
  return [
    ...over('max', front),
    ...over('mid', front),
    ...over('min', front),
    ...over('min', others),
    ...over('mid', others),
    { kind: 'text' },
    ...over('max', others),
  ];
};

/**
 * Contiguous runs of pages with a size; each page without one (a 0x0 MediaBox, which
 * `-scale-to` cannot scale) is a range of its own, so its failure is told apart.
 */
export const sizedRuns = (geometry: PageGeometry[]): Range[] => {
  const runs: Range[] = [];
  for (const page of geometry) {
    const sized = page.width > 0 && page.height > 0;
    const previous = runs.at(-1);
    if (sized && previous?.sized && previous.last === page.position - 1) {
      previous.last = page.position;
    } else runs.push({ first: page.position, last: page.position, sized });
  }
  return runs;
};
