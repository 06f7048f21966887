// Read table `flipbook_counts`: how many flipbooks each workspace has, per status. The list's
// `total_pages` (and the plan's flipbook quota) read one or two rows here instead of counting
// every flipbook of the workspace on each request.
//
// flipbooks.ts keeps it, in the same `apply` that inserts, archives, restores or deletes the row
// it counts, so the two can never disagree (an inline projection: one transaction). It is listed
// among the read tables so that `replay` drops and rebuilds it with the rest.
import type { Db, ReadTable } from './readTable.ts';

export const flipbookCounts: ReadTable = {
  table: 'flipbook_counts',
  ddl: `CREATE TABLE IF NOT EXISTS flipbook_counts (
    workspace_id UUID NOT NULL,
    status TEXT NOT NULL,
    n INT NOT NULL,
    PRIMARY KEY (workspace_id, status)
  )`,
  handles: [],
  apply: async () => {},
};

export type FlipbookStatus = 'published' | 'archived';

/**
 * Adds the deltas to a workspace's counts. Both rows are written every time, always archived
 * before published: two appends moving flipbooks in opposite directions lock the rows in the
 * same order, so they wait for each other instead of deadlocking.
 */
export const addToCounts = (
  db: Db,
  workspaceId: string,
  delta: Partial<Record<FlipbookStatus, number>>,
) =>
  db.query(
    `INSERT INTO flipbook_counts (workspace_id, status, n)
     VALUES ($1, 'archived', $2), ($1, 'published', $3)
     ON CONFLICT (workspace_id, status) DO UPDATE SET n = flipbook_counts.n + EXCLUDED.n`,
    [workspaceId, delta.archived ?? 0, delta.published ?? 0],
  );

/** SQL for a workspace's number of flipbooks ($1), of one status if `statusParam` is given. */
export const countSql = (statusParam: string | null) =>
  `SELECT coalesce(sum(n), 0)::int FROM flipbook_counts WHERE workspace_id = $1` +
  (statusParam === null ? '' : ` AND status = ${statusParam}`);
