// The GitHub Action's entry (action.yml `runs.main`, bundled into dist/index.mjs by build.ts):
// reads what the runner gives, does what the event asks (a pull request's preview, its
// promotion or deletion, a push's publish), writes the outputs and the job summary, and fails
// the step in words (the answer's status and message), never with a stack trace.
import * as core from '@actions/core';
import { closeConnections } from '../../cli/src/client/apiClient.ts';
import { ActionError, failureWords } from './actionError.ts';
import { flipbookApi } from './flipbookApi.ts';
import { githubApi } from './githubApi.ts';
import { closePullRequest, publishPullRequest, pullRequestPayload } from './pullRequest.ts';
import { publishPush } from './push.ts';
import { report } from './report.ts';
import { readRunnerContext, SUPPORTED_EVENTS } from './runnerContext.ts';

const OPENING = ['opened', 'synchronize', 'reopened'];

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

const run = async () => {
  const started = performance.now();
  const context = readRunnerContext();
  const flipbook = flipbookApi(context.connection, (message) => core.info(message));
  if (context.eventName === 'push') {
    await report(await publishPush(flipbook, context));
    return;
  }
  if (context.eventName !== 'pull_request') {
    throw new ActionError(
      `The flipbook action runs on ${SUPPORTED_EVENTS.join(' and ')} events, not on ${context.eventName || 'an unnamed event'} (GITHUB_EVENT_NAME)`,
    );
  }
  const payload = pullRequestPayload(await context.payload());
  const github = githubApi(context.github());
  try {
    const pr = { flipbook, github, slug: context.slug, payload };
    if (payload.action === 'closed') {
      await report(await closePullRequest(pr));
    } else if (OPENING.includes(payload.action)) {
      const outcome = await publishPullRequest({
        ...pr,
        file: context.file,
        timeoutMs: context.timeoutMs,
      });
      await report(outcome);
      // The action's own time, apart from the server's processing (docs/ci.md: under 5 s).
      core.info(
        `Took ${seconds(performance.now() - started - outcome.waitedMs)}, apart from ${seconds(outcome.waitedMs)} waiting for processing and the comparison`,
      );
      // The comment and the status say it too; the step fails so the pull request's checks do.
      if (outcome.failed) core.setFailed(outcome.summary);
    } else {
      core.info(
        `Nothing to do on pull_request ${payload.action} (only ${[...OPENING, 'closed'].join(', ')})`,
      );
    }
  } finally {
    await github.close();
  }
};

try {
  await run();
} catch (error) {
  core.setFailed(failureWords(error));
} finally {
  await closeConnections();
}
