// What `flipbook publish --preview` leaves for a GitHub Actions job (docs/ci.md): the step's
// outputs in $GITHUB_OUTPUT and the pull-request report in $GITHUB_STEP_SUMMARY, appended as the
// runner reads them. The text is pure (tested as text); `appendToRunner` is the one write.
import { randomUUID } from 'node:crypto';
import { appendFile } from 'node:fs/promises';
import type { Preview } from '../../../src/contract/previews.ts';
import { previewMarkdown, summaryLine } from './previewReport.ts';

/**
 * The step's outputs: `preview-url`; `changed-pages`, the pages changed, inserted and removed
 * (empty until the comparison is made: a publish without --wait); `summary`, the line printed.
 */
export const previewOutputs = (preview: Preview): Record<string, string> => {
  const compare = preview.compare;
  const changed =
    compare && !compare.failure
      ? String(compare.changed.length + compare.inserted.length + compare.removed.length)
      : '';
  return {
    'preview-url': preview.preview_url,
    'changed-pages': changed,
    summary: summaryLine(preview),
  };
};

/**
 * $GITHUB_OUTPUT's format: `name=value`, or for a value over several lines the heredoc form
 * `name<<DELIMITER`, the value, `DELIMITER`, with a delimiter the value cannot contain (a random
 * one, as @actions/core makes it: a value that ended the heredoc early could set other outputs).
 */
export const githubOutputText = (
  outputs: Record<string, string>,
  delimiter: () => string = () => `ghadelimiter_${randomUUID()}`,
): string =>
  Object.entries(outputs)
    .map(([name, value]) => {
      if (!/[\r\n]/.test(value)) return `${name}=${value}\n`;
      let end = delimiter();
      while (value.includes(end) || name.includes(end)) end = delimiter();
      return `${name}<<${end}\n${value}\n${end}\n`;
    })
    .join('');

/** Where the runner reads them: the variables it sets for every step (absent elsewhere). */
export type RunnerFiles = { summary?: string; output?: string };

export const runnerFiles = (env: NodeJS.ProcessEnv = process.env): RunnerFiles => ({
  summary: env.GITHUB_STEP_SUMMARY || undefined,
  output: env.GITHUB_OUTPUT || undefined,
});

/** Appends (other steps' lines stay) the report and the outputs of a preview, where asked. */
export const appendToRunner = async (files: RunnerFiles, preview: Preview, slug: string) => {
  if (files.summary) await appendFile(files.summary, previewMarkdown(preview, { slug }));
  if (files.output) await appendFile(files.output, githubOutputText(previewOutputs(preview)));
};
