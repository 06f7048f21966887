// Which way a paragraph holding right-to-left letters is read: the direction its lines are laid
// out in, which decides the order of a line that mixes scripts (./bidiText.ts). A count of the
// letters of each line is not it: an Arabic line naming "Open Source Flipbook Server" has more
// Latin letters than Arabic, and an English one quoting an Arabic title more Arabic. What tells
// is how the lines are laid out: a sentence's full stop ends up at a right-to-left line's left
// end and a left-to-right one's right end, and a right-to-left paragraph's lines start at the
// right edge of their column and end short of the left (its last line at least, when justified),
// a left-to-right one's the other way (LibreOffice sets right-to-left paragraphs flush left when
// asked), which of its ends its first letter stands at, and which script most of its words (not
// letters) are in. No one sign is sure; each is weighed (paragraphDirections).

import { type Direction, directionOf, hasRtl } from './bidiText.ts';

export type Box = { left: number; top: number; width: number; height: number };
/** One of poppler's lines: its flow and block, and its words as they stand, left to right. */
export type StandingLine = { flow: string; block: string; words: { said: string; box: Box }[] };

/** A line this many of its heights short of one edge of its column, and within one of the other, votes. */
const SHORT = 2;
const FLUSH = 1;
/** A word that begins, as it stands, with a sentence's end (a full stop, a question mark...). */
const END_FIRST = /^[.!?:;\u060c\u061b\u061f\u06d4]/;
/** ... or ends with one. */
const END_LAST = /[.!?:;\u060c\u061b\u061f\u06d4]$/;

type Extent = { left: number; right: number };

const extentOf = (line: StandingLine) => {
  let left = Number.POSITIVE_INFINITY;
  let right = Number.NEGATIVE_INFINITY;
  let height = 0;
  for (const { box } of line.words) {
    left = Math.min(left, box.left);
    right = Math.max(right, box.left + box.width);
    height = Math.max(height, box.height);
  }
  return { left, right, height };
};

const around = (lines: readonly StandingLine[]): Extent => {
  let left = Number.POSITIVE_INFINITY;
  let right = Number.NEGATIVE_INFINITY;
  for (const line of lines) {
    const e = extentOf(line);
    left = Math.min(left, e.left);
    right = Math.max(right, e.right);
  }
  return { left, right };
};

/**
 * A paragraph laid out by its first letter's direction (the bidirectional algorithm's P2, as a
 * browser's or a word processor's "auto"): read left to right, its first letter is the first
 * line's leftmost; right to left, its rightmost. +1 where only the leftmost is a left-to-right
 * letter, -1 where only the rightmost is a right-to-left one, 0 where both or neither fit.
 */
const firstLetter = (line: StandingLine) => {
  const letters = [...line.words]
    .sort((a, b) => a.box.left - b.box.left)
    .flatMap((w) => Array.from(w.said))
    .filter((c) => /\p{L}/u.test(c));
  if (letters.length === 0) return 0;
  const ltr = !hasRtl(letters[0] as string);
  const rtl = hasRtl(letters.at(-1) as string);
  return ltr === rtl ? 0 : ltr ? 1 : -1;
};

/** +1 for each word mostly of left-to-right letters, -1 for each mostly of right-to-left ones. */
const wordBalance = (lines: readonly StandingLine[]) => {
  let balance = 0;
  for (const line of lines)
    for (const { said } of line.words) {
      const direction = directionOf(said);
      if (direction) balance += direction === 'rtl' ? -1 : 1;
    }
  return balance;
};

/**
 * Each line's paragraph direction, for a page's lines in poppler's order. A paragraph with
 * right-to-left letters is weighed by its signs: its first letter (2.5), its full stops (2), its
 * lines' alignment (2.5 where the page sets lines both ways, else 0.5), which script most of its
 * words are in (1.5), which script most of the page's words are in (0.5); a tie, the page's. A paragraph of no letters at all (a row of figures in a table) on a
 * page with right-to-left letters reads the page's way; any other left to right, as it is.
 */
export const paragraphDirections = (lines: readonly StandingLine[]): Direction[] => {
  const directions: Direction[] = lines.map(() => 'ltr');
  const rtl = lines.map((line) => line.words.some((w) => hasRtl(w.said)));
  if (!rtl.some(Boolean)) return directions;
  const page = Math.sign(wordBalance(lines));
  const pageDirection: Direction = page < 0 ? 'rtl' : 'ltr';
  const flows = new Map<string, StandingLine[]>();
  const blocks = new Map<string, number[]>();
  lines.forEach((line, i) => {
    const flow = flows.get(line.flow);
    if (flow) flow.push(line);
    else flows.set(line.flow, [line]);
    const key = `${line.flow}/${line.block}`;
    const block = blocks.get(key);
    if (block) block.push(i);
    else blocks.set(key, [i]);
  });
  // Each line's alignment in its column: the paragraph's own lines where it has several, else
  // its flow's; a line alone in its flow (poppler makes a flow of each line of narrow columns)
  // has none to go by. -1 flush right and short of the left, +1 the other way.
  const alignment = lines.map((line) => {
    const block = blocks.get(`${line.flow}/${line.block}`) ?? [];
    const flow = flows.get(line.flow) ?? [];
    const column =
      block.length > 1
        ? around(block.map((i) => lines[i] as StandingLine))
        : flow.length > 1
          ? around(flow)
          : null;
    const { left, right, height } = extentOf(line);
    // (a line set on its side has no left or right edge to go by)
    if (!column || !(height > 0) || right - left < height) return 0;
    const short = { left: left - column.left, right: column.right - right };
    if (short.right < FLUSH * height && short.left > SHORT * height) return -1;
    if (short.left < FLUSH * height && short.right > SHORT * height) return 1;
    return 0;
  });
  // Alignment tells where the page sets lines both ways (a browser sets each paragraph by its
  // direction); where every line is set one way (LibreOffice's flush-left Arabic), little.
  const both = alignment.includes(1) && alignment.includes(-1);
  const alignWeight = both ? 2.5 : 0.5;
  for (const indexes of blocks.values()) {
    const block = indexes.map((i) => lines[i] as StandingLine);
    if (!indexes.some((i) => rtl[i])) {
      const letterless = block.every((line) => line.words.every((w) => !/\p{L}/u.test(w.said)));
      if (letterless) for (const i of indexes) directions[i] = pageDirection;
      continue;
    }
    let aligned = 0;
    let ends = 0;
    for (const i of indexes) {
      const line = lines[i] as StandingLine;
      aligned += alignment[i] as number;
      // A sentence's end stands at the line's left end in a right-to-left paragraph, at its
      // right end in a left-to-right one.
      const words = [...line.words].sort((a, b) => a.box.left - b.box.left);
      if (END_FIRST.test(words[0]?.said ?? '')) ends -= 1;
      if (END_LAST.test(words.at(-1)?.said ?? '')) ends += 1;
    }
    const score =
      2.5 * firstLetter(block[0] as StandingLine) +
      2 * Math.sign(ends) +
      alignWeight * Math.sign(aligned) +
      1.5 * Math.sign(wordBalance(block)) +
      0.5 * page;
    const direction: Direction = score < 0 ? 'rtl' : score > 0 ? 'ltr' : pageDirection;
    for (const i of indexes) directions[i] = direction;
  }
  return directions;
};
