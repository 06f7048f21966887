// One of the script's sentences in the reader's language (./words.ts), read from the page.
import { fill, type ScriptWords } from './words.ts';

let words: ScriptWords | undefined;

/**
 * The words the page carries, read from it the first time one is said. Read, not handed over: the
 * chunks fetched on first use (a panel, search) each bundle their own copy of this module
 * (src/http/staticAssets.ts), and each copy finds the same words.
 */
const given = () => {
  words ??= (
    JSON.parse(document.getElementById('flipbook-data')?.textContent ?? '{}') as {
      words: ScriptWords;
    }
  ).words;
  return words;
};

/** One of the script's sentences in the reader's language. */
export const say = (key: keyof ScriptWords, vars?: Record<string, string | number>) =>
  fill(given()[key], vars);
