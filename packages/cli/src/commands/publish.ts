import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Command } from 'commander';
import {
  type ClientFlags,
  connectionFrom,
  interactive,
  interruptible,
  parseTimeout,
  reportPublished,
  withClientOptions,
} from '../clientOptions.ts';
import { describePace, type Sample } from '../client/processingPace.ts';
import { flagDirection, flagSlug, flagVisibility } from '../fieldFlags.ts';
import { type Progress, publish } from '../services/publish.ts';

type Flags = ClientFlags & {
  slug?: string;
  title?: string;
  direction?: string;
  visibility?: string;
  wait?: boolean;
  timeout: string;
};

const PLAIN_EVERY_MS = 5000;

/** Runs an upload with the view that suits the output: ink on a terminal, lines otherwise. */
export const withProgress = async <T>(
  file: string,
  flags: ClientFlags,
  work: (progress: Progress) => Promise<T>,
) => {
  if (interactive(flags)) {
    const size = (await stat(file).catch(() => null))?.size ?? 0;
    // React and ink load only here: a pipeline (no terminal) or --json never parses them.
    const { runPublishView } = await import('../ui/runPublishView.ts');
    return runPublishView(basename(file), size, work);
  }
  // No terminal (a pipeline's log): a line when the status changes, and while processing at most
  // one every 5 s, when pages were done since.
  const plain = !flags.json;
  let lastStatus = '';
  let lastLine = 0;
  let lastDone = -1;
  const samples: Sample[] = [];
  return work({
    onWait: (note) => process.stderr.write(`${note}\n`),
    onStatus: (s) => {
      const now = Date.now();
      const done = s.pages_done ?? 0;
      samples.push({ at: now, done });
      const changed = s.status !== lastStatus;
      const moved = s.status === 'processing' && done !== lastDone && now - lastLine >= PLAIN_EVERY_MS;
      if (plain && (changed || moved)) {
        const pace = s.status === 'processing' ? describePace(done, s.pages, samples) : '';
        const detail = pace || (s.pages ? `${s.pages} pages` : '');
        process.stderr.write(`status: ${s.status}${detail ? ` (${detail})` : ''}\n`);
        lastLine = now;
        lastDone = done;
      }
      lastStatus = s.status;
    },
  });
};

export const registerPublish = (program: Command) => {
  withClientOptions(
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
