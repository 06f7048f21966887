// Right-to-left text put in the order it is read (src/pdf/bidiText.ts): poppler gives letters and
// words as they stand on the page, left to right. The visual strings below are what pdftotext
// -tsv gave for a page printed by Chromium (test/fixtures/rtl).
import { describe, expect, it } from 'vitest';
import {
  lineAsRead,
  readingOrder,
  shapedForms,
  withoutMarks,
  wordAsRead,
} from '../../src/pdf/bidiText.ts';

const asRead = (standing: string[]) => lineAsRead(standing, (word) => word).map(wordAsRead);

describe('a word as read', () => {
  it('spells an Arabic or Hebrew word as it is typed', () => {
    expect(wordAsRead('ملاعلاب')).toBe('بالعالم');
    expect(wordAsRead('םולש')).toBe('שלום');
    // the mark stays on its letter: ḥāʼ with its fatha first
    expect(wordAsRead('يبيبَح')).toBe('حَبيبي');
  });

  it('puts punctuation where it is read: after the word', () => {
    expect(wordAsRead('.هبناجب')).toBe('بجانبه.');
    expect(wordAsRead('،ةلواطلا')).toBe('الطاولة،');
    expect(wordAsRead(',םלוע')).toBe('עולם,');
  });

  it('leaves left-to-right words and numbers alone, in either script', () => {
    for (const word of ['English', '2026', 'x²', '(3.1)', 'naïve', '٢٠٢٦']) {
      expect(wordAsRead(word)).toBe(word);
    }
  });

  it('keeps a number’s digits in their order inside a right-to-left word', () => {
    // ٢٠٢٦م ("2026 AD"): the number stands right of the meem's left
    expect(wordAsRead('م٢٠٢٦')).toBe('٢٠٢٦م');
  });

  it('leaves a word with a space in it alone: one glyph mapped to a whole text, already as read', () => {
    expect(wordAsRead('حَبيبي habibi')).toBe('حَبيبي habibi');
    expect(wordAsRead('حَبيبي ')).toBe('حَبيبي ');
    expect(wordAsRead(' حَبيبي')).toBe(' حَبيبي');
  });

  it('turns Arabic presentation forms into the letters people type', () => {
    // U+FEDF U+FEFC: lam initial, lam-alef final, as typed; standing left to right, reversed
    expect(shapedForms('\ufedf\ufefc')).toBe('للا');
    expect(wordAsRead('\ufefc\ufedf')).toBe('للا');
  });
});

describe('a line as read', () => {
  it('reads a right-to-left line from its right end', () => {
    expect(asRead(['ملاعلاب', 'ابحرم'])).toEqual(['مرحبا', 'بالعالم']);
  });

  it('keeps a left-to-right run in its own order inside it, numbers too', () => {
    const standing = ['.اضيأ', 'Open', 'Source', 'ةرابعو', '،رطسلا', 'طسو', 'يف'];
    expect(asRead(standing).join(' ')).toBe('في وسط السطر، وعبارة Open Source أيضا.');
    expect(asRead(['ةملكلاو', '2026', 'ددعلا']).join(' ')).toBe('العدد 2026 والكلمة');
    // two numbers side by side in a right-to-left line are read from the right, as the bidi
    // rule lays them out
    expect(asRead(['2027', '2026', 'نيماعلا']).join(' ')).toBe('العامين 2026 2027');
  });

  it('keeps a right-to-left run in a left-to-right line where it stands, read from its right', () => {
    expect(asRead(['the', 'word', 'םלוע', 'םולש', 'means', 'peace']).join(' ')).toBe(
      'the word שלום עולם means peace',
    );
  });

  it('gives back the very same words where none is right to left', () => {
    const words = ['a', 'plain', 'line'];
    expect(lineAsRead(words, (w) => w)).toBe(words);
  });

  it('gives a neutral between two runs of one direction theirs, between two directions the line’s', () => {
    const dir = (c: string) =>
      /[RS]/.test(c) ? ('rtl' as const) : /[LM]/.test(c) ? ('ltr' as const) : ('neutral' as const);
    // between two right-to-left letters, a neutral is read with them
    expect(readingOrder([...'LM R-S'], dir, 'ltr').join('')).toBe('LM S-R');
    // in a right-to-left line, the neutral between L and R is the line's: read after the R run
    expect(readingOrder(['L', '-', 'R'], dir, 'rtl')).toEqual(['R', '-', 'L']);
  });
});

describe('the plain pass’s text', () => {
  it('is in reading order already: its embedding marks are dropped', () => {
    expect(withoutMarks('\u202bمرحبا بالعالم\u202c')).toBe('مرحبا بالعالم');
    expect(withoutMarks('see \u202bשלום\u202c here')).toBe('see שלום here');
  });
});
