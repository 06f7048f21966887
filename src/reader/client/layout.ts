// Which pages the stage shows and how big: pure functions of the book and the stage's size, so
// they are unit-tested without a browser (test/unit/readerClient.unit.test.ts).

/** Spreads on wide screens only: a page pair on a phone would be a pair of stamps. */
export const isSpread = (width: number, height: number): boolean =>
  width >= 720 && width > height * 1.05;

/** A page number, or null for the empty side of a spread. */
export type Side = number | null;

/** A slot's size in CSS pixels. */
export type Slot = { w: number; h: number };

/**
 * The pages shown together with page n, in reading order: [n] alone, or a pair with the cover
 * alone (null marks the empty side) and a last even page alone.
 */
export const spreadOf = (n: number, total: number, spread: boolean): Side[] => {
  if (!spread) return [n];
  if (n === 1) return [null, 1];
  const first = n % 2 === 0 ? n : n - 1;
  return [first, first + 1 <= total ? first + 1 : null];
};

/** Left to right on screen: a right-to-left book shows its reading order mirrored. */
export const onScreen = (pages: Side[], rtl: boolean): Side[] =>
  rtl ? [...pages].reverse() : pages;

/**
 * The slider's steps: one per page, or one per spread when spreads are shown (the cover, then
 * 2–3, 4–5...), so every key press on it turns.
 */
export const sliderSteps = (total: number, spread: boolean): number =>
  spread ? Math.floor(total / 2) + 1 : total;
export const sliderStepOf = (n: number, spread: boolean): number =>
  spread ? Math.floor(n / 2) + 1 : n;
export const pageOfSliderStep = (step: number, spread: boolean): number =>
  spread ? Math.max(1, 2 * (step - 1)) : step;

export const firstOf = (pages: Side[]): number => pages.find((p) => p !== null) ?? 1;
export const lastOf = (pages: Side[]): number => pages.findLast((p) => p !== null) ?? 1;

/**
 * Each slot's size in CSS pixels, every page at its own aspect ratio (width / height): the pages
 * of a spread share one height, as in a bound book, and together fit the stage. An empty side
 * takes its neighbour's shape, so the spine stays where it will be once the book is open; it is
 * drawn as nothing.
 */
export const slotSizes = (
  pages: Side[],
  aspect: (n: number) => number,
  width: number,
  height: number,
): Slot[] => {
  const ratios = pages.map((n) => (n === null ? null : aspect(n)));
  const known = ratios.find((r) => r !== null) ?? 0.75;
  const filled = ratios.map((r) => r ?? known);
  const sum = filled.reduce((a, b) => a + b, 0);
  const h = Math.max(1, Math.min(height, width / sum));
  return filled.map((r) => ({ w: h * r, h }));
};

/**
 * The widths (in image pixels) of a page's three renditions: each is rendered with its long edge
 * at 300, 1000 and 2000 px, so a portrait page's width is less than that.
 */
export const renditionWidths = (w: number, h: number): [number, number, number] => {
  const ratio = w > 0 && h > 0 ? w / h : 0.75;
  const width = (long: number) => (ratio >= 1 ? long : Math.max(1, Math.round(long * ratio)));
  return [width(300), width(1000), width(2000)];
};

/**
 * The `sizes` of a page image shown `cssWidth` CSS pixels wide: the browser then takes the
 * smallest rendition with at most two image pixels per CSS pixel, not the three a phone's screen
 * has (a 3x phone took the 2000 px image for every page: 250-480 KB where the 1000 px one, at
 * 2x, is a third of it and reads as well). Screens of 2x and less get their own density.
 */
export const imageSizes = (
  cssWidth: number,
  density = (globalThis as { devicePixelRatio?: number }).devicePixelRatio || 1,
): string =>
  density <= MAX_DENSITY
    ? `${Math.ceil(cssWidth)}px`
    : `${Math.ceil(cssWidth * (MAX_DENSITY / density) * SLACK)}px`;

const MAX_DENSITY = 2;
/**
 * A rendition a little short of 2x still counts as 2x: a portrait page's 1000 px image is 773 px
 * wide for Letter and 707 for A4, where a 390 px wide page at 2x wants 780.
 */
const SLACK = 0.85;

/** A page's label as the book prints it ("iv", "A-3"), or its number when it has none. */
export const labelOf = (labels: Map<number, string>, n: number): string =>
  labels.get(n) ?? String(n);

// The runs the page's data block carries (written by src/reader/readerData.ts), defined once here
// for both the server that writes them and the script that reads them.

/** [first, count, width, height]: `count` pages from `first` on, all of one size. */
export type SizeRun = [number, number, number, number];

/** Label runs as the page carries them: [first, count, prefix, start] or [first, 1, label]. */
export type LabelRun = [number, number, string, number] | [number, 1, string];

/**
 * Expands the label runs the page carries: [first, count, prefix, start] numbers pages
 * prefix+start, prefix+start+1, ...; [first, 1, label] names one page.
 */
export const expandLabels = (runs: LabelRun[] | undefined): Map<number, string> => {
  const labels = new Map<number, string>();
  for (const run of runs ?? []) {
    const [first, count, prefix, start] = run;
    for (let i = 0; i < count; i++) {
      labels.set(first + i, start === undefined ? prefix : `${prefix}${start + i}`);
    }
  }
  return labels;
};

/** The page a typed label or number names: a label first ("iv", "12" as printed), else a number. */
export const pageForInput = (
  input: string,
  labels: Map<number, string>,
  total: number,
): number | null => {
  const wanted = input.trim();
  if (!wanted) return null;
  const lower = wanted.toLowerCase();
  for (const [n, label] of labels) if (label.toLowerCase() === lower) return n;
  const n = Number(wanted);
  return Number.isInteger(n) && n >= 1 && n <= total ? n : null;
};
