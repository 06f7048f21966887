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
// where poppler would not is drawn a little off for the moment the image takes, never lost.
import { hasRtl } from './bidiText.ts';
import type { PageWord } from './pageWords.ts';

/**
 * A line: its box (fractions of the page as shown, from its top-left corner) and its text. The
 * box spans its words across; down, it is its middle word's by height (an exponent, a larger
 * initial or a sum's limits would make it taller, and the reader draws a line's letters at its
 * box's height: that line would stand out larger than its neighbours).
 */
export type PageLine = [x: number, y: number, w: number, h: number, text: string];

/** Two words of a line overlap by at least this share of the shorter one's height (an exponent's: 0.3-0.5). */
const SAME_HEIGHT = 0.3;
/** ... and stand at most this many line heights apart (justified text; not the next column). */
const WIDEST_GAP = 2;
/** ... or overlap by at most this share of the height (kerned, or a mark set over a letter). */
const OVERLAP = 0.3;
/** The longest left-to-right run looked through in a right-to-left line. */
const MOST_IN_RUN = 40;
/** A ten-thousandth of the page: a tenth of a pixel at the widest image. */
const round = (n: number) => Math.round(n * 10_000) / 10_000;

/**
 * The lines of a page's words. `aspect` is the page's width over its height as shown: a word's
 * gap across (a share of the width) is compared with its height (a share of the height).
 */
export const linesOf = (words: readonly PageWord[], aspect: number): PageLine[] => {
  const lines: PageLine[] = [];
  let box = { x0: 0, y0: 0, x1: 0, y1: 0 };
  let texts: string[] = [];
  let last: PageWord | null = null;
  let rtl = false;
  let heights: PageWord[] = [];
  const end = () => {
    if (texts.length === 0) return;
    const { x0, x1 } = box;
    const middle = heights.sort((a, b) => a.h - b.h)[heights.length >> 1] as PageWord;
    lines.push([round(x0), round(middle.y), round(x1 - x0), round(middle.h), texts.join(' ')]);
    texts = [];
    heights = [];
    rtl = false;
  };
  const add = (word: PageWord) => {
    box = {
      x0: Math.min(box.x0, word.x),
      y0: Math.min(box.y0, word.y),
      x1: Math.max(box.x1, word.x + word.w),
      y1: Math.max(box.y1, word.y + word.h),
    };
    texts.push(word.t);
    heights.push(word);
    rtl ||= hasRtl(word.t);
    last = word;
  };
  // In a right-to-left line, words are read in another order than they stand: a word read next
  // may stand at the line's far end (after a left-to-right run: beside the line's box, not its
  // last word), and a left-to-right run (a name, a number) is read from its first word, which
  // stands at the run's far end: it goes on the line when the run's last word stands beside it.
  const near = (word: PageWord) =>
    last !== null &&
    (beside(last, word, aspect) ||
      (rtl &&
        beside(
          { x: box.x0, y: box.y0, w: box.x1 - box.x0, h: box.y1 - box.y0, t: '' },
          word,
          aspect,
        )));
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as PageWord;
    let through = i;
    if (!near(word) && rtl) {
      let j = i;
      while (
        j + 1 < words.length &&
        j - i < MOST_IN_RUN &&
        follows(words[j] as PageWord, words[j + 1] as PageWord, aspect)
      )
        j += 1;
      if (j > i && near(words[j] as PageWord)) through = j;
    }
    if (through === i && !near(word)) {
      end();
      box = { x0: word.x, y0: word.y, x1: word.x + word.w, y1: word.y + word.h };
    }
    for (; i <= through; i++) add(words[i] as PageWord);
    i -= 1;
  }
  end();
  return lines;
};

/** Whether `b`, read after `a`, stands after it, left to right, on its line. */
const follows = (a: PageWord, b: PageWord, aspect: number) => {
  const overlap = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  if (overlap < SAME_HEIGHT * Math.min(a.h, b.h)) return false;
  const after = ((b.x - (a.x + a.w)) * aspect) / Math.max(a.h, b.h);
  return after >= -OVERLAP && after <= WIDEST_GAP;
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
