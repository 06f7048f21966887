import type { Command } from 'commander';
import { apiClient } from '../client/apiClient.ts';
import { type ClientFlags, connectionFrom, withClientOptions } from '../clientOptions.ts';
import { printTable } from '../output.ts';

export const registerShow = (program: Command) => {
  withClientOptions(
    program.command('show <flipbookId>').description('a flipbook with its versions'),
  ).action(async (flipbookId: string, flags: ClientFlags) => {
    const book = await apiClient(await connectionFrom(flags)).show(flipbookId);
    if (flags.json) {
      process.stdout.write(`${JSON.stringify(book)}\n`);
      return;
    }
    process.stdout.write(`${book.title}\n${book.url}\n`);
    printTable(book.versions as Record<string, unknown>[], [
      'id',
      'version',
      'status',
      'is_active',
      'file_name',
    ]);
  });
};
