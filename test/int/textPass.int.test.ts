// The text pass (src/pdf/textPass.ts) with the real pdftotext, on the corpus: each page's text
// as the plain pass gives it (the same characters in the same order; the spaces measured in
// docs/processing.md), but only what the crop box shows; the words in the right place; and the
// links named from its words as from a pass of pdftotext -bbox of their own.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withoutMarks } from '../../src/pdf/bidiText.ts';
import { readDocumentStructure } from '../../src/pdf/documentStructure.ts';
import { linesOfPages } from '../../src/pdf/pageLines.ts';
import type { PageWord } from '../../src/pdf/pageWord.ts';
import { readPages } from '../../src/pdf/pdfPages.ts';
import { DEFAULT_RENDER_OPTIONS } from '../../src/pdf/renderPdf.ts';
import { readTextPass } from '../../src/pdf/textPass.ts';
import { coveredWords } from '../../src/reader/client/searchText.ts';
import { CORPUS, corpus } from '../support/corpus.ts';

const run = promisify(execFile);
const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'rtl');
const limits = DEFAULT_RENDER_OPTIONS.limits;
let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'flipbook-textpass-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const pass = async (file: string) => {
  const geometry = await readPages(limits, file, 2000, { timeoutMs: 30_000 });
  const work = await mkdtemp(join(dir, 'work-'));
  return readTextPass(limits, file, work, geometry, AbortSignal.timeout(60_000));
};
/**
 * The plain pass, each run of pages with the same boxes cut to its crop box where that is smaller
 * than the media box (pdftotext's -x -y -W -H, in tenths of a point at -r 720).
 */
const plainPass = async (file: string) => {
  const { stdout: info } = await run('pdfinfo', ['-box', '-f', '1', '-l', '2000', file]);
  const boxes = new Map<number, { media: number[]; crop: number[] }>();
  for (const [, page, name, ...n] of info.matchAll(
    /^Page\s+(\d+) (MediaBox|CropBox):\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)/gm,
  )) {
    const entry = boxes.get(Number(page)) ?? { media: [], crop: [] };
    entry[name === 'MediaBox' ? 'media' : 'crop'] = n.map(Number);
    boxes.set(Number(page), entry);
  }
  const runs: { first: number; last: number; key: string }[] = [];
  for (const [page, { media, crop }] of [...boxes].sort(([a], [b]) => a - b)) {
    const key = `${media}|${crop}`;
    const last = runs.at(-1);
    if (last?.key === key && last.last === page - 1) last.last = page;
    else runs.push({ first: page, last: page, key });
  }
  const texts: string[] = [];
  for (const { first, last, key } of runs) {
    const [[mx0 = 0, , , my1 = 0] = [], [cx0 = 0, cy0 = 0, cx1 = 0, cy1 = 0] = []] = key
      .split('|')
      .map((b) => b.split(',').map(Number));
    const cut =
      key.split('|')[0] === key.split('|')[1]
        ? []
        : ['-r', '720', '-x', cx0 - mx0, '-y', my1 - cy1, '-W', cx1 - cx0, '-H', cy1 - cy0].map(
            (a) => (typeof a === 'number' ? String(Math.round(a * 10)) : a),
          );
    const pages = ['-f', String(first), '-l', String(last)];
    const { stdout } = await run('pdftotext', [...pages, ...cut, '-enc', 'UTF-8', file, '-'], {
      maxBuffer: 256 * 1024 * 1024,
    });
    texts.push(
      ...withoutMarks(stdout)
        .split('\f')
        .slice(0, last - first + 1),
    );
  }
  return texts;
};
const letters = (text: string) => text.replace(/\s+/g, '');
/** the characters in any order, hyphens aside (where a line ends with one, poppler's rule is finer) */
const sorted = (text: string) => [...text.replace(/-/g, '')].sort().join('');

/** The corpus's readable documents (its damaged, locked and hostile files are the structure test's). */
const READABLE = readFileSync(join(CORPUS, 'manifest.tsv'), 'utf8')
  .split('\n')
  .slice(1)
  .map((line) => line.split('\t')[0] ?? '')
  .filter((file) => file.endsWith('.pdf') && !/^(bad|slow|enc|dos)_/.test(file));
/**
 * How many pages have their characters in another order than the plain pass's: footnote marks set
 * above their line, which poppler's plain output puts a few words early ("the radio 3 “music
 * box.”"), the text pass right after the word they mark ("“music box.”3"). Only this book has
 * them; every other page of the corpus has its characters in the plain pass's order.
 */
const MOVED: Record<string, number> = {
  'text_freeculture.pdf': 138,
  // Each of its four pages maps one glyph to the whole word حَبيبي, as typed: poppler's plain
  // output reverses it with its run (يبيبَح), the text pass leaves a word with a space in it, a
  // glyph mapped to a whole text, as it is (src/pdf/bidiText.ts).
  'odd_habibi-rotated.pdf': 4,
};
/** Printers' marks outside the crop box (the plain pass reads the media box). */
const SLUG = /14773_00_i-xviii_r9jm\.qxd/;

describe('the text pass over the corpus', () => {
  it.each(READABLE)(
    '%s: every page has the plain pass’s text (what the crop box shows)',
    async (name) => {
      const file = corpus(name);
      const [{ texts, words }, plain] = await Promise.all([pass(file), plainPass(file)]);
      expect(texts.length).toBeGreaterThan(0);
      const moved: number[] = [];
      texts.forEach((text, i) => {
        const expected = letters(plain[i] ?? '');
        if (letters(text) !== expected) {
          moved.push(i + 1);
          expect(sorted(letters(text)), `page ${i + 1}`).toBe(sorted(expected));
        }
        for (const word of words[i] ?? []) {
          expect(word.x).toBeGreaterThanOrEqual(-0.01);
          expect(word.x + word.w).toBeLessThanOrEqual(1.01);
          expect(word.t).not.toBe('');
        }
      });
      expect(moved.length, 'pages with characters in another order').toBe(MOVED[name] ?? 0);
      // Printers' marks around the crop box are not the page's text any more.
      if (name === 'text_freeculture.pdf') expect(texts[2]).not.toMatch(SLUG);
    },
    60_000,
  );

  it('stops pdftotext at its file limit (the temporary disk a job takes is bounded): the pages keep no text', async () => {
    const file = corpus('text_why3-manual.pdf'); // 3.7 MB of TSV
    const small = { ...limits, fileBytes: 1024 * 1024 };
    const geometry = await readPages(small, file, 2000, { timeoutMs: 30_000 });
    const work = await mkdtemp(join(dir, 'work-'));
    const read = await readTextPass(small, file, work, geometry, AbortSignal.timeout(60_000));
    expect(read.texts).toHaveLength(184);
    expect(read.texts.every((text) => text === '')).toBe(true);
    expect(read.words.every((page) => page.length === 0)).toBe(true);
    // what it wrote before it was stopped: no more than the limit
    const { size } = await stat(join(work, 'text.tsv'));
    expect(size).toBeGreaterThan(0);
    expect(size).toBeLessThanOrEqual(1024 * 1024);
    // and under the default limit the same document has its text
    const whole = await pass(file);
    expect(whole.texts.filter(Boolean).length).toBeGreaterThan(150);
  }, 60_000);

  it('names the links from its words as a pdftotext -bbox pass of their own did', async () => {
    const file = corpus('text_why3-manual.pdf');
    const { texts, words } = await pass(file);
    const [own, given] = await Promise.all([
      readDocumentStructure(file, { limits, pageCount: texts.length }),
      readDocumentStructure(file, {
        limits,
        pageCount: texts.length,
        pageTexts: texts,
        pageWords: words,
      }),
    ]);
    const named = own.links.flat().filter((link) => link.text);
    expect(named.length).toBeGreaterThan(5);
    expect(given.links).toEqual(own.links);
  });

  it("keeps the corpus's Arabic in logical order: the word is found as it is typed", async () => {
    const { texts, words } = await pass(corpus('odd_habibi-rotated.pdf'));
    for (const page of texts.slice(0, 4)) {
      expect(page).toContain('حَبيبي'); // ḥabībī, as typed: ḥāʼ first
      expect(page).not.toContain('يبيبَح'); // the reversed spelling pdftotext's plain pass writes
      expect(page).toContain('habibi');
      expect(page).not.toMatch(/[\u202a-\u202e]/); // no embedding marks left
    }
    // On every page, turned or not, the words are on the page as shown.
    for (const page of words.slice(0, 4)) {
      expect(page.length).toBeGreaterThan(0);
      for (const word of page) {
        expect(word.x + word.w).toBeLessThanOrEqual(1.001);
        expect(word.y + word.h).toBeLessThanOrEqual(1.001);
      }
    }
  });

  it.each(['rtl-chromium.pdf', 'rtl-libreoffice.pdf'])(
    'reads %s’s Arabic and Hebrew as typed, though poppler gives its glyphs as they stand',
    async (name) => {
      // test/fixtures/rtl: rtl.html printed by Chromium and by LibreOffice, each drawing a
      // right-to-left line's glyphs from the left
      const file = join(FIXTURES, name);
      const [{ texts, words }, plain] = await Promise.all([pass(file), plainPass(file)]);
      const text = texts[0] ?? '';
      for (const sentence of [
        'مرحبا بالعالم',
        'الكتاب مفتوح على الطاولة، والقلم بجانبه.',
        'العدد 2026 والكلمة English في وسط السطر، وعبارة Open Source أيضا.',
        'رقم الهاتف 055 123 4567',
        'שלום עולם, זהו טקסט בעברית.',
        // a right-to-left line starting with a Latin word, and a word spanning two runs
        'Linux הוא מערכת הפעלה, והחברה משתמשת ב-Open Source כבר שנים.',
        // an English paragraph quoting Arabic
        'The phrase ',
        ' عليكم ورحمة means peace.',
      ]) {
        expect(text).toContain(sentence);
      }
      // A line with more Latin letters than Arabic, read right to left: Chromium sets it flush
      // right. (LibreOffice's HTML import sets this file's paragraphs flush left, and that line
      // has no full stop: nothing tells it is not a left-to-right paragraph.)
      if (name === 'rtl-chromium.pdf') {
        expect(text).toContain('يستخدم الفريق نظام Open Source Flipbook Server منذ سنوات');
        // vowel signs on their letters (LibreOffice draws them as glyphs of their own: a limit)
        expect(texts[1]).toContain('كَتَبَ الطَّالِبُ الدَّرْسَ');
      }
      // the plain pass's characters (its order differs where it reads a line in the page's
      // direction, not its paragraph's: the English one, ב-Open Source)
      expect(sorted(letters(text))).toBe(sorted(letters(plain[0] ?? '')));
      // the words in reading order: a search lights both words of a phrase, the first on the right
      const page = words[0] ?? [];
      const hit = coveredWords(
        page.map((word) => word.t),
        'الكتاب مفتوح',
      ).map((i) => page[i] as PageWord);
      expect(hit.map((word) => word.t)).toEqual(['الكتاب', 'مفتوح']);
      expect(hit[0]?.x).toBeGreaterThan(hit[1]?.x ?? 1);
      // and lines.json's line is whole, as read (its words joined by spaces: LibreOffice sets a
      // full stop apart from its word)
      const [lines] = linesOfPages([{ words: page, width: 612, height: 792 }]);
      const read = lines?.map((line) => line[4].replace(/ (?=[.,،])/g, ''));
      expect(read).toContain(
        '\u200fالعدد 2026 والكلمة English في وسط السطر، وعبارة Open Source أيضا.',
      ); // (with a right-to-left mark: the reader lays it out so)
    },
  );
});
