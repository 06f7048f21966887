// How long processing should take, from the page count and the speed measured on this server.

import type { Db } from '../readTables/readTable.ts';
import { measuredSecondsPerPage } from '../readTables/versions.ts';

/** Before anything has been measured: ~10 pages/s, what three renditions cost on 2 cores. */
const DEFAULT_SECONDS_PER_PAGE = 0.1;
const FIXED_OVERHEAD_SECONDS = 0.5;
/** When the page count is unknown (a password-protected PDF), assume a short document. */
const UNKNOWN_PAGES = 10;

export const estimateSeconds = async (db: Db, pages: number | null) => {
  const perPage = (await measuredSecondsPerPage(db)) ?? DEFAULT_SECONDS_PER_PAGE;
  const seconds = FIXED_OVERHEAD_SECONDS + (pages ?? UNKNOWN_PAGES) * perPage;
  return Math.round(seconds * 100) / 100;
};
