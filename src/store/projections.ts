// The read tables as Emmett inline projections. They are deliberately unnamed: Emmett 0.42 skips a
// named inline projection, silently, when its advisory lock or registry row says so; an unnamed
// one always runs in the append's transaction.
import { projections } from '@event-driven-io/emmett';
import type { PostgreSQLProjectionDefinition } from '@event-driven-io/emmett-postgresql';
import { EVENT_TYPES } from '../domain/eventTypes.ts';
import { readTables } from '../readTables/index.ts';
import type { Db, DomainEvent } from '../readTables/readTable.ts';
import { chainAppended } from '../state/auditChain.ts';
import { publishAppended } from '../state/eventFeed.ts';

export const applyToReadTables = async (db: Db, event: DomainEvent) => {
  for (const table of readTables) {
    if (table.handles.includes(event.type)) await table.apply(db, event);
  }
};

/** Links the append's events into the audit chain: last, so it locks the chain head last. */
const auditChain: PostgreSQLProjectionDefinition = {
  canHandle: EVENT_TYPES,
  handle: async (events, context) => {
    const db = context.connection.client as unknown as Db;
    const stream = String(events[0]?.metadata.streamName);
    const chained = await chainAppended(
      db,
      stream,
      events.map((e) => BigInt(e.metadata.streamPosition as bigint)),
    );
    // The feed and the webhooks' outbox take the chain's order, in this same transaction.
    await publishAppended(db, chained);
  },
};

export const inlineProjections = () =>
  projections.inline([
    ...readTables.map(
      (table): PostgreSQLProjectionDefinition => ({
        canHandle: table.handles,
        handle: async (events, context) => {
          const db = context.connection.client as unknown as Db;
          for (const event of events) await table.apply(db, event as unknown as DomainEvent);
        },
      }),
    ),
    auditChain,
  ]);
