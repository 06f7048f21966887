// Each page's text and its words with their boxes, from one `pdftotext -tsv -cropbox` pass: the
// text for search, alternative text and text.txt; the words for search highlights (words.json),
// the reader's text in place, and the names of links (documentStructure.ts). Before, two passes
// did this (plain pdftotext, then -bbox for the links), each a full read of every page's content.
//
// The text is put together from the words as poppler's plain output puts it together from the
// same words (TextOutputDev's dump, "reading order"): each line's words, a line break after each
// line, a blank line after each flow, and a line ending in a hyphen joined to the next line of
// its flow without the hyphen. Measured on the corpus's 950 readable pages (docs/processing.md,
// "One text pass"): the same characters in the same order on every page, the same spaces on 900;
// on the others (formulas, small capitals) a space more or less where poppler measured a gap
// against the line's font size, which the TSV does not carry. Unlike the plain pass, text outside
// the crop box (printers' marks around a trimmed page) is not the page's text: the reader shows
// the crop box, and a search hit there would light nothing.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { resolve as absolute, join } from 'node:path';
import {
  type Direction,
  hasArabic,
  hasRtl,
  lineAsRead,
  lineTextAsRead,
  wordAsRead,
} from './bidiText.ts';
import type { PageGeometry } from './pageSizes.ts';
import { MAX_WORDS, type PageWord, round } from './pageWord.ts';
import { type Box, paragraphDirections, type StandingLine } from './paragraphDirection.ts';
import { type ProcessLimits, runPopplerArgs, ToolFailure } from './poppler.ts';
import { markReadingLine } from './readingLines.ts';
import { storageProblem } from './renderFailure.ts';
import { MAX_FILE_BYTES } from './toolWrappers.ts';

export type TextPass = { texts: string[]; words: PageWord[][] };

/** A page's text beyond this many characters is cut: a hostile page cannot fill the memory. */
export const MAX_PAGE_TEXT = 1_000_000;
/**
 * Words further apart than this share of their height have a space between them: the figure
 * that gave poppler's own spaces on most pages (0.01-0.05 alike; 0.1, poppler's word break,
 * fewer: its gaps are measured against the font size, smaller than a word's box).
 */
const SPACE_GAP = 0.03;

/**
 * The text pass over the whole document. Never fatal for the document's sake: pdftotext's own
 * failure leaves the pages without text or words; a full disk is thrown, so the render is tried
 * again rather than kept textless.
 */
export const readTextPass = async (
  limits: ProcessLimits,
  pdfPath: string,
  work: string,
  geometry: readonly PageGeometry[],
  signal: AbortSignal,
): Promise<TextPass> => {
  const none = { texts: geometry.map(() => ''), words: geometry.map(() => []) };
  try {
    // To a file, not stdout: read in chunks, a hostile file's text is never held whole.
    const file = join(work, 'text.tsv');
    await runPopplerArgs(
      limits,
      'pdftotext',
      ['-tsv', '-cropbox', '-enc', 'UTF-8', absolute(pdfPath), file],
      { signal },
    );
    // (pdftotext dies at the limit, of SIGXFSZ: the file is never larger)
    if ((await stat(file)).size >= (limits.fileBytes ?? MAX_FILE_BYTES)) return none;
    const reader = tsvReader(geometry);
    // In chunks of 1 MB, each cut at its last line break (readline cost twice the parse itself).
    let rest = '';
    for await (const chunk of createReadStream(file, {
      encoding: 'utf8',
      highWaterMark: 1 << 20,
    })) {
      signal.throwIfAborted();
      const lines = (rest + chunk).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) reader.add(line);
    }
    reader.add(rest);
    return reader.end();
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    // pdftotext's own failure (a non-zero status) is the document's: no text.
    if (error instanceof ToolFailure && error.code !== null) return none;
    const storage = storageProblem(error);
    if (storage) throw storage;
    return none;
  }
};

/** A page's words kept at most before its lines are written out (a hostile page's millions). */
const MOST_HELD = 100_000;

/**
 * Reads `pdftotext -tsv` output a line at a time. Its rows: level (1 page, 3 block, 4 line,
 * 5 word), page number, flow, block, line and word numbers, left, top, width, height (points,
 * from the top-left corner of the page as shown), confidence, text. A page row's width and
 * height are the page's as the PDF has it, before /Rotate (as -bbox prints them): turned a
 * quarter, they swap. A page's lines are held until it ends (or MOST_HELD words): a line mixing
 * scripts is read in its paragraph's direction, which its other lines tell (./paragraphDirection.ts).
 */
export const tsvReader = (geometry: readonly PageGeometry[]) => {
  const texts = geometry.map(() => '');
  const words: PageWord[][] = geometry.map(() => []);
  let page = 0;
  let size = { width: 0, height: 0 };
  // The page's text so far, in pieces (joined once at its end), and how long it is.
  let parts: string[] = [];
  let length = 0;
  let key = '';
  let flow: string | null = null;
  let held: StandingLine[] = [];
  let heldWords = 0;

  const put = (piece: string) => {
    if (length >= MAX_PAGE_TEXT) return;
    parts.push(piece);
    length += piece.length;
  };
  const writeLine = (line: StandingLine, direction: Direction) => {
    if (flow !== null) {
      // poppler's plain output: a line ending in a hyphen goes on with the next line of its
      // flow, without the hyphen; any other line ends with a break, a flow with a blank line.
      const last = parts.at(-1) ?? '';
      if (last.endsWith('-') && line.flow === flow) parts[parts.length - 1] = last.slice(0, -1);
      else put(line.flow === flow ? '\n' : '\n\n');
    }
    flow = line.flow;
    const read = lineAsRead(line.words, (word) => word.said, direction);
    const reordered = read !== line.words;
    // The text: words and the spaces between them as they stand, read as one line where it has
    // right-to-left letters (./bidiText.ts); the words one by one where not.
    const arabic = reordered && line.words.some(({ said }) => hasArabic(said));
    const shown = read.map(({ said }) => wordAsRead(said, direction, arabic));
    const standing: string[] = [];
    let previous: Box | null = null;
    line.words.forEach(({ said, box }, i) => {
      if (previous && gap(previous, box) > SPACE_GAP * previous.height) standing.push(' ');
      previous = box;
      standing.push(reordered ? said : (shown[i] as string));
    });
    const text = reordered ? lineTextAsRead(standing, direction) : standing.join('');
    put(text);
    const list = words[page - 1] as PageWord[];
    const first = list.length;
    for (const [i, { box }] of read.entries()) {
      const t = (shown[i] as string).trim();
      if (list.length >= MAX_WORDS || !(size.width > 0 && size.height > 0)) continue;
      if (!t || ![box.left, box.top, box.width, box.height].every(Number.isFinite)) continue;
      list.push({
        x: round(box.left / size.width),
        y: round(box.top / size.height),
        w: round(box.width / size.width),
        h: round(box.height / size.height),
        t,
      });
    }
    if (reordered && list.length > first) markReadingLine(list.slice(first), direction, text);
  };
  const writeHeld = () => {
    if (held.some((line) => line.words.some((word) => hasRtl(word.said)))) {
      const lines = joinSplitLines(held);
      const directions = paragraphDirections(lines);
      for (const [i, line] of lines.entries()) writeLine(line, directions[i] as Direction);
    } else for (const line of held) writeLine(line, 'ltr');
    held = [];
    heldWords = 0;
  };
  const endPage = () => {
    writeHeld();
    if (page >= 1 && page <= texts.length) texts[page - 1] = finish(parts.join(''));
    parts = [];
    length = 0;
    key = '';
    flow = null;
  };

  /** A page begins: its number, and its size as the PDF has it (before /Rotate). */
  const startPage = (n: number, width: number, height: number) => {
    endPage();
    page = n;
    const quarter = Math.abs(geometry[page - 1]?.rotation ?? 0) % 180 === 90;
    size = quarter ? { width: height, height: width } : { width, height };
  };
  /** A word of the page, in poppler's order: its flow, block and line (`inLine`: all three). */
  const addWord = (flow: string, block: string, inLine: string, said: string, box: Box) => {
    if (!(page >= 1 && page <= texts.length)) return;
    if (inLine !== key) {
      if (heldWords >= MOST_HELD) writeHeld();
      held.push({ flow, block, words: [] });
      key = inLine;
    }
    (held.at(-1) as StandingLine).words.push({ said, box });
    heldWords += 1;
  };

  return {
    /** A row of `pdftotext -tsv` output. */
    add: (row: string) => {
      // Only pages (1) and words (5) are read; blocks and lines are known from the words' numbers.
      const level = row.charCodeAt(0);
      if ((level !== 49 && level !== 53) || row.charCodeAt(1) !== 9) return;
      // The cells by hand: split() made a string of each, twice the parse's time.
      const tabs: number[] = [1]; // tabs[k]: the tab before column k + 2
      for (let i = 0; i < 10; i++) {
        const next = row.indexOf('\t', (tabs[i] as number) + 1);
        if (next < 0) return; // cut short
        tabs.push(next);
      }
      const cell = (n: number) => row.slice((tabs[n - 2] as number) + 1, tabs[n - 1]);
      if (level === 49) {
        startPage(Number(cell(2)), Number(cell(9)), Number(cell(10)));
        return;
      }
      addWord(
        cell(3),
        cell(4),
        // flow, block and line numbers, as they are written
        row.slice((tabs[1] as number) + 1, tabs[4]),
        row.slice((tabs[10] as number) + 1),
        {
          left: Number(cell(7)),
          top: Number(cell(8)),
          width: Number(cell(9)),
          height: Number(cell(10)),
        },
      );
    },
    startPage,
    addWord,
    end: (): TextPass => {
      endPage();
      return { texts, words };
    },
  };
};

/**
 * poppler cuts a printed line in two where a glyph has no width (the alef of a lam-alef, as
 * LibreOffice draws it): two lines of one block, at one height, both with right-to-left letters,
 * are one line again, their words left to right, so the line is read in one order.
 */
const joinSplitLines = (lines: readonly StandingLine[]) => {
  const joined: StandingLine[] = [];
  for (const line of lines) {
    const last = joined.at(-1);
    if (last && last.flow === line.flow && last.block === line.block && oneRow(last, line)) {
      joined[joined.length - 1] = {
        ...last,
        words: [...last.words, ...line.words].sort((a, b) => a.box.left - b.box.left),
      };
    } else joined.push(line);
  }
  return joined;
};

const oneRow = (a: StandingLine, b: StandingLine) => {
  if (!a.words.some((w) => hasRtl(w.said)) || !b.words.some((w) => hasRtl(w.said))) return false;
  const span = (line: StandingLine) => {
    let top = Number.POSITIVE_INFINITY;
    let bottom = Number.NEGATIVE_INFINITY;
    for (const { box } of line.words) {
      top = Math.min(top, box.top);
      bottom = Math.max(bottom, box.top + box.height);
    }
    return { top, bottom };
  };
  const [x, y] = [span(a), span(b)];
  const overlap = Math.min(x.bottom, y.bottom) - Math.max(x.top, y.top);
  return overlap > 0.5 * Math.min(x.bottom - x.top, y.bottom - y.top);
};

/**
 * The space between two word boxes of a line: from the first's right edge to the second's left
 * (superscripts and subscripts too; a word set back over the one before, as a sum's limits, has
 * none); down or up, for words stacked in a line of turned text.
 */
const gap = (a: Box, b: Box) => {
  const stacked =
    Math.min(a.top + a.height, b.top + b.height) <= Math.max(a.top, b.top) &&
    Math.min(a.left + a.width, b.left + b.width) > Math.max(a.left, b.left);
  return stacked
    ? Math.max(b.top - (a.top + a.height), a.top - (b.top + b.height))
    : b.left - (a.left + a.width);
};

/** As the plain pass's text was kept: no trailing blanks. */
const finish = (text: string) => text.replace(/[ \t]+\n/g, '\n').trim();
