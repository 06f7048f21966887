// The reader's words (src/reader/words): every language says everything English says, with the
// same {names} to fill; the language is chosen from Accept-Language, English when none fits.
import { describe, expect, it } from 'vitest';
import { fill } from '../../src/reader/client/words.ts';
import { en } from '../../src/reader/words/en.ts';
import { languageFor, READER_LANGUAGES } from '../../src/reader/words/language.ts';

const names = (sentence: string) => [...sentence.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
const flat = (words: object, prefix = ''): [string, string][] =>
  Object.entries(words).flatMap(([key, value]) =>
    typeof value === 'string' ? [[prefix + key, value]] : flat(value, `${key}.`),
  );

describe('the reader’s words', () => {
  it('speaks at least seven languages, two of them right to left', () => {
    expect(READER_LANGUAGES.length).toBeGreaterThanOrEqual(7);
    const rtl = READER_LANGUAGES.filter((lang) => languageFor(lang).dir === 'rtl');
    expect(rtl.sort()).toEqual(['ar', 'he']);
  });

  it.each(READER_LANGUAGES)('%s says everything English says, with the same {names}', (lang) => {
    const words = flat(languageFor(lang).words);
    const english = flat(en);
    expect(words.map(([key]) => key)).toEqual(english.map(([key]) => key));
    for (const [i, [key, sentence]] of words.entries()) {
      const reference = english[i]?.[1] ?? '';
      expect(names(sentence), `${lang} ${key}: ${sentence}`).toEqual(names(reference));
      expect(sentence.trim(), `${lang} ${key}`).not.toBe('');
      if (lang !== 'en') expect(sentence, `${lang} ${key} is not translated`).not.toBe('');
    }
  });

  it('chooses by Accept-Language: q-values, a region taking its language, English otherwise', () => {
    expect(languageFor('de-CH,de;q=0.9,en;q=0.5').lang).toBe('de');
    expect(languageFor('fr-CA').lang).toBe('fr');
    expect(languageFor('en;q=0.3, ja;q=0.8').lang).toBe('ja');
    expect(languageFor('ar-EG')).toMatchObject({ lang: 'ar', dir: 'rtl' });
    expect(languageFor('he')).toMatchObject({ lang: 'he', dir: 'rtl' });
    for (const header of [undefined, '', 'xx-YY', '*;q=0', ';;;,,,q=', 'de;q=0']) {
      expect(languageFor(header), String(header)).toMatchObject({ lang: 'en', dir: 'ltr' });
    }
    expect(languageFor(`${'x-'.repeat(10_000)},pt`).lang).toBe('en'); // only the first 1 KB read
  });

  it('fills {names}, leaving none behind', () => {
    expect(fill(en.script.pageOfLabelled, { label: 'iv', n: 6, total: 9 })).toBe(
      'Page iv (6 of 9)',
    );
    expect(fill('{a} and {b}', { a: 1 })).toBe('1 and ');
  });
});
