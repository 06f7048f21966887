// `flipbook publish FILE --slug S --preview NAME`: the preview's URL, and with --wait (or
// --markdown) what it found, in the words of ../previewReport.ts; in a GitHub Actions job also
// the step's outputs and summary (../githubRunner.ts). The flags are publish's (./publish.ts).
import { writeFileAtomically } from '../../../../src/atomicFile.ts';
import { checkPreviewName } from '../../../../src/domain/flipbook/previews.ts';
import { CliError, EXIT, processingFailed } from '../client/cliErrors.ts';
import {
  connectionFrom,
  interruptible,
  type ProgressFlags,
  parseTimeout,
} from '../clientOptions.ts';
import { flagDirection, flagSlug, flagVisibility } from '../fieldFlags.ts';
import { appendToRunner, runnerFiles } from '../githubRunner.ts';
import { previewMarkdown, summaryLine } from '../previewReport.ts';
import { publishPreview, waitForPreview } from '../services/preview.ts';
import { withProgress } from '../progressView.ts';

export type PreviewFlags = ProgressFlags & {
  slug?: string;
  title?: string;
  direction?: string;
  visibility?: string;
  wait?: boolean;
  timeout: string;
  preview?: string;
  markdown?: string;
};

/** `--preview`'s name by the server's own rule: a usage error (exit 2) before anything is sent. */
const flagPreviewName = (text: string) => {
  // `--preview --wait` (a name forgotten, an empty $NAME unquoted): commander gives the next flag
  // as the value; no one means a preview named after a flag.
  if (text.startsWith('--')) {
    throw new CliError(EXIT.usage, `--preview needs a name, got the flag "${text}"`);
  }
  try {
    return checkPreviewName(text);
  } catch (error) {
    throw new CliError(EXIT.usage, `--preview: ${(error as Error).message}`);
  }
};

const usage = (flags: PreviewFlags) => {
  if (flags.preview === undefined) {
    throw new CliError(EXIT.usage, '--markdown is for a preview: add --slug SLUG --preview NAME');
  }
  if (flags.slug === undefined) {
    throw new CliError(
      EXIT.usage,
      '--preview needs --slug: a preview is one of the flipbook with that slug (flipbook publish FILE --slug SLUG --preview NAME)',
    );
  }
  return { slug: flagSlug(flags.slug), name: flagPreviewName(flags.preview) };
};

export const publishAsPreview = async (file: string, flags: PreviewFlags) => {
  const { slug, name } = usage(flags);
  const direction = flags.direction === undefined ? undefined : flagDirection(flags.direction);
  const visibility = flags.visibility === undefined ? undefined : flagVisibility(flags.visibility);
  // The comment says what changed: there is nothing to write before the comparison.
  const wait = Boolean(flags.wait) || flags.markdown !== undefined;
  const timeoutMs = parseTimeout(flags.timeout);
  const connection = await connectionFrom(flags);
  const signal = interruptible();
  const preview = await withProgress(file, flags, async (progress) => {
    const published = await publishPreview(connection, file, slug, name, {
      title: flags.title,
      direction,
      visibility,
      signal,
      progress,
    });
    return wait
      ? waitForPreview(connection, slug, name, { timeoutMs, signal, progress })
      : published;
  });
  if (flags.markdown !== undefined) {
    await writeFileAtomically(flags.markdown, previewMarkdown(preview, { slug }));
  }
  await appendToRunner(runnerFiles(), preview, slug);
  if (flags.json) process.stdout.write(`${JSON.stringify(preview)}\n`);
  else process.stdout.write(`${preview.preview_url}\n${wait ? `${summaryLine(preview)}\n` : ''}`);
  if (preview.status === 'error') throw processingFailed(preview.error_reason);
};
