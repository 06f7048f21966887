// `flipbook publish FILE`: a new flipbook, a new version of the one with --slug, or with
// --preview a preview of a change to it (./publishPreview.ts); the flags only, the work in
// ../services/publish.ts.
import type { Command } from 'commander';
import {
  type ClientFlags,
  connectionFrom,
  interruptible,
  parseTimeout,
  progressFormat,
  reportPublished,
  withClientOptions,
  withProgressOption,
} from '../clientOptions.ts';
import { flagDirection, flagSlug, flagVisibility } from '../fieldFlags.ts';
import { withProgress } from '../progressView.ts';
import { publish } from '../services/publish.ts';
import { type PreviewFlags, publishAsPreview } from './publishPreview.ts';

export const registerPublish = (program: Command) => {
  withProgressOption(
    program
      .command('publish <file>')
      .description(
        'upload a PDF, an office document, an image or a folder of images (one page each) as a new flipbook (or a new version of one: --slug) and print its reader URL',
      )
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
      .option(
        '--preview <name>',
        'with --slug: publish a preview under this name (e.g. pr-128), never live until promoted (`flipbook preview promote`); prints its URL',
      )
      .option(
        '--wait',
        'wait until processing is done or failed (a preview: and compared with the live version)',
      )
      .option(
        '--markdown <file>',
        'with --preview: write the pull-request comment (summary, changed pages) to this file; waits',
      )
      .option('--timeout <seconds>', 'with --wait: give up after this long (exit 4)', '600'),
  ).action(async (file: string, flags: PreviewFlags) => {
    progressFormat(flags); // a wrong --progress is a usage error before anything is sent
    if (flags.preview !== undefined || flags.markdown !== undefined) {
      return publishAsPreview(file, flags);
    }
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
