// How many different names a flipbook's day keeps (issue 40): what a beacon names is counted,
// but not every name it may say gets a row of its own, so no sender can grow the figures
// without bound. src/state/analytics.ts holds the day's rows to these; ingest.ts its memory.

/**
 * The name that stands for every name past a day's cap (brackets: no host, country code or
 * device class has them, as `(direct)` and `(unknown)`).
 */
export const OTHER = '(other)';
/**
 * A flipbook's different names of each kind kept a day (issue 40): a referring site's host is
 * whatever a beacon says, so without a cap one sender could add a row kept for years with every
 * beacon (a probe added 1.59 M rows in 240 s and the book's report went past its budget). The
 * first names of a day (the most opened first within a write) keep their row; the day's later
 * ones are counted together as OTHER. A country code is one of at most 676 (about 250 in use):
 * its cap names them all. Device classes are three.
 */
export const SOURCE_NAMES_PER_DAY = { referrer: 100, country: 300, device: 100 } as const;
/**
 * A flipbook's different links (version, page, place on it) kept a day: a beacon may name any
 * place from 0 to 9,999 on any page. The day's later ones are counted together in one row, of
 * page 0, place 0 (no page is 0), which no report lists.
 */
export const LINKS_PER_DAY = 500;
