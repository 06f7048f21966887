// Right-to-left text put in the order it is read (src/pdf/bidiText.ts): poppler gives letters and
// words as they stand on the page, left to right. `stand` makes what poppler gives from a text
// as typed: a right-to-left word's letters reversed, as Chromium and LibreOffice draw them.
import { describe, expect, it } from 'vitest';
import {
  type Direction,
  lineAsRead,
  lineTextAsRead,
  readingOrder,
  shapedForms,
  withoutMarks,
  wordAsRead,
} from '../../src/pdf/bidiText.ts';

const RTL = /[\u0590-\u08ff]/;
const stand = (word: string) => (RTL.test(word) ? [...word].reverse().join('') : word);
/** Each word, as it stands, read in a paragraph read the given way, is the text as typed. */
const reads = (cases: [standing: string, paragraph: Direction, typed: string][]) => {
  for (const [standing, paragraph, typed] of cases) {
    expect(wordAsRead(standing, paragraph), standing).toBe(typed);
  }
};
/** A line as read, from its words as they stand left to right, in a paragraph read `paragraph`wards. */
const asRead = (standing: string[], paragraph: Direction) =>
  lineAsRead(standing, (word) => word, paragraph)
    .map((word) => wordAsRead(word, paragraph))
    .join(' ');

describe('a word as read', () => {
  it('spells an Arabic or Hebrew word as it is typed', () => {
    reads([
      ['ملاعلاب', 'rtl', 'بالعالم'],
      ['םולש', 'rtl', 'שלום'],
    ]);
    // a vowel sign, drawn after its letter, stays on it: ḥāʼ with its fatha first
    reads([
      ['يبيبحَ', 'rtl', 'حَبيبي'],
      ['بَتَكَ', 'rtl', 'كَتَبَ'],
      ['תישִׁארֵבְּ', 'rtl', 'בְּרֵאשִׁית'],
    ]);
    // in a left-to-right paragraph too
    expect(wordAsRead('ملاعلاب', 'ltr')).toBe('بالعالم');
  });

  it('puts punctuation where it is read: after the word', () => {
    reads([
      ['.هبناجب', 'rtl', 'بجانبه.'],
      ['،ةلواطلا', 'rtl', 'الطاولة،'],
      [',םלוע', 'rtl', 'עולם,'],
    ]);
  });

  it('reads a word mixing scripts in its paragraph’s direction', () => {
    expect(wordAsRead('Open-ב', 'rtl')).toBe('ב-Open'); // ב-Open Source
    expect(wordAsRead('30-מ', 'rtl')).toBe('מ-30'); // more than 30
    expect(wordAsRead('foo-ירבע', 'ltr')).toBe('foo-עברי');
  });

  it('keeps a number whole and in its order, its separators in it', () => {
    expect(wordAsRead('م٢٠٢٦', 'rtl')).toBe('٢٠٢٦م'); // 2026 AD
    reads([
      ['3.5ב', 'rtl', 'ב3.5'],
      ['12:30ב', 'rtl', 'ב12:30'],
    ]);
    // in right-to-left text, a number's neutrals read around it as the rule laid them
    reads([
      ['،2010', 'rtl', '2010،'],
      ['5-', 'rtl', '-5'],
    ]);
    expect(wordAsRead(',2010', 'rtl', false)).toBe('2010,');
  });

  it('keeps a sign with its number where the number is not Arabic (W5), apart where it is', () => {
    expect(wordAsRead('30%-כב', 'rtl', false)).toBe('בכ-30%');
    expect(wordAsRead('₪99.90', 'rtl', false)).toBe('₪99.90');
    // Chromium draws 50% so in Arabic
    expect(wordAsRead('%50', 'rtl', true)).toBe('50%');
  });

  it('leaves left-to-right words and numbers alone, in either script', () => {
    for (const word of ['English', '2026', 'x²', 'naïve', '٢٠٢٦', 'v2.1', 'https://a.b/c?id=5']) {
      expect(wordAsRead(word, 'rtl')).toBe(word);
      expect(wordAsRead(word, 'ltr')).toBe(word);
    }
    for (const word of ['(3.1)', '50%', '-5', 'x=5']) expect(wordAsRead(word, 'ltr')).toBe(word);
  });

  it('leaves a word with a space in it alone: one glyph mapped to a whole text, already as read', () => {
    reads([
      ['حَبيبي habibi', 'rtl', 'حَبيبي habibi'],
      ['حَبيبي ', 'rtl', 'حَبيبي '],
      [' حَبيبي', 'ltr', ' حَبيبي'],
    ]);
  });

  it('drops the PDF’s own directional controls', () => {
    reads([
      ['\u202bםולש\u202c', 'rtl', 'שלום'],
      ['a\u200fb\u2067', 'ltr', 'ab'],
    ]);
  });

  it('turns Arabic presentation forms into the letters people type', () => {
    // U+FEDF U+FEFC: lam initial, lam-alef final, as typed; standing left to right, reversed
    expect(shapedForms('\ufedf\ufefc')).toBe('للا');
    expect(wordAsRead('\ufefc\ufedf', 'rtl')).toBe('للا');
  });
});

describe('a line as read', () => {
  const typed = (line: string, paragraph: Direction) => {
    // what poppler gives for a line typed so: its words as they stand (the line laid out by the
    // rule being undone), each spelt as drawn
    const order = lineAsRead(line.split(' '), (w) => w, paragraph) as string[];
    return order.map(stand);
  };

  it('reads a right-to-left line from its right end', () => {
    expect(asRead(['ملاعلاب', 'ابحرم'], 'rtl')).toBe('مرحبا بالعالم');
  });

  it('keeps a left-to-right run in its order, however many Latin letters it has', () => {
    for (const line of [
      'يستخدم الفريق نظام Open Source Flipbook Server منذ سنوات',
      'قال John Smith and Jane Doe were here yesterday في المؤتمر',
      'استخدم Microsoft Word',
      'العدد 2026 والكلمة English في وسط السطر، وعبارة Open Source أيضا.',
      'نظام Windows 10 Pro للمكتب',
    ]) {
      expect(asRead(typed(line, 'rtl'), 'rtl')).toBe(line);
    }
    expect(
      asRead(['سنوات', 'منذ', 'Open', 'Source', 'Flipbook', 'Server', 'نظام'].map(stand), 'rtl'),
    ).toBe('نظام Open Source Flipbook Server منذ سنوات');
  });

  it('reads numbers side by side in right-to-left text from the right, each in its own order', () => {
    expect(asRead(['4567', '123', '055', 'فتاهلا', 'مقر'], 'rtl')).toBe('رقم الهاتف 055 123 4567');
    expect(asRead(['1234', '555', '03', 'ןופלט'], 'rtl')).toBe('טלפון 03 555 1234');
    expect(asRead(['٥٦', '٣٤', '١٢'].concat('مقر'), 'rtl')).toBe('رقم ١٢ ٣٤ ٥٦');
  });

  it('keeps a right-to-left run in a left-to-right paragraph where it stands, read from its right', () => {
    for (const line of [
      'The phrase السلام عليكم means peace',
      'Published by دار الكتب العلمية للنشر والتوزيع',
      'the word שלום עולם means peace',
    ]) {
      expect(asRead(typed(line, 'ltr'), 'ltr')).toBe(line);
    }
  });

  it('gives back the very same words in a left-to-right paragraph where none is right to left', () => {
    const words = ['a', 'plain', 'line', '2026'];
    expect(lineAsRead(words, (w) => w, 'ltr')).toBe(words);
  });

  it('gives a neutral between two of one direction theirs, between two directions the paragraph’s', () => {
    const kind = (c: string) =>
      /[RS]/.test(c) ? ('rtl' as const) : /[LM]/.test(c) ? ('ltr' as const) : ('neutral' as const);
    expect(readingOrder([...'LM R-S'], kind, 'ltr').join('')).toBe('LM S-R');
    expect(readingOrder(['L', '-', 'R'], kind, 'rtl')).toEqual(['R', '-', 'L']);
  });
});

describe('a line’s text as read', () => {
  it('reads the whole line character by character: a word standing across two runs too', () => {
    // ב-Open Source, drawn: "Open Source-ב" in one paragraph read right to left
    const standing = ['םינש', ' ', 'רבכ', ' ', 'Open', ' ', 'Source-ב', ' ', 'תשמתשמ'];
    expect(lineTextAsRead(standing, 'rtl')).toBe('משתמשת ב-Open Source כבר שנים');
    // the same words in words.json, one by one: the best they can be
    expect(asRead(['Open', 'Source-ב'], 'rtl')).toBe('Open ב-Source');
  });

  it('joins a number’s pieces where poppler gives each as a word of its own (12 / 05 / 2024, ₪ 99.90)', () => {
    const date = [
      'رالود',
      ' ',
      '1,234.56',
      ' ',
      'غلبملاو',
      ' ',
      '12',
      '/',
      '05',
      '/',
      '2024',
      ' ',
      'خيراتلا',
    ];
    expect(lineTextAsRead(date, 'rtl')).toBe('التاريخ 12/05/2024 والمبلغ 1,234.56 دولار');
    expect(lineTextAsRead(['גוזל', ' ', '₪', '99.90', ' ', 'ריחמה'], 'rtl')).toBe(
      'המחיר ₪99.90 לזוג',
    );
  });

  it('keeps a hyphenated number whole where its digits are not Arabic numbers, apart where they are', () => {
    expect(lineTextAsRead(['054-123-4567', ' ', 'רפסמל'], 'rtl')).toBe('למספר 054-123-4567');
    expect(lineTextAsRead(['2025-06-30-ל'], 'rtl')).toBe('ל-2025-06-30');
    expect(lineTextAsRead(['2025-06-30'], 'ltr')).toBe('2025-06-30');
    // an Arabic date: its groups drawn from the right (Chromium), read from the right
    expect(lineTextAsRead(['15-03-2024', ' ', 'دعوملا'], 'rtl')).toBe('الموعد 2024-03-15');
  });

  it('keeps a vowel sign drawn before its letter (LibreOffice) on that letter', () => {
    expect(wordAsRead('َبَتَك', 'rtl')).toBe('كَتَبَ');
  });

  it('reads a hostile word of 300,000 letters (no call with as many arguments)', () => {
    const read = lineTextAsRead([`.${'ب'.repeat(300_000)}`, ' ', 'abc'], 'rtl');
    // read from the right: abc first, the full stop after the Arabic word
    expect(read).toBe(`abc ${'ب'.repeat(300_000)}.`);
  });

  it('keeps a word with white space in it whole, and drops directional controls', () => {
    expect(lineTextAsRead(['حَبيبي habibi'], 'rtl')).toBe('حَبيبي habibi');
    expect(lineTextAsRead(['\u202bםולש\u202c'], 'rtl')).toBe('שלום');
  });
});

describe('the plain pass’s text', () => {
  it('is in reading order already: its embedding marks are dropped', () => {
    expect(withoutMarks('\u202bمرحبا بالعالم\u202c')).toBe('مرحبا بالعالم');
    expect(withoutMarks('see \u202bשלום\u202c here')).toBe('see שלום here');
  });
});
