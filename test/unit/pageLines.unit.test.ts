// The lines of lines.json (src/pdf/pageLines.ts): words read in order go on one line while they
// stand beside each other at one height; a line's box holds its words, its text is theirs.
import { describe, expect, it } from 'vitest';
import { linesOf, linesOfPages } from '../../src/pdf/pageLines.ts';
import { markReadingLine } from '../../src/pdf/readingLines.ts';

/** A word at (x, y), w wide, on a page as wide as it is tall; 0.02 high. */
const word = (t: string, x: number, y: number, w = 0.1, h = 0.02) => ({ x, y, w, h, t });

describe('linesOf', () => {
  it('joins the words of a line, with its box around them all across', () => {
    expect(
      linesOf([word('One', 0.1, 0.1), word('line', 0.21, 0.1), word('here.', 0.32, 0.101)], 1),
    ).toEqual([[0.1, 0.1, 0.32, 0.02, 'One line here.']]);
  });

  it('takes its height from its middle word: an exponent or a tall initial does not make it taller', () => {
    const [line] = linesOf(
      [
        word('E', 0.1, 0.1, 0.02),
        word('=', 0.125, 0.1, 0.02),
        word('mc', 0.15, 0.1, 0.04),
        word('2', 0.19, 0.092, 0.01, 0.012), // raised
        word('holds', 0.205, 0.1),
      ],
      1,
    );
    expect(line).toEqual([0.1, 0.1, 0.205, 0.02, 'E = mc 2 holds']);
    const [initial] = linesOf(
      [word('O', 0.1, 0.08, 0.04, 0.05), word('nce', 0.141, 0.1), word('upon', 0.25, 0.1)],
      1,
    );
    expect(initial?.slice(1, 4)).toEqual([0.1, 0.25, 0.02]);
  });

  it('starts a line where the words go back to the left, or down', () => {
    const lines = linesOf(
      [word('first', 0.1, 0.1), word('line', 0.21, 0.1), word('second', 0.1, 0.13)],
      1,
    );
    expect(lines.map((l) => l[4])).toEqual(['first line', 'second']);
  });

  it('keeps an exponent on its line, but not a word two heights away across a gutter', () => {
    const lines = linesOf(
      [
        word('x', 0.1, 0.1, 0.02),
        word('2', 0.121, 0.093, 0.01, 0.012), // raised: overlaps the x by 0.005 of its 0.012
        word('left', 0.14, 0.1),
        word('right', 0.29, 0.1), // 0.05 after "left": 2.5 of its heights
      ],
      1,
    );
    expect(lines.map((l) => l[4])).toEqual(['x 2 left', 'right']);
  });

  it('reads the page’s aspect: a gap across is measured in heights of the page', () => {
    // 0.03 of a page three times as wide as tall is 0.09 of its height: 4.5 word heights
    const words = [word('a', 0.1, 0.1), word('b', 0.23, 0.1)];
    expect(linesOf(words, 1)).toHaveLength(1);
    expect(linesOf(words, 3)).toHaveLength(2);
  });

  it('joins right-to-left words, read from the right', () => {
    const lines = linesOf([word('حَبيبي', 0.5, 0.1), word('كلمة', 0.39, 0.1)], 1);
    expect(lines).toEqual([[0.39, 0.1, 0.21, 0.02, 'حَبيبي كلمة']]);
  });

  it('keeps a line the text pass read in its own order whole, its text the pass’s after a mark of its direction, beside no other', () => {
    // read: وعبارة Open Source أيضا. ; standing, left to right: أيضا. Open Source وعبارة
    const read = [
      word('وعبارة', 0.7, 0.1),
      word('Open', 0.37, 0.1),
      word('Source', 0.48, 0.1, 0.2),
      word('أيضا.', 0.26, 0.1),
    ];
    // by where they stand alone, "Open" is not beside وعبارة: the line would come apart
    expect(linesOf(read, 1).length).toBeGreaterThan(1);
    markReadingLine(read, 'rtl', 'وعبارة Open Source أيضا.');
    // the next column's line, at the same height, a gap of one line height away
    const next = word('عمود', 0.14, 0.1);
    expect(linesOf([...read, next], 1)).toEqual([
      [0.26, 0.1, 0.54, 0.02, '\u200fوعبارة Open Source أيضا.'],
      [0.14, 0.1, 0.1, 0.02, 'عمود'],
    ]);
  });

  it('gives every page, in order, an empty page as none', () => {
    expect(
      linesOfPages([
        { words: [word('one', 0.1, 0.1)], width: 600, height: 800 },
        { words: [], width: 600, height: 800 },
      ]),
    ).toEqual([[[0.1, 0.1, 0.1, 0.02, 'one']], []]);
  });
});
