// The read tables as they were at a past moment, for `GET /flipbooks/:id?at=`. A flipbook's
// events up to that moment are applied, by the very projections that keep the live tables, to
// temporary tables of the same shape, in a transaction that is rolled back: PostgreSQL looks up
// temporary tables first, so the live queries (findFlipbook, listVersions, listPages) read the
// past without a second copy of any of them.
import { flipbooks } from '../readTables/flipbooks.ts';
import { pages } from '../readTables/pages.ts';
import type { Db, DomainEvent } from '../readTables/readTable.ts';
import { versions } from '../readTables/versions.ts';

/** What a flipbook's page shows: these tables, in an order where each can see the ones before. */
const SHOWN = [flipbooks, versions, pages];

type Connectable = { connect: () => Promise<Db & { release: () => void }> };

export const withTablesAsOf = async <T>(
  pool: Connectable,
  events: DomainEvent[],
  read: (db: Db) => Promise<T>,
): Promise<T> => {
  const client = await pool.connect();
  try {
    await client.query('BEGIN READ WRITE');
    for (const table of SHOWN) {
      // unqualified, the name still means the live table here: copy its shape, then shadow it
      await client.query(
        `CREATE TEMP TABLE ${table.table} (LIKE ${table.table} INCLUDING ALL) ON COMMIT DROP`,
      );
    }
    for (const event of events) {
      for (const table of SHOWN) {
        if (table.handles.includes(event.type)) await table.apply(client, event);
      }
    }
    return await read(client);
  } finally {
    await client.query('ROLLBACK').catch(() => {});
    client.release();
  }
};
