// Fills a workspace with processed flipbooks fast, through the same event path as the service:
// each flipbook's events come from the pure decider (create, start, complete: the version is
// active with its pages) and go in one append, so the inline projections and the audit chain see
// exactly what a real upload and render would make. Many appends run at once; no PDF, no HTTP.
import { randomUUID } from 'node:crypto';
import type { EventMetadata } from '../src/app/eventContext.ts';
import { decide, type FlipbookCommand } from '../src/domain/flipbook/decide.ts';
import {
  evolve,
  type FlipbookEvent,
  flipbookStream,
  initialState,
} from '../src/domain/flipbook/flipbook.ts';
import type { Store } from '../src/store/store.ts';

const SEASONS = ['Spring', 'Summer', 'Autumn', 'Winter', 'Annual', 'Product', 'Price', 'Trade'];
const KINDS = ['catalogue', 'report', 'brochure', 'menu', 'guide', 'newsletter', 'lookbook'];

/** The word one title in 200 has: what the benchmark's search looks for. */
export const RARE_WORD = 'Harbour';

/**
 * Titles that repeat (8 × 7 × 12 of them), so sorting by title leans on the tie-breaker; one in
 * 200 holds the rare word.
 */
export const titleOf = (n: number) => {
  const kind = KINDS[n % KINDS.length] as string;
  const year = 2015 + (n % 12);
  if (n % 200 === 7) return `${RARE_WORD} ${kind} ${year}`;
  return `${SEASONS[Math.floor(n / 7) % SEASONS.length]} ${kind} ${year}`;
};

const BENCH: EventMetadata = { actor: { type: 'admin', id: 'bench' } };

/** One processed, active flipbook of `pages` pages, in one append. Returns its id. */
export const seedFlipbook = async (
  store: Store,
  workspaceId: string,
  n: number,
  pages = 2,
): Promise<string> => {
  const flipbookId = randomUUID();
  const versionId = randomUUID();
  const now = new Date();
  let state = initialState();
  const events: FlipbookEvent[] = [];
  const run = (command: FlipbookCommand) => {
    const decided = decide(command, state);
    state = decided.reduce(evolve, state);
    events.push(...decided);
  };
  run({
    type: 'CreateFlipbook',
    data: {
      flipbookId,
      workspaceId,
      title: titleOf(n),
      slug: `book-${n}`,
      description: '',
      versionId,
      file: {
        name: `book-${n}.pdf`,
        type: 'pdf',
        mimeType: 'application/pdf',
        size: 4096,
        checksum: randomUUID().replaceAll('-', '').padEnd(64, '0'),
      },
      now,
    },
  });
  run({ type: 'StartProcessing', data: { versionId, attempt: 1, pageCount: pages, now } });
  const sizes = Array.from({ length: pages }, (_, i) => ({
    pageId: randomUUID(),
    position: i + 1,
    width: 612,
    height: 792,
  }));
  run({
    type: 'CompleteProcessing',
    data: { versionId, width: 612, height: 792, pages: sizes, now },
  });
  await store.events.appendToStream<FlipbookEvent>(
    flipbookStream(flipbookId),
    events.map((event) => ({ ...event, metadata: BENCH })),
    { expectedStreamVersion: 0n },
  );
  return flipbookId;
};

/** Flipbooks numbered from..to-1, `parallel` appends at a time. Returns the ids in order. */
export const seedFlipbooks = async (
  store: Store,
  workspaceId: string,
  from: number,
  to: number,
  parallel = 6,
) => {
  const ids: string[] = new Array(Math.max(0, to - from));
  let next = from;
  const lane = async () => {
    while (next < to) {
      const n = next++;
      ids[n - from] = await seedFlipbook(store, workspaceId, n);
    }
  };
  await Promise.all(Array.from({ length: parallel }, lane));
  return ids;
};
