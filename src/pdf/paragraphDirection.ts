// Which way a paragraph holding right-to-left letters is read: the direction its lines are laid
// out in, which decides the order of a line that mixes scripts (./bidiText.ts). A count of the
// letters of each line is not it: an Arabic line naming "Open Source Flipbook Server" has more
// Latin letters than Arabic, and an English one quoting an Arabic title more Arabic. What tells
// is how the lines are laid out: a sentence's full stop ends up at a right-to-left line's left
// end and a left-to-right one's right end, and a right-to-left paragraph's lines start at the
// right edge of their column and end short of the left (its last line at least, when justified),
// a left-to-right one's the other way (LibreOffice sets right-to-left paragraphs flush left when
// asked: the full stop counts double). Each line of the paragraph (poppler's block) votes; where
// none does (centred, a single full line, no full stop), the paragraph's letters decide, then the
// page's.

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
 * Each line's paragraph direction, for a page's lines in poppler's order (lines without
 * right-to-left letters: left to right, as they are).
 */
export const paragraphDirections = (lines: readonly StandingLine[]): Direction[] => {
  const directions: Direction[] = lines.map(() => 'ltr');
  const rtl = lines.map((line) => line.words.some((w) => hasRtl(w.said)));
  if (!rtl.some(Boolean)) return directions;
  const textOf = (group: readonly StandingLine[]) =>
    group.flatMap((l) => l.words.map((w) => w.said)).join('');
  const pageDirection = directionOf(textOf(lines));
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
  for (const indexes of blocks.values()) {
    if (!indexes.some((i) => rtl[i])) continue;
    const block = indexes.map((i) => lines[i] as StandingLine);
    // The column: the paragraph's own lines where it has several, else its flow's; a line alone
    // in its flow (poppler makes a flow of each line of narrow columns) has none to go by.
    const flow = flows.get((block[0] as StandingLine).flow) ?? [];
    const column = block.length > 1 ? around(block) : flow.length > 1 ? around(flow) : null;
    let votes = 0;
    for (const line of block) {
      const { left, right, height } = extentOf(line);
      // (a line set on its side has no left or right edge to go by)
      if (!(height > 0) || right - left < height) continue;
      if (column) {
        const short = { left: left - column.left, right: column.right - right };
        if (short.right < FLUSH * height && short.left > SHORT * height) votes -= 1;
        else if (short.left < FLUSH * height && short.right > SHORT * height) votes += 1;
      }
      // A sentence's end stands at the line's left end in a right-to-left paragraph, at its
      // right end in a left-to-right one: the surer sign (an alignment can be set either way).
      const words = [...line.words].sort((a, b) => a.box.left - b.box.left);
      if (END_FIRST.test(words[0]?.said ?? '')) votes -= 2;
      if (END_LAST.test(words.at(-1)?.said ?? '')) votes += 2;
    }
    const direction: Direction =
      votes < 0
        ? 'rtl'
        : votes > 0
          ? 'ltr'
          : (directionOf(textOf(block)) ?? pageDirection ?? 'ltr');
    for (const i of indexes) directions[i] = direction;
  }
  return directions;
};
