// How a publishing command shows an upload and its wait: chosen once, from the outputs and flags.
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { interactive, type ProgressFlags, progressFormat } from './clientOptions.ts';
import type { Progress } from './services/publish.ts';
import { progressLines } from './ui/progressLines.ts';

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
    const { runPublishView } = await import('./ui/runPublishView.ts');
    return runPublishView(basename(file), size, work);
  }
  return work(progressLines(progressFormat(flags), (line) => process.stderr.write(`${line}\n`)));
};
