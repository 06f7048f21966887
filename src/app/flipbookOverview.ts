// What the dashboard shows of one flipbook, beyond the API's Flipbook answer: each version's page
// count and why it failed, how far a render has come (pages ready of the total), whether readers
// may download the original, and its activity (the audit trail, newest first, with version
// numbers for events that name a version by id). Read-only; workspace isolation as everywhere:
// another workspace's flipbook or version is not found.

import { NotFound } from '../domain/errors.ts';
import { flipbookStream } from '../domain/flipbook/flipbook.ts';
import { decisionEvents, streamEvents, streamLength } from '../queries/eventLog.ts';
import { findReaderFlipbook } from '../queries/reader.ts';
import { findFlipbook } from '../readTables/flipbooks.ts';
import { countPages } from '../readTables/pages.ts';
import { findVersion, listVersions, type VersionRow } from '../readTables/versions.ts';
import type { ApiDeps } from './apiDeps.ts';
import type { Caller } from './caller.ts';
import { type LoggedEvent, presentEvent } from './eventLog.ts';
import { everyVersionFailed, presentFlipbook } from './present.ts';

export type VersionLine = {
  id: string;
  number: number;
  status: VersionRow['status'];
  isActive: boolean;
  activateOnDone: boolean;
  fileName: string;
  fileSize: number;
  /** the total once processing knows it (0 before) */
  pageCount: number;
  /** pages rendered so far: equal to pageCount once done */
  pagesReady: number;
  error: string | null;
  createdAt: string;
};

const line = (v: VersionRow, pagesReady: number): VersionLine => ({
  id: v.version_id,
  number: v.number,
  status: v.status,
  isActive: v.is_active,
  activateOnDone: v.activate_on_done,
  fileName: v.file_name,
  fileSize: Number(v.file_size),
  pageCount: v.page_count,
  pagesReady: v.status === 'done' ? v.page_count : pagesReady,
  error: v.status === 'error' ? (v.error ?? 'Processing failed') : null,
  createdAt: v.created_at,
});

/** Pages ready of a version still rendering (a finished one has them all). */
const readyPages = async (deps: ApiDeps, v: VersionRow) =>
  v.status === 'processing' ? await countPages(deps.store.db, v.version_id) : 0;

export const flipbookOverview = async (deps: ApiDeps, caller: Caller, flipbookId: string) => {
  const { db } = deps.store;
  const row = await findFlipbook(db, caller.workspaceId, flipbookId);
  if (!row) throw new NotFound('Flipbook not found');
  const versions = await listVersions(db, flipbookId);
  // The download switch lives beside the reader's columns (the API's answer does not carry it).
  const reader = await findReaderFlipbook(db, flipbookId);
  /** nothing of it was ever readable and nothing is on its way: every version failed */
  const failed = row.active_version_id === null && everyVersionFailed(versions);
  return {
    flipbook: presentFlipbook(deps.urls, row, versions, failed),
    activeVersionId: row.active_version_id,
    downloadAllowed: reader?.download_allowed ?? true,
    versions: await Promise.all(versions.map(async (v) => line(v, await readyPages(deps, v)))),
    failed,
  };
};

export type FlipbookOverview = Awaited<ReturnType<typeof flipbookOverview>>;

/** One version's progress, polled by the dashboard while it is processing. */
export const versionProgress = async (
  deps: ApiDeps,
  caller: Caller,
  flipbookId: string,
  versionId: string,
) => {
  const v = await findVersion(deps.store.db, caller.workspaceId, flipbookId, versionId);
  if (!v) throw new NotFound('Version not found');
  return { ...line(v, await readyPages(deps, v)), readerUrl: deps.urls.reader(flipbookId) };
};

export type Activity = {
  /** newest first */
  events: LoggedEvent[];
  /** every version's number by id, deleted versions included */
  numbers: Map<string, number>;
  /** every share link's label by id (its latest), revoked links included */
  labels: Map<string, string>;
  page: number;
  totalPages: number;
};

/** One page of the flipbook's trail, newest first. */
export const flipbookActivity = async (
  deps: ApiDeps,
  caller: Caller,
  flipbookId: string,
  page: number,
  perPage: number,
): Promise<Activity> => {
  const { db } = deps.store;
  const stream = flipbookStream(flipbookId);
  // Its first event says whose it is; a deleted flipbook is not found either (as in the API).
  const [first] = await streamEvents(db, stream, 1, 1);
  if (!first || first.data.workspaceId !== caller.workspaceId) {
    throw new NotFound('Flipbook not found');
  }
  if (!(await findFlipbook(db, caller.workspaceId, flipbookId))) {
    throw new NotFound('Flipbook not found');
  }
  const length = await streamLength(db, stream);
  const totalPages = Math.max(1, Math.ceil(length / perPage));
  const shown = Math.min(Math.max(1, page), totalPages);
  const last = length - (shown - 1) * perPage;
  const from = Math.max(1, last - perPage + 1);
  const rows = last >= 1 ? await streamEvents(db, stream, from, last - from + 1) : [];
  // Version numbers from the uploads (page lists left out: they are most of a stream's bytes).
  const numbers = new Map<string, number>();
  const labels = new Map<string, string>();
  for (const event of (await decisionEvents(db, stream)).events) {
    if (event.type === 'VersionUploaded') {
      numbers.set(String(event.data.versionId), Number(event.data.number));
    } else if (
      (event.type === 'ShareLinkCreated' || event.type === 'ShareLinkEdited') &&
      typeof event.data.label === 'string'
    ) {
      labels.set(String(event.data.linkId), event.data.label);
    }
  }
  return { events: rows.reverse().map(presentEvent), numbers, labels, page: shown, totalPages };
};
