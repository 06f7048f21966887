// `flipbook share readers`: who read through a share link that asks for their address (issue 44;
// docs/access.md, "Who reads"): a table, the API's JSON (--json), or its CSV as the server wrote it
// (--csv: for a spreadsheet, byte for byte what the dashboard's download gives).
import type { Command } from 'commander';
import { apiClient } from '../client/apiClient.ts';
import { CliError, EXIT } from '../client/cliErrors.ts';
import { type ClientFlags, connectionFrom, withClientOptions } from '../clientOptions.ts';
import { NO_READERS, READER_COLUMNS, readerRows } from '../linkWords.ts';
import { printJson, printTable } from '../output.ts';

export const registerShareReaders = (share: Command) => {
  withClientOptions(
    share
      .command('readers <flipbookId> <linkId>')
      .description(
        'who read through a share link that asks for an address: opens, time, pages, downloads',
      )
      .option('--csv', 'the readers as CSV, as the server writes it'),
  ).action(async (flipbookId: string, linkId: string, flags: ClientFlags & { csv?: boolean }) => {
    if (flags.csv && flags.json) throw new CliError(EXIT.usage, '--csv and --json: give one');
    const client = apiClient(await connectionFrom(flags));
    if (flags.csv) {
      process.stdout.write(await client.links.readersCsv(flipbookId, linkId));
      return;
    }
    const { readers } = await client.links.readers(flipbookId, linkId);
    if (flags.json) return printJson({ readers });
    if (readers.length === 0) {
      process.stdout.write(NO_READERS);
      return;
    }
    printTable(readerRows(readers), READER_COLUMNS);
  });
};
