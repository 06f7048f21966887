// Right-to-left text in the order it is read. poppler gives a line's words, and a word's letters,
// in the order they stand on the page, left to right: its TextOutputDev makes a word of glyphs
// each placed after the one before, so an Arabic or Hebrew word drawn as Chromium, LibreOffice
// and most producers draw it (glyphs left to right) comes out spelt backwards, and a line's words
// last first. poppler's plain output puts them back (TextOutputDev's reorderText) and wraps the
// runs in embedding marks; its TSV and -bbox output, which the text pass reads, do not. Stored as
// they come, search finds no Arabic word and a screen reader reads it backwards.
//
// `readingOrder` undoes the visual order as the Unicode bidirectional algorithm would lay the text
// out with one level of embedding: each character (or word) is right-to-left, left-to-right
// (letters of other scripts, and digits, which read left to right in either) or neutral; a neutral
// between two of one direction takes it, any other the line's; then, in a right-to-left line, the
// whole is reversed and each left-to-right run put back in its order; in a left-to-right one,
// each right-to-left run is reversed. poppler's own rule is the same but for neutrals at the edge
// of a run, which it gives to the run ("العدد  2026والكلمة" where this gives "العدد 2026 والكلمة").
//
// What no rule here can mend: a glyph mapped to several letters (a lam-alef ligature) is reversed
// with its run as the plain pass reverses it. A word with white space in it is one glyph mapped
// to a whole text (poppler ends a word at every space glyph), already in reading order: left as
// it is.
// Arabic presentation forms (U+FB50–U+FDFF, U+FE70–U+FEFE), which some fonts map their glyphs
// to, become the letters people type (NFKC), so a search for a word finds it.

/** Letters of the scripts written right to left (their digits aside: they read left to right). */
const RTL_SCRIPT =
  /[\p{Script=Hebrew}\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}\p{Script=Samaritan}\p{Script=Mandaic}\p{Script=Adlam}\p{Script=Hanifi_Rohingya}]/u;
/** Whether a text holds anything right to left at all: the test every text pays. */
export const hasRtl = (text: string) => RTL_SCRIPT.test(text);

type Direction = 'rtl' | 'ltr' | 'neutral';

export const directionOfCharacter = (c: string): Direction =>
  /\p{Nd}/u.test(c) ? 'ltr' : RTL_SCRIPT.test(c) ? 'rtl' : /\p{L}/u.test(c) ? 'ltr' : 'neutral';

/**
 * A text's direction by its letters: right to left where they are most. Digits do not count: a
 * number reads left to right inside, but takes the direction around it (as the bidi rule's N1
 * has it), so a word or a line of numbers alone is neutral.
 */
export const directionOf = (text: string): Direction => {
  let balance = 0;
  for (const c of text) {
    if (RTL_SCRIPT.test(c)) {
      if (!/\p{Nd}/u.test(c)) balance -= 1;
    } else if (/\p{L}/u.test(c)) balance += 1;
  }
  return balance < 0 ? 'rtl' : balance > 0 ? 'ltr' : 'neutral';
};

/**
 * `items` (characters of a word, or words of a line), given in the order they stand from left
 * to right, in the order they are read, in a line read `line`wards.
 */
export const readingOrder = <T>(
  items: readonly T[],
  directionOfItem: (item: T) => Direction,
  line: 'rtl' | 'ltr',
): T[] => {
  const given = items.map(directionOfItem);
  // Neutrals: the direction on both sides of them where it is one, the line's where not.
  const resolved: ('rtl' | 'ltr')[] = given.map((d) => (d === 'neutral' ? line : d));
  for (let i = 0; i < given.length; ) {
    if (given[i] !== 'neutral') {
      i += 1;
      continue;
    }
    let end = i;
    while (end < given.length && given[end] === 'neutral') end += 1;
    const before = i > 0 ? given[i - 1] : line;
    const after = end < given.length ? given[end] : line;
    if (before === after) for (let k = i; k < end; k++) resolved[k] = before as 'rtl' | 'ltr';
    i = end;
  }
  // The runs against the line's direction are reversed where they stand; a right-to-left line
  // then read whole from its right end. (Into a new array: in place, a line of many runs, as a
  // hostile one alternating scripts word by word, cost its length squared.)
  const out: T[] = [];
  const against = line === 'rtl' ? 'ltr' : 'rtl';
  for (let i = 0; i < items.length; ) {
    let end = i + 1;
    while (end < items.length && (resolved[end] === against) === (resolved[i] === against))
      end += 1;
    if (resolved[i] === against) for (let k = end - 1; k >= i; k--) out.push(items[k] as T);
    else for (let k = i; k < end; k++) out.push(items[k] as T);
    i = end;
  }
  return line === 'rtl' ? out.reverse() : out;
};

/**
 * A line's words, given as they stand left to right, in the order they are read: the same array
 * where none is right to left.
 */
export const lineAsRead = <T>(words: readonly T[], textOf: (word: T) => string): readonly T[] => {
  if (!words.some((word) => hasRtl(textOf(word)))) return words;
  const line = directionOf(words.map(textOf).join('')) === 'rtl' ? 'rtl' : 'ltr';
  return readingOrder(words, (word) => directionOf(textOf(word)), line);
};

/** A word as poppler gives it (letters left to right as they stand) with its letters as read. */
export const wordAsRead = (word: string): string => {
  const text = hasRtl(word) && !/\s/.test(word) ? lettersAsRead(word) : word;
  return shapedForms(text);
};

const lettersAsRead = (word: string) => {
  const letters = Array.from(word);
  return readingOrder(
    letters,
    directionOfCharacter,
    directionOf(word) === 'ltr' ? 'ltr' : 'rtl',
  ).join('');
};

/** Arabic presentation forms as the letters people type. */
export const shapedForms = (text: string) =>
  text.replace(/[\ufb50-\ufdff\ufe70-\ufefe]+/g, (forms) => forms.normalize('NFKC'));

/**
 * Text from poppler's plain output: its runs are in reading order already, between embedding
 * marks (RLE, LRE ... PDF) that have done their work.
 */
export const withoutMarks = (text: string) => shapedForms(text.replace(/[\u202a-\u202e]/g, ''));
