// A report's tables as CSV (RFC 4180, CRLF), for spreadsheets: the days or the pages of a
// FlipbookStats (./stats.ts). One definition for the dashboard's download and `flipbook stats --csv`.
import type { FlipbookStats } from './stats.ts';

export const STATS_TABLES = {
  days: ['date', 'opens', 'views', 'readers', 'read_seconds'],
  pages: ['position', 'views', 'seconds'],
} as const;
export type StatsTable = keyof typeof STATS_TABLES;

/** A field quoted when it holds a comma, a quote or a line break. */
const field = (value: unknown) => {
  const text = String(value ?? '');
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

export const statsCsv = (stats: FlipbookStats, table: StatsTable) => {
  const columns = STATS_TABLES[table];
  const rows = stats[table] as unknown as Record<string, unknown>[];
  return [columns, ...rows.map((r) => columns.map((c) => r[c]))]
    .map((line) => line.map(field).join(','))
    .join('\r\n')
    .concat('\r\n');
};
