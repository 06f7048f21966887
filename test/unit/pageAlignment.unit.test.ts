// The alignment a preview's comparison starts from (src/domain/pageAlignment.ts): which page is
// which, so an inserted or removed page does not make every later one "changed".
import { describe, expect, it } from 'vitest';
import { alignPages, likeness, type PageSignature } from '../../src/domain/pageAlignment.ts';

const page = (n: number | string): PageSignature => ({
  text: `Page ${n}: the quick brown fox jumps over the lazy dog number ${n} of the manual`,
  image: '',
});
const photo = (hash: string): PageSignature => ({ text: '', image: hash });
const pages = (...ns: (number | string)[]) => ns.map(page);
const same = (n: number) => Array.from({ length: n }, (_, i) => ({ before: i + 1, after: i + 1 }));

describe('aligning a preview’s pages with the pages before', () => {
  it('pairs every page of an unchanged document with itself', () => {
    expect(alignPages(pages(1, 2, 3), pages(1, 2, 3))).toEqual({
      pairs: same(3),
      inserted: [],
      removed: [],
      moved: [],
    });
  });

  it('finds one page inserted, and pairs every later page with its own (not shifted)', () => {
    const found = alignPages(pages(1, 2, 3, 4, 5), pages(1, 2, 'new', 3, 4, 5));
    expect(found.inserted).toEqual([3]);
    expect(found.removed).toEqual([]);
    expect(found.pairs).toEqual([
      { before: 1, after: 1 },
      { before: 2, after: 2 },
      { before: 3, after: 4 },
      { before: 4, after: 5 },
      { before: 5, after: 6 },
    ]);
  });

  it('finds one page removed', () => {
    const found = alignPages(pages(1, 2, 3, 4, 5), pages(1, 2, 4, 5));
    expect(found.removed).toEqual([3]);
    expect(found.inserted).toEqual([]);
    expect(found.pairs.map((p) => [p.before, p.after])).toEqual([
      [1, 1],
      [2, 2],
      [4, 3],
      [5, 4],
    ]);
  });

  it('pairs a page whose text changed with the page it was (a word changed: one pair to compare)', () => {
    const edited = pages(1, 2, 3, 4);
    edited[2] = { ...page(3), text: page(3).text.replace('lazy', 'sleepy') };
    const found = alignPages(pages(1, 2, 3, 4), edited);
    expect(found).toEqual({ pairs: same(4), inserted: [], removed: [], moved: [] });
  });

  it('tells a page moved from a page inserted and another removed', () => {
    const found = alignPages(pages(1, 2, 3, 4, 5), pages(1, 2, 4, 3, 5));
    expect(found.inserted).toEqual([]);
    expect(found.removed).toEqual([]);
    expect(found.moved).toHaveLength(1);
    expect(found.pairs).toHaveLength(4);
  });

  it('pairs pages without text by their images: one photo replaced, one removed', () => {
    const before = [
      photo('ffff0000ffff0000'),
      photo('0f0f0f0f0f0f0f0f'),
      photo('123456789abcdef0'),
    ];
    const replaced = alignPages(before, [
      before[0],
      photo('00ff00ff00ff00ff'),
      before[2],
    ] as PageSignature[]);
    expect(replaced.pairs).toEqual(same(3)); // the replaced one is paired: changed, at its place
    const removed = alignPages(before, [before[0], before[2]] as PageSignature[]);
    expect(removed.removed).toEqual([2]);
  });

  it('pairs by likeness in a gap of unequal sizes: the rewritten page is changed, the new one inserted', () => {
    const before = pages(1, 2, 3);
    const after = [
      page(1),
      { ...page(2), text: `${page(2).text} and one more sentence` },
      page('brand new'),
      page(3),
    ];
    const found = alignPages(before, after);
    expect(found.pairs.map((p) => [p.before, p.after])).toEqual([
      [1, 1],
      [2, 2],
      [3, 4],
    ]);
    expect(found.inserted).toEqual([3]);
  });

  it('measures likeness: words shared for text, hash bits for pictures, none across', () => {
    expect(likeness(page(1), page(1))).toBe(1);
    expect(likeness(page(1), page(2))).toBeGreaterThan(0.7);
    expect(likeness(photo('ffffffffffffffff'), photo('fffffffffffffff0'))).toBeCloseTo(60 / 64);
    expect(likeness(page(1), photo('ffffffffffffffff'))).toBe(0);
  });

  it('aligns a long document with a small edit quickly (the common beginning and end are taken off)', () => {
    const long = Array.from({ length: 3000 }, (_, i) => page(i));
    const edited = [...long.slice(0, 1500), page('inserted'), ...long.slice(1500)];
    const found = alignPages(long, edited);
    expect(found.inserted).toEqual([1501]);
    expect(found.pairs).toHaveLength(3000);
  });
});
