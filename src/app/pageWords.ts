// A page's words with their boxes (for the reader's search highlights), kept beside the page's
// images as words.json. Processing writes it from its text pass (src/pdf/textPass.ts); a version
// processed before that has none, and its page's words are read from the original the first time
// a reader asks and kept: one short pdftotext run at most, and only pages someone searched.
// Public (like the page images), so it is bounded: a few runs at a time per daemon; beyond that
// the reader is told to come back (503), and shows its results without highlights meanwhile.

import type { BlobStore } from '../blobs/blobStore.ts';
import { NotFound, refusal } from '../domain/errors.ts';
import { readPageWords } from '../pdf/pageWords.ts';
import type { ProcessLimits } from '../pdf/poppler.ts';
import { wordSource } from '../queries/files.ts';
import type { Db } from '../readTables/readTable.ts';

const AT_ONCE = 2;
let running = 0;
const inFlight = new Map<string, Promise<string>>();

export class WordsBusy extends refusal(
  'WordsBusy',
  503,
  'Busy reading other pages; try again shortly',
  { 'Retry-After': '2' },
) {}

/** words.json of a finished version's page, as JSON text: `{ "words": [{ x, y, w, h, t }] }`. */
export const pageWordsJson = async (
  deps: { db: Db; blobs: BlobStore; limits: ProcessLimits },
  versionId: string,
  position: number,
): Promise<string> => {
  // Refused before anything costs: a flood of requests gets its 503s without a query each.
  if (running >= AT_ONCE && !inFlight.has(`${versionId}/${position}`)) throw new WordsBusy();
  const source = await wordSource(deps.db, versionId);
  if (!source || position > source.page_count) throw new NotFound('Not found');
  const kept = await deps.blobs.readPageFile(versionId, position, 'words.json').catch(() => null);
  if (kept) return kept;

  const key = `${versionId}/${position}`;
  const pending = inFlight.get(key);
  if (pending) return pending;
  if (running >= AT_ONCE) throw new WordsBusy();
  running += 1;
  const work = (async () => {
    const original = await deps.blobs.localOriginal(source.checksum).catch(() => null);
    if (!original) throw new WordsBusy(); // the store did not answer: the reader asks again
    const words = await readPageWords(original.path, position, { limits: deps.limits })
      .catch(() => null)
      .finally(() => original.release());
    // A failure (a timeout, the tool killed) is not kept: the next reader tries again.
    if (words === null) throw new WordsBusy();
    const json = JSON.stringify({ words });
    // Kept for the next reader; if it cannot be (the version was deleted meanwhile, a full
    // disk), this answer is still good.
    await deps.blobs.writePageFile(versionId, position, 'words.json', json).catch(() => undefined);
    return json;
  })().finally(() => {
    running -= 1;
    inFlight.delete(key);
  });
  inFlight.set(key, work);
  return work;
};
