// A PDF's objects indexed for reading its structure: the catalog, the pages in the order the
// page tree gives them, and each page object's position, from the objects of `qpdf --json`. Pure,
// and bounded: the page tree is walked as pdfTree.ts walks PDF's trees, to a count of pages.
import { pageTree } from './pdfTree.ts';
import { type Dict, dictAt, isDict, type Json, type Objects, objectsOf } from './qpdfJson.ts';

/** What resolving needs: the objects, each page's position by its object, the page count. */
export type PdfIndex = {
  objects: Objects;
  catalog: Dict;
  pageCount: number;
  /** 1-based position of each page object ("12 0 R") */
  positions: Map<string, number>;
  /** named destinations, read at the first named one */
  named?: Map<string, Json>;
};

/** The objects, the catalog and the pages in order, from qpdf's output. */
export const indexPdf = (json: { [key: string]: Json }, pageCount?: number) => {
  const objects = objectsOf(json.qpdf ?? null);
  const trailer = objects.trailer;
  const root = isDict(trailer) && isDict(trailer.value) ? trailer.value['/Root'] : undefined;
  const catalog = dictAt(objects, root);
  if (!catalog) return null;
  const pages = pageTree(objects, catalog['/Pages'], Math.min(pageCount ?? MAX_PAGES, MAX_PAGES));
  const positions = new Map<string, number>();
  pages.forEach(({ reference }, i) => {
    if (reference && !positions.has(reference)) positions.set(reference, i + 1);
  });
  const index: PdfIndex & { pages: Dict[] } = {
    objects,
    catalog,
    pageCount: pages.length,
    positions,
    pages: pages.map((p) => p.page),
  };
  return index;
};

/** ceiling on the pages walked when the caller gives no count */
const MAX_PAGES = 100_000;
