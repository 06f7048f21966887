import type { Command } from 'commander';
import { apiClient } from '../client/apiClient.ts';
import {
  type ClientFlags,
  connectionFrom,
  interruptible,
  type ProgressFlags,
  parseTimeout,
  progressFormat,
  reportPublished,
  withClientOptions,
  withProgressOption,
} from '../clientOptions.ts';
import { publish } from '../services/publish.ts';
import { withProgress } from '../progressView.ts';

export const registerVersion = (program: Command) => {
  const version = program.command('version').description("manage a flipbook's versions");

  withProgressOption(
    version
      .command('add <flipbookId> <file>')
      .description('upload a PDF as a new version (activated when done, unless --no-activate)')
      .option('--no-activate', 'keep the current version active')
      .option('--wait', 'wait until processing is done or failed')
      .option('--timeout <seconds>', 'with --wait: give up after this long (exit 4)', '600'),
  ).action(
    async (
      flipbookId: string,
      file: string,
      flags: ProgressFlags & { activate: boolean; wait?: boolean; timeout: string },
    ) => {
      progressFormat(flags);
      const connection = await connectionFrom(flags);
      const timeoutMs = parseTimeout(flags.timeout);
      const signal = interruptible();
      const result = await withProgress(file, flags, (progress) =>
        publish(
          {
            connection,
            file,
            flipbookId,
            activate: flags.activate,
            wait: Boolean(flags.wait),
            timeoutMs,
            signal,
          },
          progress,
        ),
      );
      reportPublished(result, flags);
    },
  );

  withClientOptions(
    version
      .command('activate <flipbookId> <versionId>')
      .description('make a version the active one'),
  ).action(async (flipbookId: string, versionId: string, flags: ClientFlags) => {
    const result = await apiClient(await connectionFrom(flags)).activate(flipbookId, versionId);
    if (flags.json) process.stdout.write(`${JSON.stringify(result)}\n`);
    else process.stdout.write(`active version: ${result.active_version_id}\n`);
  });

  withClientOptions(
    version.command('delete <flipbookId> <versionId>').description('delete an inactive version'),
  ).action(async (flipbookId: string, versionId: string, flags: ClientFlags) => {
    const result = await apiClient(await connectionFrom(flags)).remove(flipbookId, versionId);
    if (flags.json) process.stdout.write(`${JSON.stringify(result)}\n`);
    else process.stdout.write(`deleted version ${versionId}\n`);
  });
};
