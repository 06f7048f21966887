// The pure parts of document structure: page label formats, link
// geometry on turned pages, which URIs pass, titles, the script of a text.
import { describe, expect, it } from 'vitest';
import { parseTitle, scriptDirection } from '../../src/pdf/documentStructure.ts';
import { safeUri } from '../../src/pdf/outline.ts';
import { letters, pageLabels, roman } from '../../src/pdf/pageLabels.ts';
import { fractionRect, type PageGeometry } from '../../src/pdf/pageLinks.ts';
import { cleanText } from '../../src/pdf/qpdfJson.ts';

describe('page labels', () => {
  it('formats roman numerals and letters, with prefixes and start values', () => {
    expect([1, 4, 9, 14, 40, 1999].map(roman)).toEqual(['I', 'IV', 'IX', 'XIV', 'XL', 'MCMXCIX']);
    expect([1, 26, 27, 53].map(letters)).toEqual(['A', 'Z', 'AA', 'AAA']);
    expect(
      pageLabels(
        [
          { index: 0, style: 'r', prefix: '', start: 1 },
          { index: 2, style: 'D', prefix: '', start: 1 },
          { index: 4, style: 'A', prefix: 'App. ', start: 3 },
          { index: 5, style: null, prefix: 'Back cover', start: 1 },
        ],
        6,
      ),
    ).toEqual(['i', 'ii', '1', '2', 'App. C', 'Back cover']);
  });

  it('numbers pages before the first range by position, and is null without ranges', () => {
    expect(pageLabels([{ index: 1, style: 'a', prefix: '', start: 1 }], 3)).toEqual([
      '1',
      'a',
      'b',
    ]);
    expect(pageLabels([], 3)).toBeNull();
  });

  it('never makes absurd labels from absurd start values', () => {
    expect(roman(2_000_000_000)).toBe('2000000000');
    expect(letters(1_000_000)).toBe('1000000');
  });
});

describe('link rectangles', () => {
  const letter: PageGeometry = { box: [0, 0, 612, 792], rotate: 0 };
  it('are fractions of the page from its top-left corner', () => {
    expect(fractionRect(letter, [61.2, 712.8, 306, 792])).toEqual([0.1, 0, 0.4, 0.1]);
  });

  it('follow the page when it is turned, and the crop box', () => {
    const box: PageGeometry['box'] = [100, 100, 200, 300]; // 100 x 200
    const rect: [number, number, number, number] = [100, 280, 150, 300]; // top-left strip
    expect(fractionRect({ box, rotate: 0 }, rect)).toEqual([0, 0, 0.5, 0.1]);
    expect(fractionRect({ box, rotate: 90 }, rect)).toEqual([0.9, 0, 0.1, 0.5]);
    expect(fractionRect({ box, rotate: 180 }, rect)).toEqual([0.5, 0.9, 0.5, 0.1]);
    expect(fractionRect({ box, rotate: 270 }, rect)).toEqual([0, 0.5, 0.1, 0.5]);
  });

  it('are clipped to the page, and dropped when nothing is left', () => {
    expect(fractionRect(letter, [-100, -100, 61.2, 79.2])).toEqual([0, 0.9, 0.1, 0.1]);
    expect(fractionRect(letter, [700, 10, 800, 20])).toBeNull();
    expect(fractionRect(letter, [10, 10, 10, 20])).toBeNull();
  });
});

describe('safeUri', () => {
  it('keeps http, https and mailto only', () => {
    expect(safeUri(' https://example.org/a b ')).toBe('https://example.org/a%20b');
    expect(safeUri('HTTP://Example.org')).toBe('http://example.org/');
    expect(safeUri('mailto:someone@example.org')).toBe('mailto:someone@example.org');
    for (const bad of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'file:///etc/passwd',
      'data:text/html,hi',
      'ftp://example.org/',
      'www.example.org',
      '/relative',
      'https://exa\u0000mple.org',
      `https://example.org/${'a'.repeat(3000)}`,
    ]) {
      expect(safeUri(bad), bad).toBeNull();
    }
  });
});

describe('titles', () => {
  it('take the Title line of pdfinfo, cleaned, and none for placeholders', () => {
    expect(parseTitle('Title:           A \u0007 Book\nAuthor:          x\n')).toBe('A Book');
    expect(parseTitle('Title:           Two\nlines\nProducer:        x\n')).toBe('Two lines');
    expect(parseTitle('Title:           Untitled\nPages:           1\n')).toBeNull();
    expect(parseTitle('Producer:        x\nPages:           1\n')).toBeNull();
    expect(cleanText('x'.repeat(300), 255)).toHaveLength(255);
    expect(Array.from(cleanText('😀'.repeat(300), 255))).toHaveLength(255);
  });
});

describe('scriptDirection', () => {
  it('is rtl when most letters are Arabic or Hebrew', () => {
    expect(scriptDirection(['حَبيبي habibi حبيبي'])).toBe('rtl');
    expect(scriptDirection(['שלום עולם, hello'])).toBe('rtl');
    expect(scriptDirection(['An English page quoting حبيبي once.'])).toBe('ltr');
    expect(scriptDirection(['', '12345'])).toBe('ltr');
  });
});
