import { describe, expect, it } from 'vitest';
import type { PageGeometry } from '../../src/pdf/pageSizes.ts';
import { tsvReader } from '../../src/pdf/textPass.ts';

const HEAD =
  'level\tpage_num\tpar_num\tblock_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext';
const page = (n: number, width: number, height: number) =>
  `1\t${n}\t0\t0\t0\t0\t0\t0\t${width}\t${height}\t-1\t###PAGE###`;
/** a word row: flow, block, line, its box, its text */
const word = (n: number, flow: number, block: number, line: number, box: number[], text: string) =>
  `5\t${n}\t${flow}\t${block}\t${line}\t0\t${box.join('\t')}\t100\t${text}`;
const geometry = (...rotations: number[]): PageGeometry[] =>
  rotations.map((rotation, i) => ({ position: i + 1, width: 200, height: 100, rotation }));
const read = (rows: string[], pages: PageGeometry[]) => {
  const reader = tsvReader(pages);
  for (const row of [HEAD, ...rows]) reader.add(row);
  return reader.end();
};

describe('the text pass (pdftotext -tsv) read as the plain pass reads its words', () => {
  // One unturned page of 200 × 100: its word rows, and the text the plain pass would give it.
  it.each([
    {
      does: 'spaces words apart and not words that touch, breaks lines, leaves a blank line between flows',
      text: 'Hello world!\nnext\nblock\n\nflow',
      rows: [
        word(1, 0, 0, 0, [10, 10, 20, 10], 'Hello'),
        word(1, 0, 0, 0, [33, 10, 20, 10], 'world'),
        word(1, 0, 0, 0, [53, 10, 5, 10], '!'), // touching: no space
        word(1, 0, 0, 1, [10, 22, 20, 10], 'next'),
        word(1, 0, 1, 0, [10, 34, 20, 10], 'block'),
        word(1, 1, 0, 0, [10, 60, 20, 10], 'flow'),
      ],
    },
    {
      does: 'joins a line ending in a hyphen to the next line of its flow, without the hyphen, and keeps it at a flow’s end',
      text: 'hyphenated auto-\n\nnext',
      rows: [
        word(1, 0, 0, 0, [10, 10, 20, 10], 'hyphen-'),
        word(1, 0, 0, 1, [10, 22, 20, 10], 'ated'),
        word(1, 0, 0, 1, [40, 22, 20, 10], 'auto-'),
        word(1, 1, 0, 0, [10, 60, 20, 10], 'next'),
      ],
    },
  ])('$does', ({ text, rows }) => {
    expect(read([page(1, 200, 100), ...rows], geometry(0)).texts).toEqual([text]);
  });

  it('gives each word its box as fractions of the page as shown (a quarter turn swaps its sides), right-to-left text as it is read', () => {
    const { texts, words } = read(
      [
        page(1, 200, 100),
        word(1, 0, 0, 0, [20, 10, 40, 10], 'A&B'),
        page(2, 100, 200), // turned a quarter: shown 200 wide, 100 high
        word(2, 0, 0, 0, [100, 50, 50, 10], 'يبيبحَ'), // as it stands: left to right
        word(2, 0, 0, 0, [160, 50, 10, 10], '   '),
      ],
      geometry(0, 90),
    );
    expect(words).toEqual([
      [{ x: 0.1, y: 0.1, w: 0.2, h: 0.1, t: 'A&B' }],
      [{ x: 0.5, y: 0.5, w: 0.25, h: 0.1, t: 'حَبيبي' }],
    ]);
    expect(texts[1]).toBe('حَبيبي');
  });

  it('reads a right-to-left line from its right end, its words and text alike (Chromium’s rows)', () => {
    const { texts, words } = read(
      [
        page(1, 200, 100),
        word(1, 0, 0, 0, [100, 10, 40, 10], 'ملاعلاب'),
        word(1, 0, 0, 0, [145, 10, 35, 10], 'ابحرم'),
        word(1, 0, 1, 0, [10, 30, 30, 10], '.هبناجب'),
        word(1, 0, 1, 0, [41, 30, 30, 10], 'English'),
        word(1, 0, 1, 0, [75, 30, 30, 10], 'ةملكلاو'),
      ],
      geometry(0),
    );
    expect(texts[0]).toBe('مرحبا بالعالم\nوالكلمة English بجانبه.');
    expect(words[0]?.map((w) => w.t)).toEqual([
      'مرحبا',
      'بالعالم',
      'والكلمة',
      'English',
      'بجانبه.',
    ]);
    expect(words[0]?.[0]?.x).toBe(0.725); // مرحبا stands on the right
  });

  it('keeps a page without words empty, and ignores rows past the page count or cut short', () => {
    const { texts, words } = read(
      [
        page(1, 200, 100),
        page(2, 200, 100),
        word(2, 0, 0, 0, [1, 1, 1, 1], 'x'),
        'garbage',
        page(9, 1, 1),
        word(9, 0, 0, 0, [1, 1, 1, 1], 'y'),
      ],
      geometry(0, 0),
    );
    expect(texts).toEqual(['', 'x']);
    expect(words[0]).toEqual([]);
    expect(words[1]).toHaveLength(1);
  });
});
