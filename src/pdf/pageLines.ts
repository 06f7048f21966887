// Every page's lines in one small file per version (lines.json), for the reader's text in place
// (src/reader/client/textInPlace.ts): a page jumped to shows its text where it stands until its
// image comes. One file for the whole document, fetched once a reader's first page is in, so that
// a jump anywhere draws in its first frame; per page, a word's box each (words.json, for search
// highlights) costs three times the bytes of a box a line (the why3 manual: 474 KB against
// 153 KB compressed, for 184 pages), and 40 words a line cost the reader 40 elements to lay out.
//
// The lines come from the words in the order the text pass read them (its flows, blocks and
// lines: ./textPass.ts): a word goes on the line before it when it stands beside the line's last
// word (after it, or before it in right-to-left text) at the same height. A line split or joined
// where poppler would not is drawn a little off for the moment the image takes, never lost. A
// line with right-to-left letters is poppler's line whole, in the order the text pass read it
// (./readingLines.ts): its words are not read in the order they stand.
import type { PageWord } from './pageWord.ts';
import { type ReadingLine, readingLineAt } from './readingLines.ts';

/**
 * A line: its box (fractions of the page as shown, from its top-left corner) and its text. The
 * box spans its words across; down, it is the words' most of its characters are in (an exponent,
 * a larger initial or a sum's limits would make it taller, and the reader draws a line's letters
 * at its box's height: that line would stand out larger than its neighbours). A line the text
 * pass read right to left, or left to right with right-to-left letters in it, starts with a mark
 * of its direction (U+200F, U+200E) for the reader.
 */
export type PageLine = [x: number, y: number, w: number, h: number, text: string];

/** Two words of a line overlap by at least this share of the shorter one's height (an exponent's: 0.3-0.5). */
const SAME_HEIGHT = 0.3;
/** ... and stand at most this many line heights apart (justified text; not the next column). */
const WIDEST_GAP = 2;
/** ... or overlap by at most this share of the height (kerned, or a mark set over a letter). */
const OVERLAP = 0.3;
/** A ten-thousandth of the page: a tenth of a pixel at the widest image. */
const round = (n: number) => Math.round(n * 10_000) / 10_000;

/**
 * The lines of a page's words. `aspect` is the page's width over its height as shown: a word's
 * gap across (a share of the width) is compared with its height (a share of the height).
 */
export const linesOf = (words: readonly PageWord[], aspect: number): PageLine[] => {
  const lines: PageLine[] = [];
  let line: PageWord[] = [];
  let last: PageWord | null = null;
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as PageWord;
    const read = readingLineAt(word);
    if (read) {
      // a line the text pass read in its own order: one line, whatever stands beside it
      if (line.length > 0) lines.push(lineOf(line));
      const whole = words.slice(i, i + read.words);
      lines.push(lineOf(whole, read));
      i += whole.length - 1;
      line = [];
      last = null;
      continue;
    }
    if (last && !beside(last, word, aspect)) {
      lines.push(lineOf(line));
      line = [];
    }
    line.push(word);
    last = word;
  }
  if (line.length > 0) lines.push(lineOf(line));
  return lines;
};

/** Right-to-left and left-to-right marks: a line's direction to the reader (dir="auto"). */
const MARK = { rtl: '\u200f', ltr: '\u200e' };

/**
 * A line of `words`: its box across them all, as high as the words most of its characters are
 * in; its text theirs, or the text pass's after a mark of its direction where it read the line.
 */
const lineOf = (words: readonly PageWord[], read?: ReadingLine): PageLine => {
  let x0 = Number.POSITIVE_INFINITY;
  let x1 = Number.NEGATIVE_INFINITY;
  for (const word of words) {
    x0 = Math.min(x0, word.x);
    x1 = Math.max(x1, word.x + word.w);
  }
  // The height most of its characters stand at (a weighted median): an exponent, an initial or
  // a fallback font's digits do not set it.
  const byHeight = [...words].sort((a, b) => a.h - b.h);
  const characters = words.reduce((sum, word) => sum + word.t.length, 0);
  let seen = 0;
  let middle = byHeight[0] as PageWord;
  for (const word of byHeight) {
    middle = word;
    seen += word.t.length;
    if (seen * 2 >= characters) break;
  }
  // (a line read in its own order: its text as the page's text has it, read character by
  // character, where its words alone would leave a number's sign or a word across two runs
  // as it stands)
  const text = read ? MARK[read.direction] + read.text : words.map((word) => word.t).join(' ');
  return [round(x0), round(middle.y), round(x1 - x0), round(middle.h), text];
};

/** Whether `b`, read after `a`, goes on a's line. */
const beside = (a: PageWord, b: PageWord, aspect: number) => {
  const overlap = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  if (overlap < SAME_HEIGHT * Math.min(a.h, b.h)) return false;
  const height = Math.max(a.h, b.h);
  // The gaps in heights of the page: after a (left to right), or before it (right to left).
  const after = ((b.x - (a.x + a.w)) * aspect) / height;
  const before = ((a.x - (b.x + b.w)) * aspect) / height;
  const near = (gap: number) => gap >= -OVERLAP && gap <= WIDEST_GAP;
  return near(after) || near(before);
};

/** lines.json's pages: each page's lines, in page order (pages[0] is page 1). */
export const linesOfPages = (
  pages: readonly { words: PageWord[]; width: number; height: number }[],
): PageLine[][] =>
  pages.map((page) =>
    linesOf(page.words, page.width > 0 && page.height > 0 ? page.width / page.height : 0.75),
  );
