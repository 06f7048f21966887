// Drops every read table and rebuilds it from the events, in one transaction: readers see the old
// tables or the new ones, never a half-built one, and a failure leaves the old ones in place.
import type pg from 'pg';
import { READ_MODEL_VERSION, readTables } from '../../projections/index.ts';
import type { DomainEvent } from '../../projections/readTable.ts';
import { applyToReadTables } from './projections.ts';

const BATCH = 1000;

export type ReplayReport = { events: number; milliseconds: number };

export const rebuildReadTables = async (client: pg.PoolClient): Promise<ReplayReport> => {
  const started = performance.now();
  await client.query('BEGIN');
  try {
    // Writers wait while we rebuild (appends insert into emt_messages first, so they block before
    // touching a read table); readers of the event log are not blocked.
    await client.query('LOCK TABLE emt_messages IN EXCLUSIVE MODE');
    for (const table of [...readTables].reverse()) {
      await client.query(`DROP TABLE IF EXISTS ${table.table}`);
    }
    for (const table of readTables) await client.query(table.ddl);

    let applied = 0;
    let after = -1n;
    for (;;) {
      const { rows } = await client.query<{
        position: string;
        type: string;
        data: unknown;
        metadata: Record<string, unknown>;
        id: string;
      }>(
        `SELECT global_position AS position, message_type AS type, message_data AS data,
           message_metadata AS metadata, message_id AS id
         FROM emt_messages WHERE message_kind = 'E' AND NOT is_archived AND global_position > $1
         ORDER BY global_position LIMIT ${BATCH}`,
        [after.toString()],
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
      after = BigInt(rows[rows.length - 1]?.position ?? after);
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
