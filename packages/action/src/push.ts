// A push (to main, as the workflow says): the PDF published to the slug as `flipbook publish
// --slug S --wait` does, its new version live once processed; the output `url` is its reader.
import * as core from '@actions/core';
import { ActionError } from './actionError.ts';
import type { FlipbookApi } from './flipbookApi.ts';
import type { Outcome } from './report.ts';

export const publishPush = async (
  flipbook: FlipbookApi,
  run: { slug: string; file: string; timeoutMs: number },
): Promise<Outcome> => {
  const result = await flipbook.publishToSlug(run.slug, run.file, run.timeoutMs);
  if (result.status === 'error') {
    throw new ActionError(
      `Processing ended in error: ${result.error_reason ?? 'unknown'} (version ${result.version_id}; the live version is unchanged)`,
    );
  }
  core.info(`Published ${run.slug}: ${result.url} (${result.pages} pages)`);
  return {
    url: result.url,
    markdown: `### Flipbook \`${run.slug}\` published\n\n[${result.url}](${result.url}) (${result.pages} pages).\n`,
  };
};
