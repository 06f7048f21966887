// A flipbook's reading figures (beyond the spec; issue 30, docs/privacy.md): the query and the
// answer of GET /flipbooks/:id/stats, one definition each.
import { type Static, Type } from '@sinclair/typebox';
import { Closed, Count, Named, Uuid } from './common.ts';

/** The longest range a report covers: the longest a workspace keeps figures, and a day. */
export const MAX_STATS_DAYS = 3661;
/** A report without `from` covers this many days, up to `to`. */
export const DEFAULT_STATS_DAYS = 30;

const DATE = '^\\d{4}-\\d{2}-\\d{2}$';
const day = (description: string) =>
  Type.String({ pattern: DATE, examples: ['2026-11-28'], description });

export const StatsQuery = Closed({
  from: Type.Optional(
    day(
      `The first day (UTC, YYYY-MM-DD) counted; default: ${DEFAULT_STATS_DAYS - 1} days before \`to\``,
    ),
  ),
  to: Type.Optional(day('The last day (UTC, YYYY-MM-DD) counted, inclusive; default: today')),
});
export type StatsQuery = Static<typeof StatsQuery>;

const readers = Count(
  'Readers: different readers each day, summed over the days (a reader of two days counts twice). A reader is a hash of address, browser and flipbook under a salt deleted after its day: no one is known, nor followed from one day to the next',
);
const figures = {
  opens: Count('Times the reader was opened (each load of its page)'),
  views: Count('Pages seen (a page on screen at least a second; both pages of a spread count)'),
  readers,
  read_seconds: Type.Number({
    minimum: 0,
    description: 'Seconds pages were on screen while the reader was visible, summed over pages',
  }),
};

export const StatsDay = Named('StatsDay', {
  date: day('The day (UTC)'),
  ...figures,
});

const StatsSource = Named('StatsSource', {
  name: Type.String({
    description:
      'A referring site’s host (`news.example.org`), `(direct)` for none, or `(other)`: the sites past a day’s first 100 different ones, together; a device class: `phone`, `tablet` or `desktop`; a country’s code, or `(other)` past a day’s first 300',
  }),
  opens: Count('Opens from it'),
});

export const FlipbookStats = Named(
  'FlipbookStats',
  {
    flipbook_id: Uuid('The flipbook'),
    from: day('The first day counted'),
    to: day('The last day counted'),
    ...figures,
    average_read_seconds: Type.Number({
      minimum: 0,
      description: 'read_seconds per open: how long a reading lasted on average',
    }),
    searches: Count('Searches made in the reader (how many; never their words)'),
    downloads: Count('Downloads of the PDF from the reader'),
    zooms: Count('Times a reader zoomed in'),
    days: Type.Array(StatsDay, {
      description: 'Every day of the range, oldest first, zeros included',
    }),
    pages: Type.Array(
      Named('StatsPage', {
        position: Count('The page (1-based)', 1),
        views: Count('Times it was seen; against page 1, how far readers got'),
        seconds: Type.Number({ minimum: 0, description: 'Seconds it was on screen, summed' }),
      }),
      {
        description:
          'Every page of the active version, zeros included: what was read of the pages readers see now (an earlier version’s pages are counted apart, and not shown)',
      },
    ),
    links: Type.Array(
      Named('StatsLink', {
        page: Count('The page the link is on', 1),
        link: Count('Its place among the page’s links (0-based, as document.json lists them)'),
        clicks: Count('Times it was followed'),
      }),
      {
        description:
          'Links on the active version’s pages followed, the most followed first (at most 50); clicks on links past a day’s first 500 different ones are counted but not listed',
      },
    ),
    referrers: Type.Array(StatsSource, {
      description: 'Where readers came from, the most first (at most 50)',
    }),
    devices: Type.Array(StatsSource, {
      description: 'The kinds of device readers used, the most first',
    }),
    countries: Type.Array(StatsSource, {
      description:
        'Readers’ countries (ISO 3166-1 alpha-2 codes, `(unknown)` for an address the database does not place), the most first (at most 50); empty unless the operator gave a GeoIP database (`serve --geoip-file`)',
    }),
    share_links: Type.Array(
      Named('StatsShareLink', {
        id: Uuid('The share link'),
        label: Type.Union([Type.String(), Type.Null()], {
          description: 'Its label; null once the link is gone',
        }),
        ...figures,
      }),
      { description: 'Readings by each share link (private publishing), the most viewed first' },
    ),
  },
  { description: 'A flipbook’s reading figures over a range of days (UTC)' },
);
export type FlipbookStats = Static<typeof FlipbookStats>;
