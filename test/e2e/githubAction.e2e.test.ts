// The GitHub Action end to end, run as the runner runs it: the committed bundle
// (packages/action/dist/index.mjs) on the machine's Node 20, its inputs as INPUT_* variables (the
// runner keeps the hyphen: INPUT_API-KEY), the event's payload in a file at GITHUB_EVENT_PATH,
// outputs and summary to the files GITHUB_OUTPUT and GITHUB_STEP_SUMMARY name, against a real
// daemon. GitHub itself is a stand-in (test/support/githubStandIn.ts): none is reachable from
// here; it implements the few endpoints the action calls and records what it was sent.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORPUS, expectJson, form, type Json, pdf, send } from '../support/apiHelpers.ts';
import { ROOT } from '../support/cli.ts';
import { run, systemNode } from '../support/clientInstall.ts';
import { type GithubStandIn, startGithubStandIn } from '../support/githubStandIn.ts';
import { type UsedApi, useApi } from '../support/useApi.ts';

const ACTION = join(ROOT, 'packages/action/dist/index.mjs');
const TOKEN = 'ghs_standInToken0123456789';
const REPO = 'acme/catalogue';
const SLUG = 'catalogue';
const marker = `<!-- flipbook-preview: ${SLUG} -->`;

/** The file GITHUB_OUTPUT names, as @actions/core writes it: `name<<DELIMITER`, value, DELIMITER. */
const parseOutputs = (text: string) => {
  const outputs: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^([^<]+)<<(.+)$/.exec(lines[i] as string);
    if (!m) continue;
    const end = lines.indexOf(m[2] as string, i + 1);
    outputs[m[1] as string] = lines.slice(i + 1, end).join('\n');
    i = end;
  }
  return outputs;
};

describe('the GitHub Action', () => {
  const fx: UsedApi = useApi('embedded', ['--workers', '1', '--rate-limit', '0']);
  let github: GithubStandIn;
  const dir = mkdtempSync(join(tmpdir(), 'flipbook-action-'));
  const node = systemNode();
  /** the corpus's 3-page document, its page 2 removed, and a page appended */
  const pdfs = {
    live: join(CORPUS, 'text_multicolumn.pdf'),
    removed: join(dir, 'removed.pdf'),
    inserted: join(dir, 'inserted.pdf'),
    encrypted: join(CORPUS, 'enc_issue3371.pdf'),
  };

  beforeAll(async () => {
    github = await startGithubStandIn({ token: TOKEN });
    const qpdf = promisify(execFile);
    await qpdf('qpdf', [pdfs.live, '--pages', pdfs.live, '1,3', '--', pdfs.removed]);
    const other = join(CORPUS, 'vec_vector.pdf');
    await qpdf('qpdf', [pdfs.live, '--pages', pdfs.live, '1-z', other, '1', '--', pdfs.inserted]);
  });

  afterAll(async () => {
    await github?.close();
  });

  let runs = 0;
  /** One run of the action, as the runner makes it; its outputs and summary read back. */
  const action = async (
    event: string,
    payload: Json,
    inputs: { file?: string; slug?: string } = {},
  ) => {
    const n = ++runs;
    const at = (name: string) => join(dir, `${name}-${n}`);
    writeFileSync(at('event.json'), JSON.stringify(payload));
    writeFileSync(at('output'), '');
    writeFileSync(at('summary'), '');
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: dir,
      INPUT_URL: fx.daemon.url,
      'INPUT_API-KEY': fx.key,
      INPUT_FILE: inputs.file ?? pdfs.live,
      INPUT_SLUG: inputs.slug ?? SLUG,
      'INPUT_GITHUB-TOKEN': TOKEN,
      INPUT_TIMEOUT: '40',
      GITHUB_ACTIONS: 'true',
      GITHUB_EVENT_NAME: event,
      GITHUB_EVENT_PATH: at('event.json'),
      GITHUB_REPOSITORY: REPO,
      GITHUB_API_URL: github.apiUrl,
      GITHUB_OUTPUT: at('output'),
      GITHUB_STEP_SUMMARY: at('summary'),
    };
    const result = await run(node, [ACTION], env, dir);
    return {
      ...result,
      outputs: parseOutputs(readFileSync(at('output'), 'utf8')),
      summary: readFileSync(at('summary'), 'utf8'),
    };
  };

  const pullRequest = (action: string, number: number, sha: string, merged = false): Json => ({
    action,
    number,
    pull_request: { number, merged, head: { sha } },
    repository: { full_name: REPO },
  });

  const preview = async (name: string) => fx.c.get(`/flipbooks/by-slug/${SLUG}/previews/${name}`);
  const statusesOf = (sha: string) => github.statuses.filter((s) => s.sha === sha);
  const ours = (issue: number) =>
    github.comments.filter((c) => c.issue === issue && c.body.includes(marker));

  /** The slug's flipbook as GET /flipbooks/:id answers it. */
  const book = async () => {
    const listed = await fx.c.list('per_page=100');
    const item = listed.body.flipbooks.find((b: Json) => b.slug === SLUG);
    return item ? ((await fx.c.flipbook(item.id)).body as Json) : undefined;
  };

  it('on push, publishes to the slug and outputs its reader URL', async () => {
    const pushed = await action('push', { ref: 'refs/heads/main', after: 'f'.repeat(40) });
    expect(pushed.code, pushed.stdout).toBe(0);
    const live = await book();
    expect(live?.versions).toHaveLength(1);
    expect(live.versions[0].is_active).toBe(true);
    expect(pushed.outputs.url).toBe(live.url);
    expect(pushed.summary).toContain(live.url);
    expect(github.requests).toEqual([]); // a push asks nothing of GitHub
  });

  let commentId = 0;
  it('on a pull request opened: one comment, the status pending then success with the preview URL', async () => {
    // Others spoke first: the action's comment lands on the second page of comments.
    for (let i = 0; i < 120; i++) github.addComment(7, `review remark ${i}`);
    const sha = 'a'.repeat(40);
    const opened = await action('pull_request', pullRequest('opened', 7, sha), {
      file: pdfs.removed,
    });
    expect(opened.code, opened.stdout).toBe(0);
    const answer = await preview('pr-7');
    expectJson(answer, 200);
    expect(answer.body.compare).not.toBeNull();
    const url = answer.body.preview_url as string;
    expect(statusesOf(sha).map((s) => s.state)).toEqual(['pending', 'success']);
    expect(statusesOf(sha).every((s) => s.context === `flipbook/${SLUG}`)).toBe(true);
    expect(statusesOf(sha)[1]).toMatchObject({ target_url: url });
    expect(statusesOf(sha)[1]?.description).toMatch(/^1 page removed/);
    expect(ours(7)).toHaveLength(1);
    const [comment] = ours(7);
    commentId = comment?.id ?? 0;
    expect(comment?.body).toContain(url);
    expect(comment?.body).toContain('pr-7');
    expect(opened.outputs).toMatchObject({ url, 'preview-url': url, 'changed-pages': '1' });
    expect(opened.summary).toBe(comment?.body);
    // the action's own time, said in the log, apart from the wait
    expect(opened.stdout).toMatch(/Took \d+\.\d s, apart from \d+\.\d s waiting/);
  });

  it('on a later push to it: that same comment updated, never a second', async () => {
    const sha = 'b'.repeat(40);
    const synced = await action('pull_request', pullRequest('synchronize', 7, sha), {
      file: pdfs.inserted,
    });
    expect(synced.code, synced.stdout).toBe(0);
    expect(ours(7)).toHaveLength(1);
    expect(ours(7)[0]?.id).toBe(commentId);
    expect(ours(7)[0]?.body).toMatch(/1 page inserted/);
    expect(github.requests.filter((r) => r.method === 'PATCH')).toHaveLength(1);
    expect(
      github.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/comments')),
    ).toHaveLength(1);
    // both pages of comments read, by the Link header's next
    expect(github.requests.filter((r) => r.method === 'GET').map((r) => r.path)).toContain(
      `/api/v3/repos/${REPO}/issues/7/comments?per_page=100&page=2`,
    );
    expect(statusesOf(sha).map((s) => s.state)).toEqual(['pending', 'success']);
    expect(synced.outputs['changed-pages']).toBe('1');
  });

  it('merged: the preview promoted, the reviewed version live, the comment says so', async () => {
    const reviewed = (await preview('pr-7')).body.version_id as string;
    const merged = await action('pull_request', pullRequest('closed', 7, 'b'.repeat(40), true));
    expect(merged.code, merged.stdout).toBe(0);
    const live = await book();
    expect(live.versions.find((v: Json) => v.is_active)?.id).toBe(reviewed);
    expect((await preview('pr-7')).status).toBe(404);
    expect(ours(7)).toHaveLength(1);
    expect(ours(7)[0]?.body).toContain(`Merged: the reviewed version is now live at ${live.url}`);
    expect(merged.outputs.url).toBe(live.url);
  });

  it('closed without merging: the preview deleted (its URL answers 404); closed again, no failure', async () => {
    const made = await send(`${fx.api}/flipbooks/by-slug/${SLUG}/previews/pr-8`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fx.key}` },
      body: form({}, pdf('text_multicolumn.pdf')),
    });
    expectJson(made, 201);
    // GitHub failing for a moment is tried again: a 502, then its rate limit with Retry-After.
    github.force('GET', /\/issues\/8\/comments$/, 502, 'Server Error', { times: 1 });
    github.force('GET', /\/issues\/8\/comments$/, 429, 'API rate limit exceeded', {
      times: 1,
      headers: { 'retry-after': '1' },
    });
    const closed = await action('pull_request', pullRequest('closed', 8, 'c'.repeat(40)));
    expect(closed.code, closed.stdout).toBe(0);
    expect(closed.stdout).toContain(
      "GitHub's rate limit (429: API rate limit exceeded); retrying in 1 s",
    );
    expect(github.requests.filter((r) => r.path.includes('/issues/8/comments?'))).toHaveLength(3);
    expect((await preview('pr-8')).status).toBe(404);
    expect((await fetch(made.body.preview_url)).status).toBe(404);
    expect(ours(8).map((c) => c.body)).toEqual([
      expect.stringContaining('Closed without merging: the preview was deleted.'),
    ]);
    const again = await action('pull_request', pullRequest('closed', 8, 'c'.repeat(40)));
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout).toContain('already gone');
    expect(ours(8)).toHaveLength(1);
    // its one comment says so, never pointing at a preview that answers 404
    expect(ours(8)[0]?.body).toContain('the preview was already gone');
    // a pull request that never had a preview gets no comment on close
    const never = await action('pull_request', pullRequest('closed', 12, 'b'.repeat(40)));
    expect(never.code, never.stdout).toBe(0);
    expect(github.comments.filter((c) => c.issue === 12)).toEqual([]);
  });

  it('a PDF whose processing fails: the status failure, the comment says why, the step fails', async () => {
    const sha = 'd'.repeat(40);
    const failed = await action('pull_request', pullRequest('opened', 9, sha), {
      file: pdfs.encrypted,
    });
    expect(failed.code).not.toBe(0);
    expect(failed.stdout).toMatch(/::error::Processing failed: .*password/);
    expect(statusesOf(sha).map((s) => s.state)).toEqual(['pending', 'failure']);
    expect(ours(9)).toHaveLength(1);
    expect(ours(9)[0]?.body).toMatch(/Processing failed: .*password/);
  });

  it('fails in words on any other event, naming the supported ones', async () => {
    const other = await action('issues', { action: 'opened' });
    expect(other.code).toBe(1);
    expect(other.stdout).toContain(
      '::error::The flipbook action runs on pull_request and push events, not on issues',
    );
  });

  it("fails with GitHub's status and words when GitHub refuses, never a stack trace", async () => {
    github.force('POST', /\/statuses\//, 403, 'Resource not accessible by integration', {
      times: 1,
    });
    const refused = await action('pull_request', pullRequest('opened', 10, 'e'.repeat(40)));
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(
      /::error::GitHub answered 403 to POST \/api\/v3\/repos\/acme\/catalogue\/statuses\/e{40}: Resource not accessible by integration/,
    );
    expect(`${refused.stdout}${refused.stderr}`).not.toMatch(/\n\s+at /);
  });

  it('never leaves the status pending when the comment is refused', async () => {
    const sha = 'f'.repeat(40);
    github.force('POST', /\/issues\/11\/comments$/, 403, 'Resource not accessible by integration', {
      times: 1,
    });
    const refused = await action('pull_request', pullRequest('opened', 11, sha));
    expect(refused.code, refused.stdout).toBe(1);
    expect(statusesOf(sha).map((s) => s.state)).toEqual(['pending', 'error']);
  });
});
