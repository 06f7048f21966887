import type { Command } from 'commander';
import { apiClient, type VersionStatus } from '../client/apiClient.ts';
import { processingFailed } from '../client/cliErrors.ts';
import { waitForVersion } from '../client/waitForVersion.ts';
import {
  connectionFrom,
  interruptible,
  type ProgressFlags,
  parseTimeout,
  progressFormat,
  withProgressOption,
} from '../clientOptions.ts';
import { progressLines } from '../ui/progressLines.ts';
import { pagesWord } from '../client/pagesWord.ts';

export const registerStatus = (program: Command) => {
  withProgressOption(
    program
      .command('status <flipbookId> <versionId>')
      .description("a version's processing status")
      .option('--wait', 'wait until processing is done or failed')
      .option('--timeout <seconds>', 'with --wait: give up after this long (exit 4)', '600'),
  ).action(
    async (
      flipbookId: string,
      versionId: string,
      flags: ProgressFlags & { wait?: boolean; timeout: string },
    ) => {
      // Lines on stderr, with --json too: only the result goes to stdout.
      const progress = progressLines(progressFormat(flags), (line) =>
        process.stderr.write(`${line}\n`),
      );
      const client = apiClient(await connectionFrom(flags), progress.onWait);
      let status: VersionStatus;
      if (flags.wait) {
        let last: VersionStatus | null = null;
        const options = { timeoutMs: parseTimeout(flags.timeout), signal: interruptible() };
        for await (const s of waitForVersion(client, flipbookId, versionId, options)) {
          progress.onStatus?.(s);
          last = s;
        }
        status = last as VersionStatus;
      } else {
        status = await client.status(flipbookId, versionId);
      }
      if (flags.json) process.stdout.write(`${JSON.stringify(status)}\n`);
      else
        process.stdout.write(
          `${status.status}${status.pages ? ` (${pagesWord(status.pages)})` : ''}${status.is_active ? ', active' : ''}\n`,
        );
      if (status.status === 'error') throw processingFailed(status.error_reason);
    },
  );
};
