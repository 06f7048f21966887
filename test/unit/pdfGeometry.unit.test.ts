// Page geometry for the PDF adapter: pdfinfo's page sizes turned upright, and the ranges of pages
// the pdftoppm processes render.
import { describe, expect, it } from 'vitest';
import { type PagesTask, planTasks, sizedRuns, type Task } from '../../src/pdf/pageRanges.ts';
import { type PageGeometry, parsePageSizes } from '../../src/pdf/pageSizes.ts';

/** Asserts ranges (as [first, last]) cover pages 1..pages once each, in order, without gaps. */
const expectExactCover = (ranges: [number, number][], pages: number) => {
  let next = 1;
  for (const [first, last] of ranges) {
    expect(first, `range ${first}-${last} starts where the previous ended`).toBe(next);
    expect(last, `range ${first}-${last} is not empty`).toBeGreaterThanOrEqual(first);
    next = last + 1;
  }
  expect(next - 1, 'last page covered').toBe(pages);
};

const sized = (n: number, width = 612, height = 792): PageGeometry[] =>
  Array.from({ length: n }, (_, i) => ({ position: i + 1, width, height, rotation: 0 }));

/** Pages 1..n, those in `zero` with a 0x0 size. */
const withZero = (n: number, zero: number[]): PageGeometry[] =>
  sized(n).map((p) => (zero.includes(p.position) ? { ...p, width: 0, height: 0 } : p));

describe('parsePageSizes', () => {
  const info = (pages: { size: string; rot?: number }[]) =>
    [
      'Producer:        pdfTeX-1.40.25',
      `Pages:           ${pages.length}`,
      ...pages.flatMap((p, i) => [
        `Page ${String(i + 1).padStart(4)} size:  ${p.size}`,
        ...(p.rot === undefined ? [] : [`Page ${String(i + 1).padStart(4)} rot:   ${p.rot}`]),
      ]),
      'File size:       15860 bytes',
      'Optimized:       no',
      'PDF version:     1.5',
    ].join('\n');

  it('reads each page in order with its size in points', () => {
    expect(
      parsePageSizes(
        info([
          { size: '612 x 792 pts (letter)', rot: 0 },
          { size: '792 x 612 pts (letter)', rot: 0 },
        ]),
      ),
    ).toEqual([
      { position: 1, width: 612, height: 792, rotation: 0 },
      { position: 2, width: 792, height: 612, rotation: 0 },
    ]);
  });

  it('rounds sizes to whole points', () => {
    const [a4, odd, tiny] = parsePageSizes(
      info([
        { size: '595.276 x 841.89 pts (A4)', rot: 0 },
        { size: '489.6 x 734.4 pts', rot: 0 },
        { size: '2834.65 x 283.46 pts', rot: 0 },
      ]),
    );
    expect(a4).toMatchObject({ width: 595, height: 842 });
    expect(odd).toMatchObject({ width: 490, height: 734 });
    expect(tiny).toMatchObject({ width: 2835, height: 283 });
  });

  it.each([
    [0, 595, 842],
    [90, 842, 595],
    [180, 595, 842],
    [270, 842, 595],
  ])('with rotation %i the upright size is %i x %i', (rot, width, height) => {
    expect(parsePageSizes(info([{ size: '595.276 x 841.89 pts (A4)', rot }]))).toEqual([
      { position: 1, width, height, rotation: rot },
    ]);
  });

  it('normalises rotations outside 0-359 (negative, or over a full turn)', () => {
    const pages = parsePageSizes(
      info([
        { size: '612 x 792 pts', rot: -90 },
        { size: '612 x 792 pts', rot: 450 },
        { size: '612 x 792 pts', rot: 360 },
      ]),
    );
    expect(pages.map((p) => [p.rotation, p.width, p.height])).toEqual([
      [270, 792, 612],
      [90, 792, 612],
      [0, 612, 792],
    ]);
  });

  it('takes rotation 0 when pdfinfo gives no rot line', () => {
    expect(parsePageSizes(info([{ size: '400 x 200 pts' }]))).toEqual([
      { position: 1, width: 400, height: 200, rotation: 0 },
    ]);
  });

  it('keeps a 0x0 page as 0x0 (the adapter decides what to show)', () => {
    expect(parsePageSizes(info([{ size: '0 x 0 pts', rot: 90 }]))).toEqual([
      { position: 1, width: 0, height: 0, rotation: 90 },
    ]);
  });

  it('finds no pages in output without page lines', () => {
    expect(parsePageSizes('Pages:           3\nFile size:       10 bytes\n')).toEqual([]);
    expect(parsePageSizes('')).toEqual([]);
  });

  it('orders pages by number whatever order the lines come in', () => {
    const text = [
      'Page    2 size:  100 x 200 pts',
      'Page    1 rot:   90',
      'Page    1 size:  300 x 400 pts',
    ].join('\n');
    expect(parsePageSizes(text)).toEqual([
      { position: 1, width: 400, height: 300, rotation: 90 },
      { position: 2, width: 100, height: 200, rotation: 0 },
    ]);
  });
});

describe('planTasks', () => {
  const pagesOf = (tasks: Task[], rendition: string) =>
    tasks.filter((t): t is PagesTask => t.kind === 'pages' && t.rendition === rendition);

  it("starts with page 1's three renditions, then the text before the largest rendition", () => {
    const tasks = planTasks(sized(10));
    expect(
      tasks.map((t) => (t.kind === 'text' ? 'text' : `${t.rendition} ${t.first}-${t.last}`)),
    ).toEqual(['max 1-1', 'mid 1-1', 'min 1-1', 'min 2-10', 'mid 2-10', 'text', 'max 2-10']);
  });

  it('gives a one-page document its three renditions and the text', () => {
    expect(planTasks(sized(1))).toHaveLength(4);
  });

  it('covers every page once in each rendition, for any mix of sized and zero-size pages', () => {
    for (let pages = 1; pages <= 8; pages++) {
      for (let mask = 0; mask < 1 << pages; mask++) {
        const zero = Array.from({ length: pages }, (_, i) => i + 1).filter(
          (p) => mask & (1 << (p - 1)),
        );
        const tasks = planTasks(withZero(pages, zero));
        expect(tasks.filter((t) => t.kind === 'text')).toHaveLength(1);
        for (const rendition of ['max', 'mid', 'min']) {
          const ranges = pagesOf(tasks, rendition).sort((a, b) => a.first - b.first);
          expectExactCover(
            ranges.map((r): [number, number] => [r.first, r.last]),
            pages,
          );
          for (const range of ranges.filter((r) => !r.sized)) {
            expect(range.first).toBe(range.last);
            expect(zero).toContain(range.first);
          }
        }
      }
    }
  });
});

describe('sizedRuns', () => {
  it('gives each zero-size page a range of its own, between contiguous sized runs', () => {
    expect(sizedRuns(withZero(8, [1, 4, 5, 8]))).toEqual([
      { first: 1, last: 1, sized: false },
      { first: 2, last: 3, sized: true },
      { first: 4, last: 4, sized: false },
      { first: 5, last: 5, sized: false },
      { first: 6, last: 7, sized: true },
      { first: 8, last: 8, sized: false },
    ]);
  });

  it('treats a page with only one zero side as having no size', () => {
    const geometry = sized(3);
    geometry[1] = { position: 2, width: 612, height: 0, rotation: 0 };
    expect(sizedRuns(geometry)).toEqual([
      { first: 1, last: 1, sized: true },
      { first: 2, last: 2, sized: false },
      { first: 3, last: 3, sized: true },
    ]);
  });
});
