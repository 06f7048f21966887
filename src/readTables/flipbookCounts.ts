// Read table `flipbook_counts`: per workspace, how many flipbooks it has of each status, and
// which transaction last changed its list. The list's `total_pages` (and the plan's flipbook
// quota) read this row instead of counting every flipbook of the workspace on each request, and
// a daemon's remembered page ends (listMarks.ts) hold only while its stamps stay the same.
//
// flipbooks.ts keeps the counts and `changed`, in the same `apply` that writes the row it counts,
// so the two can never disagree (an inline projection: one transaction). The events that only move
// a flipbook's updated_at (its versions', a download switch) are stamped here, by the last read
// table of an append: the row is locked until the commit, so appends in one workspace take turns
// on it, and the later it is taken the shorter they wait. Replay drops and rebuilds it with the
// rest (the stamps then name the replay's transaction, so nothing remembered from before a replay
// can pass for current).
import type { Db, DomainEvent, ReadTable } from './readTable.ts';

/** What happens to a flipbook's versions: each moves the flipbook's updated_at (flipbooks.ts). */
export const VERSION_EVENTS: DomainEvent['type'][] = [
  'VersionUploaded',
  'VersionProcessed',
  'VersionProcessingFailed',
  'VersionActivated',
  'VersionDeleted',
];

export const flipbookCounts: ReadTable = {
  table: 'flipbook_counts',
  ddl: `CREATE TABLE IF NOT EXISTS flipbook_counts (
    workspace_id UUID PRIMARY KEY,
    published INT NOT NULL,
    archived INT NOT NULL,
    -- the transaction (pg_current_xact_id) that last added, removed, archived, restored or
    -- retitled one of the workspace's flipbooks: the created_at and title orders hold until it changes
    changed TEXT NOT NULL,
    -- the last that changed any of them at all (updated_at included)
    touched TEXT NOT NULL
  )`,
  handles: ['FlipbookDownloadChanged', ...VERSION_EVENTS],
  apply: async (db, event) => {
    if (!('flipbookId' in event.data)) return;
    await db.query(
      `INSERT INTO flipbook_counts (workspace_id, published, archived, changed, touched)
       SELECT workspace_id, 0, 0, pg_current_xact_id()::text, pg_current_xact_id()::text
       FROM flipbooks WHERE flipbook_id = $1
       ON CONFLICT (workspace_id) DO UPDATE SET touched = EXCLUDED.touched`,
      [event.data.flipbookId],
    );
  },
};

export type FlipbookStatus = 'published' | 'archived';

/**
 * Records a change to the workspace's flipbooks in this transaction: the counts' deltas, and the
 * stamps (`reordered`: the created_at and title orders may have changed too). One row per
 * workspace, so concurrent appends simply take turns on it.
 */
export const noteListChange = (
  db: Db,
  workspaceId: string,
  change: Partial<Record<FlipbookStatus, number>> & { reordered: boolean },
) =>
  db.query(
    `INSERT INTO flipbook_counts (workspace_id, published, archived, changed, touched)
     VALUES ($1, $2, $3, pg_current_xact_id()::text, pg_current_xact_id()::text)
     ON CONFLICT (workspace_id) DO UPDATE SET
       published = flipbook_counts.published + EXCLUDED.published,
       archived = flipbook_counts.archived + EXCLUDED.archived,
       changed = CASE WHEN $4 THEN EXCLUDED.changed ELSE flipbook_counts.changed END,
       touched = EXCLUDED.touched`,
    [workspaceId, change.published ?? 0, change.archived ?? 0, change.reordered],
  );

/** SQL for the workspace's ($1) number of flipbooks, of one status if `statusParam` is given. */
export const countSql = (statusParam: string | null) =>
  `SELECT coalesce(sum(${
    statusParam === null
      ? 'published + archived'
      : `CASE WHEN ${statusParam} = 'archived' THEN archived ELSE published END`
  }), 0)::int FROM flipbook_counts WHERE workspace_id = $1`;

/** How many flipbooks the workspace has (the plan's quota counts archived ones too). */
export const countWorkspaceFlipbooks = async (db: Db, workspaceId: string) =>
  (await db.query<{ n: number }>(countSql(null).replace('::int', '::int AS n'), [workspaceId]))
    .rows[0]?.n ?? 0;
