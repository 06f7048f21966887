import type { Command } from 'commander';
import { apiClient } from '../client/apiClient.ts';
import { type ClientFlags, connectionFrom, withClientOptions } from '../clientOptions.ts';
import { printTable } from '../output.ts';
import { readerUrl, stateWord } from '../readerWords.ts';

type Flags = ClientFlags & {
  search?: string;
  status?: string;
  sort?: string;
  dir?: string;
  page?: string;
  perPage?: string;
};

export const registerList = (program: Command) => {
  withClientOptions(
    program
      .command('list')
      .description("list the workspace's flipbooks")
      .option('--search <text>', 'title contains')
      .option('--status <status>', 'published (also those not readable yet, or failed) or archived')
      .option('--sort <field>', 'created_at, updated_at or title')
      .option('--dir <dir>', 'asc or desc')
      .option('--page <n>', 'page number')
      .option('--per-page <n>', 'items per page (1-100)'),
  ).action(async (flags: Flags) => {
    const query = new URLSearchParams();
    const add = (name: string, value?: string) => value !== undefined && query.set(name, value);
    add('search', flags.search);
    add('status', flags.status);
    add('sort', flags.sort);
    add('dir', flags.dir);
    add('page', flags.page);
    add('per_page', flags.perPage);
    const list = await apiClient(await connectionFrom(flags)).list(query);
    if (flags.json) {
      process.stdout.write(`${JSON.stringify(list)}\n`);
      return;
    }
    // The status is what its URL shows (a flipbook whose every version failed is not
    // published, whatever the API's status says), and who may read it beside it.
    printTable(
      list.flipbooks.map((f) => ({
        id: f.id,
        title: f.title,
        status: stateWord(f),
        visibility: f.visibility,
        updated: f.updated_at,
        url: readerUrl(f),
      })),
      ['id', 'title', 'status', 'visibility', 'updated', 'url'],
    );
    process.stdout.write(`page ${list.page} of ${Math.max(1, list.total_pages)}\n`);
  });
};
