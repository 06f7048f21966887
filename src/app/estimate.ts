// How long processing should take, from the page count and the speed measured on this server.

import { isOfficeType } from '../pdf/documentTypes.ts';
import type { Db } from '../readTables/readTable.ts';
import { measuredSecondsPerPage } from '../readTables/versions.ts';

/** Before anything has been measured: ~10 pages/s, what three renditions cost on 2 cores. */
const DEFAULT_SECONDS_PER_PAGE = 0.1;
const FIXED_OVERHEAD_SECONDS = 0.5;
/** When the page count is unknown (a password-protected PDF), assume a short document. */
const UNKNOWN_PAGES = 10;

/**
 * An office document's conversion: LibreOffice's start (~2 s on 2 cores, a fresh profile each
 * time) and a typical deck's or report's export, measured here (docs/processing.md, "Office
 * documents and images"). Its pages are unknown until then: UNKNOWN_PAGES.
 */
const CONVERSION_SECONDS = 5;

export const estimateSeconds = async (
  db: Db,
  pages: number | null,
  /** the upload's type: an office document's estimate covers its conversion too */
  fileType = 'pdf',
) => {
  const perPage = (await measuredSecondsPerPage(db)) ?? DEFAULT_SECONDS_PER_PAGE;
  const converting = isOfficeType(fileType) ? CONVERSION_SECONDS : 0;
  const seconds = FIXED_OVERHEAD_SECONDS + converting + (pages ?? UNKNOWN_PAGES) * perPage;
  return Math.round(seconds * 100) / 100;
};
