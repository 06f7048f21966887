// `flipbook events`: the workspace's event feed (GET /api/v1/events, docs/webhooks.md), a page at
// a time or followed as it grows (long polling), for scripts that react to publishing without a
// public address for webhooks.
import type { Command } from 'commander';
import { apiClient } from '../client/apiClient.ts';
import { CliError, EXIT } from '../client/cliErrors.ts';
import { type ClientFlags, connectionFrom, interruptible, withClientOptions } from '../clientOptions.ts';
import { safe } from '../output.ts';

type Flags = ClientFlags & { after?: string; follow?: boolean; limit: string };

export const registerEvents = (program: Command) => {
  withClientOptions(
    program
      .command('events')
      .description("the workspace's events (what webhooks deliver), oldest first; --follow waits for more")
      .option('--after <cursor>', 'after this cursor (a `next`): 0 for the oldest, now for only new ones')
      .option('--limit <n>', 'at most this many a page (1-100)', '100')
      .option('--follow', 'keep waiting for events until Ctrl-C (default --after: now)'),
  ).action(async (flags: Flags) => {
    const limit = Number(flags.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
      throw new CliError(EXIT.usage, `--limit must be an integer from 1 to 100, got "${flags.limit}"`);
    }
    const after = flags.after ?? (flags.follow ? 'now' : '0');
    if (!/^(0|[1-9][0-9]{0,18}|now)$/.test(after)) {
      throw new CliError(EXIT.usage, `--after must be a cursor (a number), 0 or now, got "${after}"`);
    }
    const client = apiClient(await connectionFrom(flags), (note) => process.stderr.write(`${note}\n`));
    const signal = flags.follow ? interruptible() : undefined;
    let cursor = after;
    for (;;) {
      const page = await client.events({ after: cursor, limit, wait: flags.follow ? 30 : 0 }, signal);
      for (const event of page.events) {
        process.stdout.write(
          flags.json
            ? `${JSON.stringify(event)}\n`
            : `${event.at}\t${safe(event.type)}\t${safe(JSON.stringify(event.data))}\n`,
        );
      }
      cursor = page.next;
      // one page, or every page there is now; following, forever
      if (!flags.follow && page.events.length < limit) break;
    }
    if (!flags.json) process.stderr.write(`next: ${cursor}\n`);
  });
};
