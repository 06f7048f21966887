// Drops every read table and rebuilds it from the events, in one transaction: readers see the old
// tables or the new ones, never a half-built one, and a failure leaves the old ones in place.
import type pg from 'pg';
import { READ_MODEL_VERSION, readTables } from '../readTables/index.ts';
import type { DomainEvent } from '../readTables/readTable.ts';
import { applyToReadTables } from './projections.ts';
import { guardReadTables, refuseNewerDatabase, unguardReadTables } from './releaseGuard.ts';

const BATCH = 1000;

export type ReplayReport = { events: number; milliseconds: number };

export const rebuildReadTables = async (client: pg.PoolClient): Promise<ReplayReport> => {
  const started = performance.now();
  // `flipbook replay` of an older release must not rebuild a newer one's tables either.
  await refuseNewerDatabase(client);
  await client.query('BEGIN');
  try {
    // Writers wait while we rebuild (appends insert into emt_messages first, so they block before
    // touching a read table or the chain); readers of the event log are not blocked.
    await client.query('LOCK TABLE emt_messages IN EXCLUSIVE MODE');
    await unguardReadTables(client);
    for (const table of [...readTables].reverse()) {
      await client.query(`DROP TABLE IF EXISTS ${table.table}`);
    }
    for (const table of readTables) await client.query(table.ddl);
    await guardReadTables(client);

    // In the audit chain's order (the order the appends committed), over exactly the events
    // the chain covers: emt_messages' global_position is not covered by any hash, so an edit of
    // it must not reorder what a replay builds, and a row written around the service is not
    // part of the log at all (`flipbook audit verify` names it).
    let applied = 0;
    let after = '0';
    for (;;) {
      const { rows } = await client.query<{
        seq: string;
        type: string;
        data: unknown;
        metadata: Record<string, unknown>;
        id: string;
      }>(
        `SELECT c.seq::text AS seq, m.message_type AS type, m.message_data AS data,
           m.message_metadata AS metadata, m.message_id AS id
         FROM audit_chain c JOIN emt_messages m
           ON m.stream_id = c.stream_id AND m.stream_position = c.stream_position
         WHERE m.message_kind = 'E' AND NOT m.is_archived AND c.seq > $1::bigint
         ORDER BY c.seq LIMIT ${BATCH}`,
        [after],
      );
      for (const row of rows) {
        // with the metadata the inline projections saw when it was appended
        const metadata = { ...row.metadata, messageId: row.id };
        await applyToReadTables(client, {
          type: row.type,
          data: row.data,
          metadata,
        } as DomainEvent);
        applied++;
      }
      if (rows.length < BATCH) break;
      after = rows[rows.length - 1]?.seq ?? after;
    }
    await client.query(
      `INSERT INTO flipbook_meta (key, value) VALUES ('read_model_version', $1)
       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
      [String(READ_MODEL_VERSION)],
    );
    await client.query('COMMIT');
    return { events: applied, milliseconds: Math.round(performance.now() - started) };
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
};
