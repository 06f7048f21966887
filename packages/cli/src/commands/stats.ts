// `flipbook stats`: a flipbook's reading figures over the API (docs/privacy.md): totals, then
// the days, the pages (how far readers got), links, referrers, devices and share links; --csv
// for a spreadsheet (one table, the days), --json for everything.
import type { Command } from 'commander';
import type { FlipbookStats } from '../../../../src/contract/stats.ts';
import { STATS_TABLES, statsCsv } from '../../../../src/contract/statsCsv.ts';
import { apiClient } from '../client/apiClient.ts';
import { type ClientFlags, connectionFrom, withClientOptions } from '../clientOptions.ts';
import { duration, printJson, printTable, safe } from '../output.ts';

type StatsFlags = ClientFlags & { from?: string; to?: string; csv?: boolean; pages?: boolean };

const DAY_COLUMNS = [...STATS_TABLES.days];
const PAGE_COLUMNS = [...STATS_TABLES.pages];

const printStats = (s: FlipbookStats, withPages: boolean) => {
  const out = (text: string) => process.stdout.write(text);
  out(`Reading figures of ${s.flipbook_id}, ${s.from} to ${s.to} (UTC)\n\n`);
  printTable(
    [
      { figure: 'opens', value: s.opens },
      { figure: 'readers', value: s.readers },
      { figure: 'pages seen', value: s.views },
      { figure: 'reading time', value: duration(s.read_seconds) },
      { figure: 'average reading', value: duration(s.average_read_seconds) },
      { figure: 'searches', value: s.searches },
      { figure: 'downloads', value: s.downloads },
      { figure: 'zooms', value: s.zooms },
    ],
    ['figure', 'value'],
  );
  out('\nDays with readings\n');
  printTable(
    s.days.filter((d) => d.opens || d.views),
    DAY_COLUMNS,
  );
  if (withPages) {
    out('\nPages (views against page 1: how far readers got)\n');
    printTable(s.pages, PAGE_COLUMNS);
  }
  out('\nReferrers\n');
  printTable(s.referrers, ['name', 'opens']);
  out('\nDevices\n');
  printTable(s.devices, ['name', 'opens']);
  if (s.countries.length) {
    out('\nCountries\n');
    printTable(s.countries, ['name', 'opens']);
  }
  if (s.links.length) {
    out('\nLinks followed\n');
    // (the API counts a page's links from 0; people from 1, as the dashboard does)
    printTable(
      s.links.map((l) => ({ ...l, link: l.link + 1 })),
      ['page', 'link', 'clicks'],
    );
  }
  if (s.share_links.length) {
    out('\nShare links\n');
    printTable(
      s.share_links.map((l) => ({ ...l, label: l.label === null ? '(revoked)' : safe(l.label) })),
      ['id', 'label', 'opens', 'readers', 'views', 'read_seconds'],
    );
  }
};

export const registerStats = (program: Command) => {
  withClientOptions(
    program
      .command('stats <flipbookId>')
      .description(
        "a flipbook's reading figures: opens, readers, pages seen and for how long, day by day (the last 30 days unless --from/--to)",
      )
      .option('--from <day>', 'the first day counted, YYYY-MM-DD (UTC)')
      .option('--to <day>', 'the last day counted, YYYY-MM-DD (UTC); default: today')
      .option('--pages', 'also list every page: views and seconds')
      .option('--csv', 'the days as CSV (with --pages: the pages)'),
  ).action(async (flipbookId: string, flags: StatsFlags) => {
    const stats = await apiClient(await connectionFrom(flags)).stats(flipbookId, {
      from: flags.from,
      to: flags.to,
    });
    if (flags.json) return printJson(stats);
    if (flags.csv) {
      process.stdout.write(statsCsv(stats, flags.pages ? 'pages' : 'days'));
      return;
    }
    printStats(stats, flags.pages ?? false);
  });
};
