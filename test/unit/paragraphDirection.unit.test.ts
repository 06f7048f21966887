// Which way a paragraph with right-to-left letters is read (src/pdf/paragraphDirection.ts):
// weighed from its full stops, its lines' alignment, its words' scripts and the page's.
import { describe, expect, it } from 'vitest';
import { paragraphDirections, type StandingLine } from '../../src/pdf/paragraphDirection.ts';

/** A line of `words` (as they stand, left to right) from `left` to `right`, 10 high. */
const line = (block: string, left: number, right: number, words: string[]): StandingLine => {
  const width = (right - left) / words.length;
  return {
    flow: '0',
    block,
    words: words.map((said, i) => ({
      said,
      box: { left: left + i * width, top: Number(block) * 20, width: width - 2, height: 10 },
    })),
  };
};

describe('paragraphDirections', () => {
  it('reads left to right, as they are, a page without right-to-left letters', () => {
    const lines = [line('0', 0, 300, ['plain', 'text.']), line('1', 0, 100, ['12', '45'])];
    expect(paragraphDirections(lines)).toEqual(['ltr', 'ltr']);
  });

  it('reads a line of mostly Latin words right to left where its paragraph is set flush right', () => {
    const lines = [
      // the column: 0 to 500
      line('0', 0, 500, ['ملاعلاب', 'ابحرم', 'اذه', 'صن', 'يبرع']),
      // flush right, short of the left: Arabic words around four Latin ones
      line('1', 200, 500, ['تاونس', 'Server', 'Flipbook', 'Source', 'Open', 'ماظن']),
    ];
    expect(paragraphDirections(lines)[1]).toBe('rtl');
  });

  it('reads an English paragraph quoting Arabic left to right: its full stop at the right end', () => {
    const lines = [
      line('0', 0, 500, ['ملاعلاب', 'ابحرم', 'اذه', 'صن', 'يبرع']),
      line('1', 0, 300, ['The', 'phrase', 'مكيلع', 'مالسلا', 'ةمحرو', 'means', 'peace.']),
    ];
    expect(paragraphDirections(lines)[1]).toBe('ltr');
  });

  it('reads a flush-left Arabic line right to left where its full stop stands at its left end', () => {
    const lines = [
      line('0', 0, 500, ['This', 'page', 'is', 'mostly', 'English', 'words']),
      line('1', 0, 300, ['.اضيأ', 'Open', 'Source', 'ةرابعو']),
    ];
    expect(paragraphDirections(lines)[1]).toBe('rtl');
  });

  it('reads a line starting and ending with Latin words left to right, though most of its words are Arabic', () => {
    // the widest line (no alignment to go by), no full stop, on an Arabic page: its first letter,
    // left to right, stands at its left end
    const lines = [
      line('0', 0, 300, ['ملاعلاب', 'ابحرم', 'اذه', 'صن', 'يبرع']),
      line('1', 0, 500, ['The', 'phrase', 'مكيلع', 'مالسلا', 'ةمحرو', 'ةكربو', 'means', 'peace']),
    ];
    expect(paragraphDirections(lines)[1]).toBe('ltr');
  });

  it('reads a row of figures alone the way the page is read', () => {
    const lines = [
      line('0', 0, 500, ['ملاعلاب', 'ابحرم', 'اذه', 'صن', 'يبرع']),
      line('1', 0, 200, ['$', '45.50', '12']),
    ];
    expect(paragraphDirections(lines)).toEqual(['rtl', 'rtl']);
  });
});
