// Flags every publishing command shares, and how its result is shown: one JSON document with
// --json; otherwise short lines (or, on a terminal, a live ink view on stderr).
import type { Command } from 'commander';
import { CliError, EXIT, processingFailed } from './client/cliErrors.ts';
import { resolveConnection } from './client/config.ts';
import type { PublishResult } from './services/publish.ts';
import { PROGRESS_FORMATS, type ProgressFormat } from './ui/progressLines.ts';
import { pagesWord } from './client/pagesWord.ts';

export type ClientFlags = { url?: string; apiKey?: string; json?: boolean };

export const withClientOptions = (command: Command) =>
  command
    .option('--url <url>', 'server URL (default: $FLIPBOOK_URL or `flipbook login`)')
    .option('--api-key <key>', 'API key (default: $FLIPBOOK_API_KEY or `flipbook login`)')
    .option('--json', 'print one JSON document');

/** The server and key; a login saved on this machine is used only when said so on stderr. */
export const connectionFrom = (flags: ClientFlags) =>
  resolveConnection(flags, (note) => process.stderr.write(`${note}\n`));

/** The commands that wait (publish, version add, status): how they show progress. */
export type ProgressFlags = ClientFlags & { progress?: string };

export const withProgressOption = (command: Command) =>
  withClientOptions(command).option(
    '--progress <format>',
    'progress on stderr when not drawn on a terminal: plain (lines), json (one JSON object a line) or none (default: plain)',
  );

/** --progress, or plain: a usage error (exit 2) for anything else. */
export const progressFormat = (flags: ProgressFlags): ProgressFormat => {
  if (flags.progress === undefined) return 'plain';
  const format = PROGRESS_FORMATS.find((f) => f === flags.progress?.trim().toLowerCase());
  if (!format) {
    throw new CliError(
      EXIT.usage,
      `--progress must be ${PROGRESS_FORMATS.join(', ')}, got "${flags.progress}"`,
    );
  }
  return format;
};

/** The live view (ink, on stderr): a terminal on both outputs, and no format asked for. */
export const interactive = (flags: ProgressFlags) =>
  !flags.json &&
  flags.progress === undefined &&
  Boolean(process.stdout.isTTY && process.stderr.isTTY);

export const parseTimeout = (text: string) => {
  const seconds = Number(text);
  if (!(seconds > 0))
    throw new CliError(EXIT.usage, `--timeout must be a number of seconds, got "${text}"`);
  return seconds * 1000;
};

/**
 * Ctrl-C stops waiting cleanly: the signal aborts polling, and the command exits 130; a second
 * Ctrl-C ends it at once. A listener that stays (`on`, not `once`): ink's signal-exit re-raises
 * the signal when it finds itself the only listener left, which killed the command before it
 * could say what to follow.
 */
export const interruptible = () => {
  const controller = new AbortController();
  const onSigint = () => {
    if (!controller.signal.aborted) return controller.abort();
    process.off('SIGINT', onSigint);
    process.kill(process.pid, 'SIGINT');
  };
  process.on('SIGINT', onSigint);
  return controller.signal;
};

export const reportPublished = (result: PublishResult, flags: ClientFlags) => {
  if (flags.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  else {
    process.stdout.write(
      `flipbook ${result.flipbook_id} version ${result.version_id}: ${result.status}` +
        (result.pages ? `, ${pagesWord(result.pages)}` : '') +
        `\n${result.url}\n`,
    );
  }
  if (result.status === 'error') throw processingFailed(result.error_reason);
};
