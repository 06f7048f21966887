// Read table `versions`: every live version of every flipbook; deleted versions leave it.
import { queryRow, queryRows } from './queryRows.ts';
import type { Db, ReadTable } from './readTable.ts';
import { utc } from './sql.ts';

export const versions: ReadTable = {
  table: 'versions',
  ddl: `CREATE TABLE IF NOT EXISTS versions (
    version_id UUID PRIMARY KEY,
    flipbook_id UUID NOT NULL,
    workspace_id UUID NOT NULL,
    number INT NOT NULL,
    status TEXT NOT NULL,
    is_active BOOLEAN NOT NULL DEFAULT FALSE,
    activate_on_done BOOLEAN NOT NULL,
    file_name TEXT NOT NULL,
    file_type TEXT NOT NULL,
    mime_type TEXT NOT NULL,
    file_size BIGINT NOT NULL,
    checksum TEXT NOT NULL,
    -- the PDF pages, text and downloads are made of: the original itself for a PDF upload, the
    -- one conversion made for any other (VersionConverted), null until it is made
    pdf_checksum TEXT,
    width INT NOT NULL DEFAULT 0,
    height INT NOT NULL DEFAULT 0,
    page_count INT NOT NULL DEFAULT 0,
    error TEXT,
    started_at TIMESTAMPTZ,
    finished_at TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    UNIQUE (flipbook_id, number)
  )`,
  handles: [
    'VersionUploaded',
    'VersionConverted',
    'VersionProcessingStarted',
    'VersionProcessed',
    'VersionProcessingFailed',
    'VersionActivated',
    'VersionDeleted',
    'FlipbookDeleted',
  ],
  apply: async (db, event) => {
    switch (event.type) {
      case 'FlipbookDeleted':
        await db.query('DELETE FROM versions WHERE flipbook_id = $1', [event.data.flipbookId]);
        return;
      case 'VersionUploaded': {
        const { versionId, flipbookId, workspaceId, number, file, activateOnDone, occurredAt } =
          event.data;
        await db.query(
          `INSERT INTO versions (version_id, flipbook_id, workspace_id, number, status,
             activate_on_done, file_name, file_type, mime_type, file_size, checksum, pdf_checksum,
             created_at, updated_at)
           VALUES ($1, $2, $3, $4, 'pending', $5, $6, $7, $8, $9, $10,
             CASE WHEN $7 = 'pdf' THEN $10 END, $11, $11)
           ON CONFLICT (version_id) DO NOTHING`,
          [
            versionId,
            flipbookId,
            workspaceId,
            number,
            activateOnDone,
            file.name,
            file.type,
            file.mimeType,
            file.size,
            file.checksum,
            occurredAt,
          ],
        );
        return;
      }
      case 'VersionConverted':
        await db.query(
          'UPDATE versions SET pdf_checksum = $2, updated_at = $3 WHERE version_id = $1',
          [event.data.versionId, event.data.pdf.checksum, event.data.occurredAt],
        );
        return;
      case 'VersionProcessingStarted':
        await db.query(
          `UPDATE versions SET status = 'processing', updated_at = $2, page_count = $3,
             started_at = $2 WHERE version_id = $1`,
          [event.data.versionId, event.data.occurredAt, event.data.pageCount],
        );
        return;
      case 'VersionProcessed': {
        const { versionId, pageCount, width, height, occurredAt } = event.data;
        await db.query(
          `UPDATE versions SET status = 'done', page_count = $2, width = $3, height = $4,
             error = NULL, updated_at = $5, finished_at = $5 WHERE version_id = $1`,
          [versionId, pageCount, width, height, occurredAt],
        );
        return;
      }
      case 'VersionProcessingFailed':
        await db.query(
          `UPDATE versions SET status = 'error', error = $2, updated_at = $3, finished_at = $3
           WHERE version_id = $1`,
          [event.data.versionId, event.data.reason, event.data.occurredAt],
        );
        return;
      case 'VersionActivated':
        // One statement flips both flags, so no reader ever sees two active versions.
        await db.query(
          `UPDATE versions SET is_active = (version_id = $2)
           WHERE flipbook_id = $1 AND (is_active OR version_id = $2)`,
          [event.data.flipbookId, event.data.versionId],
        );
        return;
      case 'VersionDeleted':
        await db.query('DELETE FROM versions WHERE version_id = $1', [event.data.versionId]);
        return;
    }
  },
};

/**
 * Whether any live version still uses this original (identical uploads share one file), as its
 * upload or as the PDF made of it.
 */
export const originalInUse = async (db: Db, checksum: string) =>
  (
    await db.query('SELECT 1 FROM versions WHERE checksum = $1 OR pdf_checksum = $1 LIMIT 1', [
      checksum,
    ])
  ).rows.length > 0;

/** A live version's processing status by id alone (page files), or null once it is deleted. */
export const versionStatusById = async (db: Db, versionId: string) =>
  (
    await db.query<{ status: VersionRow['status'] }>(
      'SELECT status FROM versions WHERE version_id = $1',
      [versionId],
    )
  ).rows[0]?.status ?? null;

export type VersionRow = {
  version_id: string;
  flipbook_id: string;
  number: number;
  status: 'pending' | 'processing' | 'done' | 'error';
  is_active: boolean;
  activate_on_done: boolean;
  file_name: string;
  file_type: string;
  mime_type: string;
  file_size: number;
  width: number;
  height: number;
  page_count: number;
  error: string | null;
  created_at: string;
  checksum: string;
  /** the PDF its pages come from: `checksum` for a PDF upload, null until another is converted */
  pdf_checksum: string | null;
};

const VERSION_FIELDS = [
  'version_id',
  'flipbook_id',
  'number',
  'status',
  'is_active',
  'activate_on_done',
  'file_name',
  'file_type',
  'mime_type',
  'file_size',
  'width',
  'height',
  'page_count',
  'error',
  'created_at',
  'checksum',
  'pdf_checksum',
] as const;

/** The version columns of table alias `alias`, each named `prefix` + field (for joins). */
export const versionColumns = (alias: string, prefix = '') =>
  VERSION_FIELDS.map((field) => {
    const name = `${prefix}${field}`;
    if (field === 'file_size') return `${alias}.file_size::float8 AS ${name}`;
    if (field === 'created_at') return utc(`${alias}.created_at`, name);
    return `${alias}.${field} AS ${name}`;
  }).join(', ');

/** All live versions of a flipbook, newest first. */
export const listVersions = async (db: Db, flipbookId: string) =>
  queryRows<VersionRow>(
    db,
    `SELECT ${versionColumns('v')} FROM versions v WHERE v.flipbook_id = $1 ORDER BY v.number DESC`,
    [flipbookId],
  );

/** One version, only if it belongs to that flipbook in that workspace. */
/**
 * Of these flipbooks, those none of whose versions could be processed (each one failed): nothing
 * of them can be read. (A flipbook with a version pending or processing is on its way.)
 */
export const flipbooksWithOnlyFailures = async (db: Db, flipbookIds: string[]) =>
  new Set(
    flipbookIds.length === 0
      ? []
      : (
          await db.query<{ flipbook_id: string }>(
            `SELECT flipbook_id FROM versions WHERE flipbook_id = ANY($1::uuid[])
             GROUP BY flipbook_id HAVING bool_and(status = 'error')`,
            [flipbookIds],
          )
        ).rows.map((r) => r.flipbook_id),
  );

export const findVersion = async (
  db: Db,
  workspaceId: string,
  flipbookId: string,
  versionId: string,
) =>
  queryRow<VersionRow>(
    db,
    `SELECT ${versionColumns('v')} FROM versions v
       WHERE v.version_id = $1 AND v.flipbook_id = $2 AND v.workspace_id = $3`,
    [versionId, flipbookId, workspaceId],
  );

export const countVersions = async (db: Db, flipbookId: string) =>
  Number(
    (
      await db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM versions WHERE flipbook_id = $1',
        [flipbookId],
      )
    ).rows[0]?.n ?? 0,
  );

/**
 * Measured processing speed: seconds per page over the last 50 finished versions, or null when
 * nothing has been processed yet.
 */
export const measuredSecondsPerPage = async (db: Db) => {
  const { rows } = await db.query<{ spp: number | null }>(
    // Weighted by pages, from the attempt that finished (started_at is each attempt's start): a
    // one-page version that waited out a full disk must not make every estimate an hour.
    `SELECT (sum(extract(epoch FROM finished_at - started_at)) / sum(page_count))::float8 AS spp
     FROM (SELECT finished_at, started_at, page_count FROM versions
           WHERE status = 'done' AND page_count > 0 AND started_at IS NOT NULL
           ORDER BY finished_at DESC LIMIT 50) recent`,
  );
  return rows[0]?.spp ?? null;
};

/** Of these values of a column, the ones some version's row still holds. */
const stillHeld = async (
  db: Db,
  column: 'checksum' | 'pdf_checksum' | 'version_id',
  values: string[],
) =>
  new Set(
    (
      await db.query<{ value: string }>(
        `SELECT DISTINCT ${column}::text AS value FROM versions
         WHERE ${column} = ANY($1::${column === 'version_id' ? 'uuid' : 'text'}[])`,
        [values],
      )
    ).rows.map((row) => row.value),
  );

/**
 * Of these checksums, the ones a live version still uses, as its upload or as the PDF made of
 * it (the blob sweep keeps their originals).
 */
export const checksumsInUse = async (db: Db, checksums: string[]) =>
  new Set([
    ...(await stillHeld(db, 'checksum', checksums)),
    ...(await stillHeld(db, 'pdf_checksum', checksums)),
  ]);

/** Of these version ids, the live ones (a deleted version's row is gone from this table). */
export const liveVersionIds = (db: Db, versionIds: string[]) =>
  stillHeld(db, 'version_id', versionIds);
