// The two answers the reads of the read tables give: every row a query finds, or the one row it
// finds (null when none: a row that is not there is an answer, not an error).
import type { Db, Prepared } from './readTable.ts';

type Row = Record<string, unknown>;

export const queryRows = async <R extends Row>(
  db: Db,
  text: string | Prepared,
  values?: unknown[],
) => (await db.query<R>(text, values)).rows;

export const queryRow = async <R extends Row>(
  db: Db,
  text: string | Prepared,
  values?: unknown[],
) => (await db.query<R>(text, values)).rows[0] ?? null;
