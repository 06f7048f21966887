// The reader's pure logic (src/reader/client/layout.ts and searchText.ts): which pages a spread
// shows, their sizes at their own shapes, label runs, search hits and the words they light.
import { describe, expect, it } from 'vitest';
import { altText } from '../../src/reader/client/altText.ts';
import {
  expandLabels,
  imageSizes,
  isSpread,
  onScreen,
  pageForInput,
  pageOfSliderStep,
  renditionWidths,
  sliderStepOf,
  sliderSteps,
  slotSizes,
  spreadOf,
} from '../../src/reader/client/layout.ts';
import { coveredWords, findHits, fold } from '../../src/reader/client/searchText.ts';
import { labelRuns } from '../../src/reader/readerData.ts';

describe('reader layout', () => {
  it('shows the cover alone, then pairs, and a last even page alone', () => {
    expect(spreadOf(1, 8, true)).toEqual([null, 1]);
    expect(spreadOf(3, 8, true)).toEqual([2, 3]);
    expect(spreadOf(8, 8, true)).toEqual([8, null]);
    expect(spreadOf(5, 8, false)).toEqual([5]);
    expect(isSpread(1440, 800)).toBe(true);
    expect(isSpread(390, 700)).toBe(false);
  });

  it('mirrors the order on screen for a right-to-left book', () => {
    expect(onScreen([null, 1], true)).toEqual([1, null]);
    expect(onScreen([2, 3], true)).toEqual([3, 2]);
    expect(onScreen([2, 3], false)).toEqual([2, 3]);
  });

  it('gives each page of a spread its own shape at one shared height', () => {
    const aspect = (n: number) => (n === 2 ? 0.75 : 1.5); // portrait beside landscape
    const [left, right] = slotSizes([2, 3], aspect, 1200, 600);
    expect(left?.h).toBe(right?.h);
    expect((left?.w ?? 0) / (left?.h ?? 1)).toBeCloseTo(0.75);
    expect((right?.w ?? 0) / (right?.h ?? 1)).toBeCloseTo(1.5);
    expect((left?.w ?? 0) + (right?.w ?? 0)).toBeLessThanOrEqual(1200);
    // The empty side beside the cover takes the cover's shape, not page 1's neighbour's.
    const [blank, cover] = slotSizes([null, 1], () => 0.5, 1200, 600);
    expect(blank).toEqual(cover);
  });

  it('describes renditions by their real pixel widths (the long edge is 300/1000/2000)', () => {
    expect(renditionWidths(612, 792)).toEqual([232, 773, 1545]);
    expect(renditionWidths(792, 612)).toEqual([300, 1000, 2000]);
  });

  it('expands label runs and finds a page by label or number', () => {
    const runs = labelRuns(['i', 'ii', '1', '2', '3', 'A-1', 'A-2', '8']);
    expect(runs).toEqual([
      [1, 1, 'i'],
      [2, 1, 'ii'],
      [3, 3, '', 1],
      [6, 2, 'A-', 1],
    ]);
    const labels = expandLabels(runs);
    expect([...labels.entries()]).toEqual([
      [1, 'i'],
      [2, 'ii'],
      [3, '1'],
      [4, '2'],
      [5, '3'],
      [6, 'A-1'],
      [7, 'A-2'],
    ]);
    expect(pageForInput('II', labels, 8)).toBe(2);
    expect(pageForInput('2', labels, 8)).toBe(4); // the printed "2"
    expect(pageForInput('8', labels, 8)).toBe(8);
    expect(pageForInput('9', labels, 8)).toBeNull();
  });
});

describe('the slider', () => {
  it('has a step per spread in spreads, so every step turns, and a step per page alone', () => {
    expect(sliderSteps(8, true)).toBe(5); // 1, 2–3, 4–5, 6–7, 8
    expect(sliderSteps(9, true)).toBe(5); // ..., 8–9
    expect(sliderSteps(8, false)).toBe(8);
    const steps = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => sliderStepOf(n, true));
    expect(steps).toEqual([1, 2, 2, 3, 3, 4, 4, 5]);
    expect([1, 2, 3, 4, 5].map((k) => pageOfSliderStep(k, true))).toEqual([1, 2, 4, 6, 8]);
    for (let n = 1; n <= 9; n++) {
      expect(spreadOf(pageOfSliderStep(sliderStepOf(n, true), true), 9, true)).toEqual(
        spreadOf(n, 9, true),
      );
      expect(pageOfSliderStep(sliderStepOf(n, false), false)).toBe(n);
    }
  });
});

describe('a page image’s alternative text', () => {
  it('reads a contents page’s words without its dot leaders', () => {
    expect(
      altText('Page ii', 'Contents Spring ........ 12 Summer . . . . . . 14 Autumn …… 16'),
    ).toBe('Page ii: Contents Spring 12 Summer 14 Autumn 16');
    expect(altText('Page 3', 'Prices from 1.50 to 2.00 - e.g. A. B. C.')).toBe(
      'Page 3: Prices from 1.50 to 2.00 - e.g. A. B. C.',
    );
    expect(altText('Page 4', '')).toBe('Page 4');
  });
});

describe('reader search', () => {
  const pages = new Map([
    [1, 'The Quick brown fox.\nA quick  study.'],
    [2, 'Nothing here'],
    [3, 'Café QUICK'],
  ]);

  it('counts every hit, case- and accent-insensitively, with snippets in the page’s own case', () => {
    const found = findHits(pages, 'quick');
    expect(found.count).toBe(3);
    expect(found.pages).toBe(2);
    expect(found.hits.map((h) => [h.n, h.match])).toEqual([
      [1, 'Quick'],
      [1, 'quick'],
      [3, 'QUICK'],
    ]);
    expect(findHits(pages, 'cafe').count).toBe(1);
    expect(findHits(pages, 'fox. a').count).toBe(1); // a line break is a space
    expect(fold('Ä  b')).toBe('a b');
  });

  it('lights every word a query covers, across words', () => {
    expect(coveredWords(['The', 'quick', 'brown', 'fox'], 'quick bro')).toEqual([1, 2]);
    expect(coveredWords(['حَبيبي', 'x'], 'حبيبي')).toEqual([0]);
    expect(coveredWords(['a'], '')).toEqual([]);
  });
});

describe('the image size a page asks for', () => {
  it('at most two image pixels per CSS pixel: a 3x phone asks as a 2x screen does', () => {
    expect(imageSizes(390, 3)).toBe('221px'); // 221 x 3 = 663 px: the 1000 px rendition
    expect(imageSizes(390, 2)).toBe('390px');
    expect(imageSizes(390, 1)).toBe('390px');
    expect(imageSizes(1200.2, 1.5)).toBe('1201px');
    // what the browser then takes, on a 3x phone: at least 780 px wide, i.e. mid (773 px for
    // Letter) or max, never max for a page shown 390 px wide
    for (const [w, h] of [
      [612, 792], // Letter: 773 px wide
      [595, 842], // A4: 707 px wide
    ]) {
      const [, mid] = renditionWidths(w as number, h as number);
      expect(mid).toBeGreaterThanOrEqual(Number.parseInt(imageSizes(390, 3), 10) * 3);
    }
  });
});
