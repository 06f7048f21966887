// The audit trail as people read it: one flipbook's events (the CLI's `events`, the API's
// /flipbooks/:id/events), a workspace's events across its streams (`audit log`), and the whole
// log with its chain hashes (`audit export`). Every event shows its metadata in one shape, with
// what old events did not record as null; internal details (key hashes) never show.

import type { EventList } from '../contract/events.ts';
import { NotFound } from '../domain/errors.ts';
import { flipbookStream } from '../domain/flipbook/flipbook.ts';
import { isUuid } from '../domain/uuid.ts';
import {
  chainedEvents,
  type LoggedRow,
  streamEvents,
  streamLength,
  type TrailFilter,
  workspaceEvents,
} from '../queries/eventLog.ts';
import { findFlipbook } from '../readTables/flipbooks.ts';
import type { Store } from '../store/store.ts';
import { type ShownMetadata, showMetadata } from './eventContext.ts';

export type LoggedEvent = {
  /** the event's own id: what a later event's causation_id names */
  id: string;
  /** e.g. flipbook-<id>, workspace-<id> */
  stream: string;
  position: number;
  at: string;
  type: string;
  data: Record<string, unknown>;
  metadata: ShownMetadata;
};

/** Data fields that are the service's own business, not the audit's. */
const INTERNAL = new Set(['keyHash']);

export const presentEvent = (row: LoggedRow): LoggedEvent => ({
  id: row.id,
  stream: row.stream,
  position: row.position,
  at: typeof row.data.occurredAt === 'string' ? row.data.occurredAt : row.recorded,
  type: row.type,
  data: Object.fromEntries(Object.entries(row.data).filter(([key]) => !INTERNAL.has(key))),
  metadata: showMetadata(row.metadata),
});

/** Every event of one flipbook, in order (admin CLI: no workspace scope). */
export const flipbookEvents = async (store: Store, flipbookId: string): Promise<LoggedEvent[]> => {
  if (!isUuid(flipbookId)) throw new NotFound(`No flipbook with id ${flipbookId}`);
  const stream = flipbookStream(flipbookId.toLowerCase());
  const length = await streamLength(store.db, stream);
  if (length === 0) throw new NotFound(`No flipbook with id ${flipbookId}`);
  return (await streamEvents(store.db, stream, 1, length)).map(presentEvent);
};

/**
 * One page of a flipbook's events for a caller of the API: another workspace's flipbook is not
 * found, like everywhere else (its first event says whose it is, even after a deletion).
 */
export const flipbookTrail = async (
  store: Store,
  workspaceId: string,
  flipbookId: string,
  page: number,
  perPage: number,
): Promise<EventList> => {
  const stream = flipbookStream(flipbookId);
  const [first] = await streamEvents(store.db, stream, 1, 1);
  // Another workspace's flipbook is not found, and neither is a deleted one: after a deletion
  // every URL of it is a 404 (its events stay, for `flipbook events` and `flipbook audit log`).
  if (!first || first.data.workspaceId !== workspaceId) throw new NotFound('Flipbook not found');
  if (!(await findFlipbook(store.db, workspaceId, flipbookId))) {
    throw new NotFound('Flipbook not found');
  }
  const length = await streamLength(store.db, stream);
  const rows = await streamEvents(store.db, stream, (page - 1) * perPage + 1, perPage);
  return {
    events: rows.map(presentEvent),
    page,
    per_page: perPage,
    total_pages: Math.ceil(length / perPage),
  };
};

/** A workspace's trail across its flipbooks and keys, in log order, filtered. */
export async function* workspaceTrail(store: Store, filter: TrailFilter) {
  let after = '0';
  for (;;) {
    const rows = await workspaceEvents(store.db, filter, after, 500);
    for (const row of rows) yield presentEvent(row);
    if (rows.length < 500) return;
    after = rows.at(-1)?.global ?? after;
  }
}

/** The whole log in chain order, each event as stored with its link (docs/audit.md). */
export async function* exportLog(store: Store) {
  let after = '0';
  for (;;) {
    const rows = await chainedEvents(store.db, after, 500);
    for (const row of rows) {
      yield {
        seq: Number(row.seq),
        stream: row.stream,
        position: row.position,
        id: row.id,
        type: row.type,
        data: row.data,
        metadata: row.metadata,
        recorded: row.recorded,
        hash: row.hash,
      };
    }
    if (rows.length < 500) return;
    after = rows.at(-1)?.seq ?? after;
  }
}
