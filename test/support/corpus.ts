// The shared test PDFs: ../shared/corpus beside the repository (as on CI, where shared/ is cloned
// next to it).
import { resolve } from 'node:path';
import { ROOT } from './cli.ts';

export const CORPUS = resolve(ROOT, '..', 'shared', 'corpus');
export const corpus = (name: string) => resolve(CORPUS, name);
