// A flipbook's reading figures over a range of days, for the API, the CLI and the dashboard
// (issue 30). Figures are daily roll-ups (src/state/analytics.ts): a report reads one index
// range per table whatever the traffic.

import { DEFAULT_STATS_DAYS, type FlipbookStats, MAX_STATS_DAYS } from '../../contract/stats.ts';
import { InvalidInput, NotFound } from '../../domain/errors.ts';
import { type DayFigures, flipbookStats, workspaceStats } from '../../queries/analyticsReports.ts';
import { findFlipbook } from '../../readTables/flipbooks.ts';
import { listShareLinks } from '../../readTables/shareLinks.ts';
import { listVersions } from '../../readTables/versions.ts';
import type { Store } from '../../store/store.ts';
import type { Clock } from '../clock.ts';

const DAY_MS = 86_400_000;
const dayOf = (date: Date) => date.toISOString().slice(0, 10);

/** A YYYY-MM-DD that is a real day (not 2026-02-30), as a UTC midnight. */
const realDay = (text: string, name: string) => {
  const at = new Date(`${text}T00:00:00Z`);
  // (year 0000 is a day to JavaScript and none to PostgreSQL)
  if (
    !/^\d{4}-\d{2}-\d{2}$/.test(text) ||
    text.startsWith('0000') ||
    Number.isNaN(at.getTime()) ||
    dayOf(at) !== text
  ) {
    throw new InvalidInput(`Invalid ${name}: a day as YYYY-MM-DD, e.g. 2026-11-28`);
  }
  return at;
};

/** The days a report covers: as asked, else the last DEFAULT_STATS_DAYS up to today. */
export const statsRange = (query: { from?: string; to?: string }, now: Date) => {
  const to = query.to ? realDay(query.to, 'to') : new Date(`${dayOf(now)}T00:00:00Z`);
  const from = query.from
    ? realDay(query.from, 'from')
    : new Date(to.getTime() - (DEFAULT_STATS_DAYS - 1) * DAY_MS);
  const days = Math.round((to.getTime() - from.getTime()) / DAY_MS) + 1;
  if (days < 1) throw new InvalidInput('Invalid range: from is after to');
  if (days > MAX_STATS_DAYS) {
    throw new InvalidInput(`Invalid range: at most ${MAX_STATS_DAYS} days at once`);
  }
  return { from: dayOf(from), to: dayOf(to), days };
};

const round = (n: number) => Math.round(n * 10) / 10;

export const statsOf = async (
  deps: { store: Store; clock: Clock },
  workspaceId: string,
  flipbookId: string,
  query: { from?: string; to?: string },
): Promise<FlipbookStats> => {
  const range = statsRange(query, deps.clock.now());
  const db = deps.store.db;
  const book = await findFlipbook(db, workspaceId, flipbookId);
  // Another workspace's flipbook is as unknown as none (isolation).
  if (!book) throw new NotFound('Flipbook not found');
  const [versions, links] = await Promise.all([
    listVersions(db, flipbookId),
    listShareLinks(db, flipbookId),
  ]);
  // Pages and links are those of the active version (the pages of another may be others).
  const active = versions.find((v) => v.version_id === book.active_version_id);
  const rows = await flipbookStats(
    db,
    flipbookId,
    range.from,
    range.to,
    active?.version_id ?? null,
  );
  const days = everyDay(range, rows.days);
  const byPage = new Map(rows.pages.map((p) => [p.position, p]));
  const lastPage = Math.max(active?.page_count ?? 0, ...rows.pages.map((p) => p.position));
  const pages = Array.from({ length: lastPage }, (_, i) => ({
    position: i + 1,
    views: byPage.get(i + 1)?.views ?? 0,
    seconds: round(byPage.get(i + 1)?.seconds ?? 0),
  }));
  const labels = new Map(links.map((l) => [l.id, l.label]));
  const sources = (kind: string) =>
    rows.sources.filter((s) => s.kind === kind).map((s) => ({ name: s.name, opens: s.opens }));
  const t = rows.totals;
  return {
    flipbook_id: flipbookId,
    from: range.from,
    to: range.to,
    opens: t.opens,
    views: t.views,
    readers: t.readers,
    read_seconds: round(t.read_seconds),
    average_read_seconds: t.opens ? round(t.read_seconds / t.opens) : 0,
    searches: t.searches,
    downloads: t.downloads,
    zooms: t.zooms,
    days,
    pages,
    links: rows.links.map((l) => ({ page: l.position, link: l.link, clicks: l.clicks })),
    referrers: sources('referrer'),
    devices: sources('device'),
    countries: sources('country'),
    share_links: rows.shareLinks.map((l) => ({
      id: l.link_id,
      label: labels.get(l.link_id) ?? null,
      opens: l.opens,
      views: l.views,
      readers: l.readers,
      read_seconds: round(l.read_seconds),
    })),
  };
};

/** Every day of a range with its figures, zeros where there were none. */
const everyDay = (range: { from: string; days: number }, rows: DayFigures[]) => {
  const byDay = new Map(rows.map((d) => [d.day, d]));
  return Array.from({ length: range.days }, (_, i) => {
    const date = dayOf(new Date(Date.parse(`${range.from}T00:00:00Z`) + i * DAY_MS));
    const d = byDay.get(date);
    return {
      date,
      opens: d?.opens ?? 0,
      views: d?.views ?? 0,
      readers: d?.readers ?? 0,
      read_seconds: round(d?.read_seconds ?? 0),
    };
  });
};

/** A workspace's figures: per day, and per flipbook (the dashboard's overview). */
export const workspaceStatsOf = async (
  deps: { store: Store; clock: Clock },
  workspaceId: string,
  query: { from?: string; to?: string },
) => {
  const range = statsRange(query, deps.clock.now());
  const rows = await workspaceStats(deps.store.db, workspaceId, range.from, range.to);
  const days = everyDay(range, rows.days);
  const total = (key: 'opens' | 'views' | 'readers' | 'read_seconds') =>
    days.reduce((sum, d) => sum + d[key], 0);
  return {
    from: range.from,
    to: range.to,
    opens: total('opens'),
    views: total('views'),
    readers: total('readers'),
    read_seconds: round(total('read_seconds')),
    days,
    flipbooks: rows.books.map((b) => ({ ...b, read_seconds: round(b.read_seconds) })),
  };
};
export type WorkspaceStats = Awaited<ReturnType<typeof workspaceStatsOf>>;
