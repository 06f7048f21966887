// Read table `pages`: the pages of every processed version, in order.
import { queryRows } from './queryRows.ts';
import type { Db, ReadTable } from './readTable.ts';

export const pages: ReadTable = {
  table: 'pages',
  ddl: `CREATE TABLE IF NOT EXISTS pages (
    page_id UUID PRIMARY KEY,
    version_id UUID NOT NULL,
    flipbook_id UUID NOT NULL,
    workspace_id UUID NOT NULL,
    position INT NOT NULL,
    width INT NOT NULL,
    height INT NOT NULL,
    UNIQUE (version_id, position)
  )`,
  handles: ['VersionPagesRendered', 'VersionProcessed', 'VersionDeleted', 'FlipbookDeleted'],
  apply: async (db, event) => {
    if (event.type === 'VersionPagesRendered' || event.type === 'VersionProcessed') {
      const { versionId, flipbookId, workspaceId, pages: list } = event.data;
      // One statement for all pages: a 1000-page document is one round trip, not 1000.
      await db.query(
        `INSERT INTO pages (page_id, version_id, flipbook_id, workspace_id, position, width, height)
         SELECT p.page_id, $1, $2, $3, p.position, p.width, p.height
         FROM jsonb_to_recordset($4::jsonb) AS p(page_id UUID, position INT, width INT, height INT)
         ON CONFLICT DO NOTHING`,
        [
          versionId,
          flipbookId,
          workspaceId,
          JSON.stringify(
            list.map((p) => ({
              page_id: p.pageId,
              position: p.position,
              width: p.width,
              height: p.height,
            })),
          ),
        ],
      );
    } else if (event.type === 'FlipbookDeleted') {
      await db.query('DELETE FROM pages WHERE flipbook_id = $1', [event.data.flipbookId]);
    } else if (event.type === 'VersionDeleted') {
      await db.query('DELETE FROM pages WHERE version_id = $1', [event.data.versionId]);
    }
  },
};

export type PageRow = { page_id: string; position: number; width: number; height: number };

/** How many pages of a version are ready (rendered so far, while it processes). */
export const countPages = async (db: Db, versionId: string) =>
  Number(
    (
      await db.query<{ n: string }>('SELECT count(*) AS n FROM pages WHERE version_id = $1', [
        versionId,
      ])
    ).rows[0]?.n ?? 0,
  );

export const listPages = async (db: Db, versionId: string) =>
  queryRows<PageRow>(
    db,
    'SELECT page_id, position, width, height FROM pages WHERE version_id = $1 ORDER BY position',
    [versionId],
  );
