// The lines the text pass read in another order than their words stand (a line with
// right-to-left letters: ./bidiText.ts), kept for lines.json (./pageLines.ts): such a line is one
// line there, as poppler and its paragraph's direction gave it, where the rule that joins words
// standing beside each other would split it (a left-to-right run in it is read from its far end)
// or join it to the next column's. Kept beside the words, not in them, so words.json keeps its
// shape: a word that lost the mark on the way (a copy) is grouped by where it stands, as any.
import type { Direction } from './bidiText.ts';
import type { PageWord } from './pageWord.ts';

/** How many words, which way the line is read, and its text as the page's text has it. */
export type ReadingLine = { words: number; direction: Direction; text: string };

const lines = new WeakMap<PageWord, ReadingLine>();

/** `words`, read in this order, are one line read `direction`wards, whose text is `text`. */
export const markReadingLine = (words: readonly PageWord[], direction: Direction, text: string) => {
  const [first] = words;
  if (first) lines.set(first, { words: words.length, direction, text });
};

/** The line a word begins, if the text pass read one from it. */
export const readingLineAt = (word: PageWord): ReadingLine | undefined => lines.get(word);
