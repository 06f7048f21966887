// The list's query against a plain reference: the workspace's rows, filtered, sorted and cut into
// pages in JavaScript exactly as docs/api.md says. Every query runs twice, the second time from
// what the first one left remembered (listMarks.ts, searchResults.ts). Titles repeat (in different letter cases) and
// so do timestamps, so the tie-breaker decides; searches hold `%` and `_`; some flipbooks are
// archived, restored or deleted, so the kept counts are tested too, and again after a replay.

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/app/clock.ts';
import { runFlipbookCommand } from '../../src/app/commands.ts';
import { listFlipbookCards, listFlipbooks as listForApi } from '../../src/app/flipbooks.ts';
import { urlsFor } from '../../src/app/urls.ts';
import { createWorkspace } from '../../src/app/workspaces.ts';
import type { FlipbookCommand } from '../../src/domain/flipbook/decide.ts';
import { listFlipbooks } from '../../src/queries/flipbookList.ts';
import { type ListQuery, SORT_FIELDS } from '../../src/readTables/flipbooks.ts';
import { rebuildReadTables } from '../../src/store/replay.ts';
import type { Store } from '../../src/store/store.ts';
import { createInStore } from '../support/inStore.ts';
import { TEST_METADATA } from '../support/metadata.ts';
import { openTestStore, STORE_KINDS } from '../support/stores.ts';

const TITLES = [
  'Spring catalogue',
  'spring CATALOGUE',
  'Catalog_2024',
  'Catalog%2024',
  'Catalog 2024',
  '50% off',
  '50_ off',
  '50 off',
  'a_b',
  'a%b',
  'aXb',
  'Zebra',
  'zebra',
  'ZEBRA',
  '_lead',
  '%lead',
  'Menu',
];
const SEARCHES = [null, '%', '_', 'CaTaLoG', '50%', 'a_b', 'A%B', 'zebra', 'no such title'];
const FLIPBOOKS = 300;
const BASE = Date.UTC(2026, 0, 1);
/** Few distinct instants: many flipbooks share each one. */
const at = (i: number, spread: number, offset = 0) => new Date(BASE + offset + (i % spread) * 1000);

type Row = { id: string; title: string; status: string; created: number; updated: number };

describe.each(STORE_KINDS)('the flipbook list on the %s store', (kind) => {
  let store: Store;
  let workspaceId: string;
  const alive = new Map<string, 'published' | 'archived'>();
  const pending = new Map<string, string>(); // flipbook → its version still pending

  const run = (flipbookId: string, command: FlipbookCommand) =>
    runFlipbookCommand(store, flipbookId, command, TEST_METADATA);

  const create = (workspace: string, i: number) =>
    createInStore(store, {
      workspaceId: workspace,
      title: TITLES[i % TITLES.length] as string,
      slug: `book-${i}`,
      now: at(i, 37),
    });

  const edit = (title: string): FlipbookCommand => ({
    type: 'EditFlipbook',
    data: { title, now: at(0, 1, 650_000) },
  });

  const setArchived = (flipbookId: string, archived: boolean, now: Date) =>
    run(flipbookId, { type: 'EditFlipbook', data: { archived, now } }).then(() =>
      alive.set(flipbookId, archived ? 'archived' : 'published'),
    );

  beforeAll(async () => {
    store = await openTestStore(kind);
    workspaceId = (
      await createWorkspace(store, { name: 'lister', plan: 'team' }, TEST_METADATA, new Date())
    ).id;
    const other = (
      await createWorkspace(store, { name: 'other', plan: 'team' }, TEST_METADATA, new Date())
    ).id;
    for (let i = 0; i < 20; i++) await create(other, i); // never listed in `lister`
    const ids: string[] = [];
    for (let i = 0; i < FLIPBOOKS; i++) {
      const { flipbookId, versionId } = await create(workspaceId, i);
      ids.push(flipbookId);
      alive.set(flipbookId, 'published');
      if (i % 3 !== 0) pending.set(flipbookId, versionId);
      if (i % 3 === 0) {
        // processed: an active version to join, and a later updated_at (shared by many)
        await run(flipbookId, {
          type: 'CompleteProcessing',
          data: {
            versionId,
            width: 612,
            height: 792,
            pages: [{ pageId: randomUUID(), position: 1, width: 612, height: 792 }],
            now: at(i, 13, 100_000),
          },
        });
      }
    }
    for (const [i, id] of ids.entries()) {
      if (i % 4 === 1) await setArchived(id, true, at(i, 11, 200_000));
      if (i % 8 === 1 && i % 16 !== 1) await setArchived(id, false, at(i, 7, 300_000));
      if (i % 29 === 5) {
        await run(id, { type: 'DeleteFlipbook', data: { now: at(i, 5, 400_000) } });
        alive.delete(id);
      }
    }
  }, 180_000);
  afterAll(() => store?.close());

  /** The workspace's rows as stored, times to the microsecond. */
  const storedRows = async (): Promise<Row[]> =>
    (
      await store.db.query<Row>(
        `SELECT flipbook_id::text AS id, title, status,
           (extract(epoch FROM created_at) * 1000000)::float8 AS created,
           (extract(epoch FROM updated_at) * 1000000)::float8 AS updated
         FROM flipbooks WHERE workspace_id = $1`,
        [workspaceId],
      )
    ).rows;

  /** docs/api.md's list, in JavaScript. */
  const reference = (rows: Row[], q: ListQuery) => {
    const sign = q.dir === 'asc' ? 1 : -1;
    const key = (r: Row) =>
      q.sort === 'title' ? r.title.toLowerCase() : q.sort === 'created_at' ? r.created : r.updated;
    const compare = (a: Row, b: Row) => {
      const [ka, kb] = [key(a), key(b)];
      if (ka !== kb) return (ka < kb ? -1 : 1) * sign;
      return (a.id < b.id ? -1 : 1) * sign;
    };
    const matching = rows
      .filter((r) => q.status === null || r.status === q.status)
      .filter((r) => q.search === null || r.title.toLowerCase().includes(q.search.toLowerCase()))
      .sort(compare);
    const from = (q.page - 1) * q.perPage;
    return { ids: matching.slice(from, from + q.perPage).map((r) => r.id), total: matching.length };
  };

  const queries = function* (perPages: number[], searches = SEARCHES): Generator<ListQuery> {
    for (const sort of SORT_FIELDS)
      for (const dir of ['asc', 'desc'] as const)
        for (const search of searches)
          for (const status of [null, 'published', 'archived'] as const)
            for (const perPage of perPages)
              for (const page of [1, 2, 3, 7, 40, 1_000_000])
                yield { page, perPage, search, status, sort, dir };
  };

  const compareAll = async (perPages: number[], searches = SEARCHES) => {
    const rows = await storedRows();
    let compared = 0;
    for (const q of queries(perPages, searches)) {
      const expected = reference(rows, q);
      // twice: the second time from what the first one left remembered
      for (const _ of [1, 2]) {
        const got = await listFlipbooks(store.db, workspaceId, q);
        expect({ q, ids: got.rows.map((r) => r.flipbook_id), total: got.total }).toEqual({
          q,
          ...expected,
        });
      }
      compared++;
    }
    return compared;
  };

  it('keeps exactly the flipbooks the events leave, per status', async () => {
    const rows = await storedRows();
    expect(new Map(rows.map((r) => [r.id, r.status]))).toEqual(alive);
    expect(new Set(rows.map((r) => r.created)).size).toBeLessThan(40); // ties, on purpose
  });

  it('answers every sort, direction, search, status and page as the reference does', async () => {
    expect(await compareAll([7, 100])).toBeGreaterThan(1000);
  }, 120_000);

  it('gives the API and the dashboard the same pages', async () => {
    const deps = {
      store,
      urls: urlsFor(() => 'http://flipbooks.test'),
      blobs: undefined as never,
      clock: systemClock,
    };
    const caller = { workspaceId, plan: 'team' as const, metadata: TEST_METADATA };
    for (const q of queries([5])) {
      if (q.page > 3) continue;
      const [api, cards] = [
        await listForApi(deps, caller, q),
        await listFlipbookCards(deps, caller, q),
      ];
      expect(cards.cards.map((c) => c.flipbook)).toEqual(api.flipbooks);
      expect(cards.totalPages).toBe(api.total_pages);
    }
  }, 120_000);

  it('keeps the counts right under concurrent archives and restores', async () => {
    await compareAll([10]); // this process remembers where those pages began and ended
    const published = [...alive].filter(([, s]) => s === 'published').map(([id]) => id);
    const archived = [...alive].filter(([, s]) => s === 'archived').map(([id]) => id);
    const now = new Date(BASE + 500_000);
    await Promise.all([
      ...published.slice(0, 30).map((id) => setArchived(id, true, now)),
      ...archived.slice(0, 30).map((id) => setArchived(id, false, now)),
    ]);
    expect(await compareAll([10])).toBeGreaterThan(500);
  }, 120_000);

  it('lists each change at once, wherever pages were remembered', async () => {
    const ids = [...alive.keys()];
    const changes: [string, () => Promise<unknown>][] = [
      ['a new title', () => run(ids[3] as string, edit('Aardvark'))],
      [
        'a new flipbook',
        () => create(workspaceId, 5).then(({ flipbookId }) => alive.set(flipbookId, 'published')),
      ],
      [
        'a deletion',
        () =>
          run(ids[4] as string, { type: 'DeleteFlipbook', data: { now: at(0, 1, 600_000) } }).then(
            () => alive.delete(ids[4] as string),
          ),
      ],
      [
        'a later updated_at',
        () =>
          run(ids[6] as string, {
            type: 'SetDownload',
            data: { allowed: false, now: at(0, 1, 700_000) },
          }),
      ],
      [
        'a version processed',
        () => {
          const [flipbookId, versionId] = [...pending].find(([id]) => alive.has(id)) ?? [];
          return run(flipbookId as string, {
            type: 'CompleteProcessing',
            data: {
              versionId: versionId as string,
              width: 612,
              height: 792,
              pages: [{ pageId: randomUUID(), position: 1, width: 612, height: 792 }],
              now: at(0, 1, 800_000),
            },
          });
        },
      ],
    ];
    const searches = [null, 'CaTaLoG', 'aardvark', '%'];
    await compareAll([10], searches);
    for (const [, change] of changes) {
      await change();
      expect(await compareAll([10], searches)).toBeGreaterThan(400);
    }
  }, 240_000);

  it('lists the same after a replay rebuilds the tables', async () => {
    const client = await store.pool.connect();
    try {
      await rebuildReadTables(client);
    } finally {
      client.release();
    }
    expect(await compareAll([10])).toBeGreaterThan(500);
  }, 120_000);
});
