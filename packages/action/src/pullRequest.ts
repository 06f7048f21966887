// A pull request's preview. Opened, synchronized or reopened: a pending commit status, the PDF
// published as the preview `pr-<number>`, waited for (processed and compared), the pull
// request's one comment written (found by its marker, never a second), then the status success
// with the preview's address, or failure when processing failed. Closed: merged promotes the
// preview (what was reviewed goes live), not merged deletes it, and the comment says which.
import * as core from '@actions/core';
import { ApiError } from '../../cli/src/client/cliErrors.ts';
import {
  closedMarkdown,
  commentMarker,
  previewMarkdown,
  summaryLine,
} from '../../cli/src/previewReport.ts';
import { ActionError, failureWords } from './actionError.ts';
import type { FlipbookApi, Preview } from './flipbookApi.ts';
import { type GithubApi, upsertComment } from './githubApi.ts';
import type { Outcome } from './report.ts';
import type { PullRequestPayload } from './runnerContext.ts';

export type PullRequestRun = {
  flipbook: FlipbookApi;
  github: GithubApi;
  slug: string;
  file: string;
  timeoutMs: number;
  payload: PullRequestPayload;
};

export const previewName = (number: number) => `pr-${number}`;

/** What the `changed-pages` output counts: pages changed, inserted and removed. */
export const changedPages = (preview: Preview) =>
  preview.compare && !preview.compare.failure
    ? preview.compare.changed.length +
      preview.compare.inserted.length +
      preview.compare.removed.length
    : 0;

/** The result, and how long of the run was spent waiting for the server's processing. */
export type PreviewOutcome = Outcome & { failed: boolean; summary: string; waitedMs: number };

export const publishPullRequest = async (run: PullRequestRun): Promise<PreviewOutcome> => {
  const { flipbook, github, slug, payload } = run;
  const name = previewName(payload.number);
  const sha = payload.pull_request.head.sha;
  const context = `flipbook/${slug}`;
  await github.setStatus(sha, {
    state: 'pending',
    context,
    description: `Publishing the preview ${name}…`,
  });
  let preview: Preview;
  let waitedMs = 0;
  try {
    const created = await flipbook.publishPreview(slug, name, run.file);
    core.info(
      `Published the preview ${name} of ${slug} (version ${created.version_id}); waiting for it`,
    );
    const started = performance.now();
    let said = '';
    preview = await flipbook.waitForPreview(slug, name, {
      timeoutMs: run.timeoutMs,
      onStatus: (now) => {
        const words = `${now.status}${now.pages ? ` (${now.pages_done} of ${now.pages} pages)` : ''}`;
        if (words !== said) core.info(`preview: ${words}`);
        said = words;
      },
    });
    waitedMs = performance.now() - started;
  } catch (error) {
    // A status left pending would hold the pull request's checks forever.
    await github
      .setStatus(sha, { state: 'error', context, description: failureWords(error) })
      .catch((again: unknown) =>
        core.warning(`The commit status stays pending: ${failureWords(again)}`),
      );
    throw error;
  }
  const markdown = previewMarkdown(preview, { slug });
  try {
    const comment = await upsertComment(github, payload.number, commentMarker(slug), markdown);
    core.info(`The pull request's comment: ${comment}`);
  } catch (error) {
    // The comment refused (no permission, GitHub failing): the status still says how it ended,
    // never left pending.
    await github
      .setStatus(sha, {
        state: preview.status === 'error' ? 'failure' : 'error',
        context,
        description: `The preview is ready, the comment failed: ${failureWords(error)}`,
        targetUrl: preview.preview_url,
      })
      .catch((again: unknown) =>
        core.warning(`The commit status stays pending: ${failureWords(again)}`),
      );
    throw error;
  }
  const failed = preview.status === 'error';
  await github.setStatus(sha, {
    state: failed ? 'failure' : 'success',
    context,
    description: summaryLine(preview),
    targetUrl: preview.preview_url,
  });
  return {
    url: preview.preview_url,
    previewUrl: preview.preview_url,
    changedPages: changedPages(preview),
    markdown,
    failed,
    summary: summaryLine(preview),
    waitedMs,
  };
};

const gone = (error: unknown) => error instanceof ApiError && error.status === 404;

export const closePullRequest = async (
  run: Omit<PullRequestRun, 'file' | 'timeoutMs'>,
): Promise<Outcome> => {
  const { flipbook, github, slug, payload } = run;
  const name = previewName(payload.number);
  const merged = payload.pull_request.merged === true;
  let markdown: string;
  let url: string | undefined;
  try {
    if (merged) {
      const promoted = await flipbook.promote(slug, name);
      url = await flipbook.readerUrl(promoted.flipbook_id);
      core.info(
        `Promoted the preview ${name}: version ${promoted.active_version_id} is live at ${url}`,
      );
      markdown = closedMarkdown(slug, { merged: true, url });
    } else {
      await flipbook.deletePreview(slug, name);
      core.info(`Deleted the preview ${name} of ${slug}`);
      markdown = closedMarkdown(slug, { merged: false });
    }
  } catch (error) {
    if (!gone(error)) throw error;
    // Deleted by hand, swept as too old, or never made: nothing left to do, and not a failure.
    core.info(
      `The preview ${name} of ${slug} is already gone (${failureWords(error)}): nothing to ${merged ? 'promote' : 'delete'}`,
    );
    // Its comment, if it had one, no longer points at a preview that answers 404.
    const stale = closedMarkdown(slug, { gone: true, merged });
    const existing = await github.findComment(payload.number, commentMarker(slug));
    if (existing) await github.updateComment(existing.id, stale);
    return { markdown: stale };
  }
  const comment = await upsertComment(github, payload.number, commentMarker(slug), markdown);
  core.info(`The pull request's comment: ${comment}`);
  return { url, markdown };
};

/** The pull_request payload's fields the action needs, checked: a clear error, not a TypeError. */
export const pullRequestPayload = (payload: unknown): PullRequestPayload => {
  const p = payload as Partial<PullRequestPayload> | null;
  if (
    !p ||
    typeof p.number !== 'number' ||
    !p.pull_request?.head?.sha ||
    typeof p.action !== 'string'
  ) {
    throw new ActionError(
      'The pull_request event has no number, action or head sha (GITHUB_EVENT_PATH)',
    );
  }
  return p as PullRequestPayload;
};
