// A flipbook as it was at a past moment (`GET /flipbooks/:id?at=`, `flipbook show --at`): the
// audit question "what did the public link show that day, and who put it there?". Its events up
// to that moment, applied by the live projections to temporary tables (src/queries/history.ts).

import { NotFound } from '../domain/errors.ts';
import { flipbookStream } from '../domain/flipbook/flipbook.ts';
import { streamEvents, streamLength } from '../queries/eventLog.ts';
import { withTablesAsOf } from '../queries/history.ts';
import { findFlipbook } from '../readTables/flipbooks.ts';
import type { DomainEvent } from '../readTables/readTable.ts';
import type { ApiDeps } from './apiDeps.ts';
import type { Caller } from './caller.ts';
import { showFlipbook } from './flipbooks.ts';

export const getFlipbookAsOf = async (
  { store, urls }: ApiDeps,
  caller: Caller,
  flipbookId: string,
  at: Date,
) => {
  const stream = flipbookStream(flipbookId);
  const rows = await streamEvents(store.db, stream, 1, await streamLength(store.db, stream));
  // Whose it is comes from its first event: the same 404 as anywhere for another workspace's.
  if (rows[0]?.data.workspaceId !== caller.workspaceId) throw new NotFound('Flipbook not found');
  // a deleted flipbook is gone from the API, its past included (the admin CLI still reads it)
  if (!(await findFlipbook(store.db, caller.workspaceId, flipbookId))) {
    throw new NotFound('Flipbook not found');
  }
  const then = rows.filter((row) => Date.parse(String(row.data.occurredAt)) <= at.getTime());
  if (then.length === 0) throw new NotFound('Flipbook not found');
  const events = then.map(
    (row) =>
      ({
        type: row.type,
        data: row.data,
        metadata: { ...row.metadata, messageId: row.id },
      }) as unknown as DomainEvent,
  );
  return withTablesAsOf(store.pool, events, (db) =>
    showFlipbook(db, urls, caller.workspaceId, flipbookId),
  );
};
