// The page shapes a watermark needs (src/pdf/stampPdf.ts), read from `pdfinfo -box`: qpdf fits
// an overlay into each page's TrimBox as the page is shown, so a page's shape is its TrimBox
// turned by its /Rotate. Pages whose shapes are within 2 % of each other share a stamp page (a
// 2 % band at the edges is not worth a stamp of its own): a book of one size needs one.
import type { Shape } from './stampPages.ts';

/** Shapes this close (as a ratio of aspects) share a stamp page. */
const SAME_SHAPE = 1.02;
/** A page with no usable size (a 0x0 box) is marked as if it were letter. */
const FALLBACK: Shape = { width: 612, height: 792 };

/** Each page's shape as shown, in page order, from `pdfinfo -box -f 1 -l N`'s text. */
export const parseTrimShapes = (text: string): Shape[] => {
  const trims = new Map<number, { width: number; height: number }>();
  const turns = new Map<number, number>();
  for (const line of text.split('\n')) {
    const trim = /^Page\s+(\d+)\s+TrimBox:\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)/.exec(line);
    if (trim) {
      const [x0, y0, x1, y1] = trim.slice(2).map(Number) as [number, number, number, number];
      trims.set(Number(trim[1]), { width: Math.abs(x1 - x0), height: Math.abs(y1 - y0) });
      continue;
    }
    const rot = /^Page\s+(\d+)\s+rot:\s+(-?\d+)/.exec(line);
    if (rot) turns.set(Number(rot[1]), ((Number(rot[2]) % 360) + 360) % 360);
  }
  const shapes: Shape[] = [];
  for (let page = 1; trims.has(page); page++) {
    const box = trims.get(page) as Shape;
    const usable = box.width >= 1 && box.height >= 1 && Number.isFinite(box.width * box.height);
    const shape = usable ? box : FALLBACK;
    const sideways = turns.get(page) === 90 || turns.get(page) === 270;
    shapes.push(sideways ? { width: shape.height, height: shape.width } : shape);
  }
  return shapes;
};

/**
 * The distinct shapes (the first page's of each), and for each page the number (from 1) of the
 * stamp page that marks it: qpdf 11 takes one --overlay, whose `--from` lists a stamp page for
 * each page of `--to`.
 */
export const shapeGroups = (shapes: Shape[]): { shapes: Shape[]; stampOf: number[] } => {
  const keys = new Map<number, number>();
  const distinct: Shape[] = [];
  const stampOf = shapes.map((shape) => {
    const key = Math.round(Math.log(shape.width / shape.height) / Math.log(SAME_SHAPE));
    let stamp = keys.get(key);
    if (stamp === undefined) {
      distinct.push(shape);
      stamp = distinct.length;
      keys.set(key, stamp);
    }
    return stamp;
  });
  return { shapes: distinct, stampOf };
};
