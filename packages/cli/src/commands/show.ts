import type { Command } from 'commander';
import { apiClient } from '../client/apiClient.ts';
import { type ClientFlags, connectionFrom, withClientOptions } from '../clientOptions.ts';
import { printTable, safe } from '../output.ts';
import { printReader } from '../printReader.ts';

export const registerShow = (program: Command) => {
  withClientOptions(
    program
      .command('show <flipbookId>')
      .description('a flipbook with its versions')
      .option('--at <time>', 'as it was at this RFC 3339 date-time (e.g. 2026-11-23T12:00:00Z)'),
  ).action(async (flipbookId: string, flags: ClientFlags & { at?: string }) => {
    const client = apiClient(await connectionFrom(flags));
    const book = await client.show(flipbookId, flags.at);
    if (flags.json) {
      process.stdout.write(`${JSON.stringify(book)}\n`);
      return;
    }
    process.stdout.write(`${safe(book.title)}\n`);
    await printReader(client, book);
    printTable(book.versions as Record<string, unknown>[], [
      'id',
      'version',
      'status',
      'is_active',
      'file_name',
    ]);
  });
};
