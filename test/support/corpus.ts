// The shared test PDFs: ../shared/corpus beside the repository (as on CI, where shared/ is cloned
// next to it), or wherever $FLIPBOOK_TEST_CORPUS says.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ROOT } from './cli.ts';

export const CORPUS = resolve(
  process.env.FLIPBOOK_TEST_CORPUS || resolve(ROOT, '..', 'shared', 'corpus'),
);
export const corpus = (name: string) => resolve(CORPUS, name);

/**
 * Stops the run before anything starts when the corpus is not there: one sentence saying where it
 * was looked for, instead of hundreds of tests failing on a missing file.
 */
export const requireCorpus = () => {
  if (existsSync(corpus('manifest.tsv'))) return;
  throw new Error(
    `The test PDFs are missing: no ${corpus('manifest.tsv')}. The suite reads the shared corpus ` +
      'from ../shared/corpus beside this repository, or from the folder $FLIPBOOK_TEST_CORPUS names.',
  );
};
