// What a run leaves for the rest of the workflow: the step's outputs (GITHUB_OUTPUT) and its job
// summary (GITHUB_STEP_SUMMARY), written through @actions/core as the runner reads them.
import * as core from '@actions/core';

export type Outcome = {
  /** what the run published or made live */
  url?: string;
  previewUrl?: string;
  /** changed + inserted + removed pages of the comparison */
  changedPages?: number;
  /** the job summary, the pull request's comment when there is one */
  markdown: string;
};

export const report = async (outcome: Outcome) => {
  core.setOutput('url', outcome.url ?? '');
  core.setOutput('preview-url', outcome.previewUrl ?? '');
  core.setOutput('changed-pages', String(outcome.changedPages ?? 0));
  // Outside a runner (a local try) there is no summary file: nothing to write to.
  if (process.env.GITHUB_STEP_SUMMARY) await core.summary.addRaw(outcome.markdown).write();
};
