// The language a reader's page speaks: the best of ours for the browser's Accept-Language
// (negotiator, the Accept-* parser Express uses: q-values, "de-CH" taking "de"), English when
// none fits. Right-to-left languages lay the reader's bars out from the right.
import Negotiator from 'negotiator';
import { ar } from './ar.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { es } from './es.ts';
import { fr } from './fr.ts';
import { he } from './he.ts';
import { ja } from './ja.ts';
import { pt } from './pt.ts';
import type { Words } from './words.ts';

const LANGUAGES: Record<string, Words> = { en, ar, de, es, fr, he, ja, pt };
const CODES = Object.keys(LANGUAGES);
const RIGHT_TO_LEFT = new Set(['ar', 'he']);

export type Language = { lang: string; dir: 'ltr' | 'rtl'; words: Words };

export const ENGLISH: Language = { lang: 'en', dir: 'ltr', words: en };

/** The language to answer in, from the request's Accept-Language header. */
export const languageFor = (acceptLanguage: string | undefined): Language => {
  if (!acceptLanguage) return ENGLISH;
  const lang =
    new Negotiator({ headers: { 'accept-language': acceptLanguage.slice(0, 1024) } }).language(
      CODES,
    ) ?? 'en';
  const words = LANGUAGES[lang];
  return words ? { lang, dir: RIGHT_TO_LEFT.has(lang) ? 'rtl' : 'ltr', words } : ENGLISH;
};

/** The languages the reader speaks. */
export const READER_LANGUAGES = CODES;
