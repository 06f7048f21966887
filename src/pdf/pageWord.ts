// A word of a page with its box: fractions of the page as the reader shows it (the crop box,
// upright), from its top-left corner. The text pass makes them (./textPass.ts), words.json
// keeps them, lines.json joins them (./pageLines.ts).
export type PageWord = { x: number; y: number; w: number; h: number; t: string };

/** A page of more words than this is a table of numbers: the first ones are plenty to light. */
export const MAX_WORDS = 20_000;

/** A fraction of the page to five decimals (a hundred-thousandth of the page: under a pixel). */
export const round = (n: number) => Math.round(n * 100_000) / 100_000;
