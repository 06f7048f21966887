import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Command } from 'commander';
import {
  type ClientFlags,
  connectionFrom,
  interactive,
  interruptible,
  type ProgressFlags,
  parseTimeout,
  progressFormat,
  reportPublished,
  withClientOptions,
  withProgressOption,
} from '../clientOptions.ts';
import { flagDirection, flagSlug, flagVisibility } from '../fieldFlags.ts';
import { type Progress, publish } from '../services/publish.ts';
import { progressLines } from '../ui/progressLines.ts';

type Flags = ProgressFlags & {
  slug?: string;
  title?: string;
  direction?: string;
  visibility?: string;
  wait?: boolean;
  timeout: string;
};

/**
 * Runs an upload with the view that suits the output: ink on a terminal; lines on stderr
 * otherwise (a pipeline's log, and with --json too: the result alone goes to stdout).
 */
export const withProgress = async <T>(
  file: string,
  flags: ProgressFlags,
  work: (progress: Progress) => Promise<T>,
) => {
  if (interactive(flags)) {
    const size = (await stat(file).catch(() => null))?.size ?? 0;
    // React and ink load only here: a pipeline (no terminal) or --json never parses them.
    const { runPublishView } = await import('../ui/runPublishView.ts');
    return runPublishView(basename(file), size, work);
  }
  return work(progressLines(progressFormat(flags), (line) => process.stderr.write(`${line}\n`)));
};

export const registerPublish = (program: Command) => {
  withProgressOption(
    program
      .command('publish <file>')
      .description('upload a PDF as a new flipbook (or a new version of one: --slug) and print its reader URL')
      .option(
        '--slug <slug>',
        'one URL per document: a new version of the flipbook with this slug, active when processed; the flipbook is made with it the first time',
      )
      .option('--title <title>', 'title (default: the file name)')
      .option(
        '--direction <direction>',
        'reading direction: ltr, rtl or auto (default: auto, as the PDF says)',
      )
      .option(
        '--visibility <who>',
        'who may read a new flipbook: public (the default), workspace or links (docs/access.md)',
      )
      .option('--wait', 'wait until processing is done or failed')
      .option('--timeout <seconds>', 'with --wait: give up after this long (exit 4)', '600'),
  ).action(async (file: string, flags: Flags) => {
    progressFormat(flags); // a wrong --progress is a usage error before anything is sent
    const direction = flags.direction === undefined ? undefined : flagDirection(flags.direction);
    const visibility =
      flags.visibility === undefined ? undefined : flagVisibility(flags.visibility);
    const connection = await connectionFrom(flags);
    const timeoutMs = parseTimeout(flags.timeout);
    const signal = interruptible();
    const result = await withProgress(file, flags, (progress) =>
      publish(
        {
          connection,
          file,
          ...(flags.slug === undefined ? {} : { slug: flagSlug(flags.slug) }),
          title: flags.title,
          direction,
          visibility,
          wait: Boolean(flags.wait),
          timeoutMs,
          signal,
        },
        progress,
      ),
    );
    reportPublished(result, flags);
  });
};
