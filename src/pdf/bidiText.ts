// Right-to-left text in the order it is read. poppler gives a line's words, and a word's letters,
// in the order they stand on the page, left to right: its TextOutputDev makes a word of glyphs
// each placed after the one before, so an Arabic or Hebrew word drawn as Chromium, LibreOffice
// and most producers draw it (glyphs left to right) comes out spelt backwards, and a line's words
// last first. poppler's plain output puts them back (TextOutputDev's reorderText) and wraps the
// runs in embedding marks; its TSV and -bbox output, which the text pass reads, do not. Stored as
// they come, search finds no Arabic word and a screen reader reads it backwards.
//
// `readingOrder` undoes the visual order as the Unicode bidirectional algorithm (UAX #9) lays a
// paragraph of one embedding out, given the paragraph's direction (the text pass decides it from
// where the paragraph's lines stand: ./textPass.ts). Its rules, as they apply to what is seen:
// - letters of right-to-left scripts are right to left, other letters left to right;
// - a number (digits, with a separator between two of them: 3.5, 1,000) reads left to right
//   inside, and beside left-to-right letters it is part of their run (W7); elsewhere it stands
//   as a right-to-left item (N1): two numbers side by side in Arabic are read from the right;
// - a neutral (space, punctuation) between two of one direction takes it, any other the
//   paragraph's (N1, N2);
// - then, from the deepest level up, each run at that level or deeper is reversed (L2): a
//   number or a left-to-right run inside right-to-left text is read in its own order.
// The rule is its own inverse given the levels; the levels are found from the visual order here,
// the same as from the logical order in all but ambiguous cases (`Edition 2026 كتاب` may be
// either). A word without right-to-left letters is left as it stands: `%50`, drawn so in Arabic
// for `50%`, stays so (as in the plain pass); brackets are as the producers' glyphs name them.
//
// What no rule here can mend: a glyph mapped to several letters (a lam-alef ligature: `لا`,
// the word `الله`) is reversed with its run, as in the plain pass. A word with white space in it
// is one glyph mapped to a whole text (poppler ends a word at every space glyph), already in
// reading order: left as it is. Directional marks and embeddings in the PDF's own text are
// dropped: they have done their work, and left in they would reorder the text again.
// Arabic presentation forms (U+FB50–U+FDFF, U+FE70–U+FEFE), which some fonts map their glyphs
// to, become the letters people type (NFKC), so a search for a word finds it.

/** Letters of the scripts written right to left (their digits aside: they read left to right). */
const RTL_SCRIPT =
  /[\p{Script=Hebrew}\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}\p{Script=Samaritan}\p{Script=Mandaic}\p{Script=Adlam}\p{Script=Hanifi_Rohingya}]/u;
/** Whether a text holds anything right to left at all: the test every text pays. */
export const hasRtl = (text: string) => RTL_SCRIPT.test(text);
/** Bidirectional controls (LRM, RLM, ALM, embeddings, overrides, isolates). */
const CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const ARABIC = /\p{Script=Arabic}/u;
/** Whether a text has Arabic letters (its digits are then Arabic numbers, to the rule). */
export const hasArabic = (text: string) => ARABIC.test(text);
/** Percent, per mille, degree, number and currency signs (the rule's ET). */
const SIGN = /^[%‰‱#°\u066a\p{Sc}]$/u;

export type Direction = 'rtl' | 'ltr';
/** What an item (a character, or a word) is to the rule. */
type Kind = Direction | 'number' | 'neutral';

const isLetter = (c: string) => /\p{L}/u.test(c);
const isDigit = (c: string) => /\p{Nd}/u.test(c);

/**
 * A text's direction by its letters: right to left where they are most, `null` where it has none
 * or as many of each. Digits do not count: a number takes the direction around it.
 */
export const directionOf = (text: string): Direction | null => {
  let balance = 0;
  for (const c of text) {
    if (!isLetter(c)) continue;
    balance += RTL_SCRIPT.test(c) ? -1 : 1;
  }
  return balance < 0 ? 'rtl' : balance > 0 ? 'ltr' : null;
};

/** A word as an item of its line: its letters' direction, or a number, or neutral. */
const kindOfWord = (word: string): Kind =>
  directionOf(word) ?? ([...word].some(isDigit) ? 'number' : 'neutral');

/** `items`, given in the order they stand from left to right, in the order they are read. */
export const readingOrder = <T>(
  items: readonly T[],
  kindOf: (item: T) => Kind,
  paragraph: Direction,
  /** the items are words, with spaces between them (not the characters of one) */
  spaced = false,
): T[] => {
  const n = items.length;
  const kinds = items.map(kindOf);
  // W7: a number beside left-to-right letters (the nearest letters on either side) is theirs.
  const nearest = (from: number, step: 1 | -1) => {
    for (let i = from + step; i >= 0 && i < n; i += step) {
      const kind = kinds[i];
      if (kind === 'rtl' || kind === 'ltr') return kind;
    }
    return null;
  };
  for (let i = 0; i < n; i++) {
    if (kinds[i] !== 'number') continue;
    // (a run of numbers looks past itself once)
    let end = i;
    while (end + 1 < n && (kinds[end + 1] === 'number' || kinds[end + 1] === 'neutral')) end += 1;
    // (with no letter on either side, the paragraph's direction: figures alone in a
    // left-to-right line read as they stand)
    const [left, right] = [nearest(i, -1), nearest(end, 1)];
    const beside = left === 'ltr' || right === 'ltr' || (!left && !right && paragraph === 'ltr');
    for (let k = i; k <= end; k++) if (beside && kinds[k] === 'number') kinds[k] = 'ltr';
    i = end;
  }
  // N1, N2: neutrals between two of one direction (numbers right to left) take it.
  const resolved: Kind[] = [...kinds];
  const side = (kind: Kind | undefined): Kind => (kind === 'number' ? 'rtl' : (kind ?? paragraph));
  for (let i = 0; i < n; ) {
    if (kinds[i] !== 'neutral') {
      i += 1;
      continue;
    }
    let end = i;
    while (end < n && kinds[end] === 'neutral') end += 1;
    const before = i > 0 ? side(kinds[i - 1]) : paragraph;
    const after = end < n ? side(kinds[end]) : paragraph;
    for (let k = i; k < end; k++) resolved[k] = before === after ? before : paragraph;
    i = end;
  }
  // Levels (I1, I2), then L2: from the deepest, each run at that level or deeper reversed.
  const base = paragraph === 'rtl' ? 1 : 0;
  const levels = resolved.map((kind) =>
    kind === 'number' ? 2 : kind === 'rtl' ? 1 : base === 1 ? 2 : 0,
  );
  // (Words have a space between them, which between two numbers is right to left (N1): two
  // numbers side by side are two runs. A character of a number is next to the one before.)
  const apart = (a: number, b: number) =>
    spaced && resolved[a] === 'number' && resolved[b] === 'number';
  let order = items.map((_, i) => i);
  for (let level = 2; level >= 1; level--) {
    const next: number[] = [];
    for (let i = 0; i < n; ) {
      let end = i + 1;
      const deep = (levels[order[i] as number] as number) >= level;
      while (
        end < n &&
        (levels[order[end] as number] as number) >= level === deep &&
        !(deep && level === 2 && apart(order[end - 1] as number, order[end] as number))
      )
        end += 1;
      if (deep) for (let k = end - 1; k >= i; k--) next.push(order[k] as number);
      else for (let k = i; k < end; k++) next.push(order[k] as number);
      i = end;
    }
    order = next;
  }
  return order.map((i) => items[i] as T);
};

/**
 * A line's words, given as they stand left to right, in the order they are read in a paragraph
 * read `paragraph`wards: the same array in a left-to-right one where none is right to left.
 */
export const lineAsRead = <T>(
  words: readonly T[],
  textOf: (word: T) => string,
  paragraph: Direction,
): readonly T[] => {
  if (paragraph === 'ltr' && !words.some((word) => hasRtl(textOf(word)))) return words;
  return readingOrder(words, (word) => kindOfWord(textOf(word)), paragraph, true);
};

/**
 * A word as poppler gives it (letters left to right as they stand) with its letters as read,
 * in a paragraph read `paragraph`wards; without bidirectional controls; presentation forms as
 * letters. `arabic`: whether its line has Arabic letters (its digits are then Arabic numbers).
 */
export const wordAsRead = (
  word: string,
  paragraph: Direction,
  arabic = ARABIC.test(word),
): string => {
  const plain = word.replace(CONTROLS, '');
  // (a number with its signs reads otherwise in right-to-left text: `،2010` as drawn)
  const turned =
    !/\s/.test(plain) && (hasRtl(plain) || (paragraph === 'rtl' && /\p{Nd}/u.test(plain)));
  return shapedForms(turned ? inOrder(piecesOf(plain, arabic), paragraph) : plain);
};

type Piece = { text: string; kind: Kind };

const kindOfCharacter = (c: string): Kind =>
  isDigit(c) ? 'number' : isLetter(c) ? (RTL_SCRIPT.test(c) ? 'rtl' : 'ltr') : 'neutral';

/**
 * A text's characters as pieces of the rule, each with its marks (a vowel sign, a point):
 * Chromium draws a mark after its letter, LibreOffice before it; a text that starts with a mark
 * has them before their letters.
 */
const clustersOf = (text: string): Piece[] => {
  const pieces: Piece[] = [];
  const before = /^\p{M}/u.test(text);
  let marks = '';
  for (const c of text) {
    const last = pieces.at(-1);
    if (/\p{M}/u.test(c)) {
      if (before) marks += c;
      else if (last) last.text += c;
      else pieces.push({ text: c, kind: 'neutral' });
    } else {
      pieces.push({ text: c + marks, kind: kindOfCharacter(c) });
      marks = '';
    }
  }
  if (marks) pieces.push({ text: marks, kind: 'neutral' });
  return pieces;
};

/**
 * Numbers' pieces joined to them: one separator between two digits (W4: 3.5, 1,000, 12/05/2024,
 * ٣٫٥, also where poppler gives each piece as a word of its own; a hyphen or plus too where the
 * digits are not Arabic numbers: 054-123-4567, 2025-06-30 in Hebrew) and, where the digits are not
 * Arabic numbers, a percent or currency sign beside one (W5: ₪99.90, 30%; beside an Arabic
 * number it is not: %50, as Chromium draws it, reads 50%).
 */
const numbersJoined = (pieces: Piece[], arabic: boolean): Piece[] => {
  for (let i = 1; i + 1 < pieces.length; i++) {
    const piece = pieces[i] as Piece;
    if (
      piece.kind === 'neutral' &&
      pieces[i - 1]?.kind === 'number' &&
      pieces[i + 1]?.kind === 'number' &&
      (arabic ? /^[.,:/\u066b\u066c]$/ : /^[.,:/+-]$/).test(piece.text)
    )
      piece.kind = 'number';
  }
  if (!arabic) {
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i] as Piece;
      if (piece.kind !== 'neutral' || !SIGN.test(piece.text)) continue;
      let k = i;
      while (k < pieces.length && SIGN.test((pieces[k] as Piece).text)) k += 1;
      if (pieces[i - 1]?.kind === 'number' || pieces[k]?.kind === 'number')
        for (let m = i; m < k; m++) (pieces[m] as Piece).kind = 'number';
      i = k - 1;
    }
  }
  return pieces;
};

const piecesOf = (text: string, arabic: boolean): Piece[] =>
  numbersJoined(clustersOf(text), arabic);

/** Pieces standing left to right, in the order they are read. */
const inOrder = (pieces: Piece[], paragraph: Direction) =>
  readingOrder(pieces, (piece) => piece.kind, paragraph)
    .map((piece) => piece.text)
    .join('');

/**
 * A line's text as read, from its words as they stand left to right and what stands between
 * them (a space or nothing), read character by character as the whole line: a word that spans
 * two runs (`Source-ב` for `ב-Open Source`) is read right, which word by word it cannot be.
 * A word with white space in it (one glyph's whole text) is kept whole.
 */
export const lineTextAsRead = (standing: readonly string[], paragraph: Direction): string => {
  const arabic = standing.some((text) => ARABIC.test(text));
  const pieces: Piece[] = [];
  for (const text of standing) {
    const plain = text.replace(CONTROLS, '');
    if (/\S\s|\s\S/.test(plain))
      pieces.push({ text: plain, kind: directionOf(plain) ?? 'neutral' });
    // (a loop, not push(...): a hostile word of a million characters would overflow the stack)
    else for (const piece of clustersOf(plain)) pieces.push(piece);
  }
  return shapedForms(inOrder(numbersJoined(pieces, arabic), paragraph));
};

/** Arabic presentation forms as the letters people type. */
export const shapedForms = (text: string) =>
  text.replace(/[\ufb50-\ufdff\ufe70-\ufefe]+/g, (forms) => forms.normalize('NFKC'));

/**
 * Text from poppler's plain output: its runs are in reading order already, between embedding
 * marks (RLE, LRE ... PDF) that have done their work.
 */
export const withoutMarks = (text: string) => shapedForms(text.replace(CONTROLS, ''));
