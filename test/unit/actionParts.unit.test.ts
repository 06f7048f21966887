// The GitHub Action's pure parts (packages/action/src): the Link header's next page, a commit
// status's description within GitHub's 140 characters, the changed-pages count, the words a
// failed step says, and a pull_request payload checked before use.
import { describe, expect, it } from 'vitest';
import { failureWords } from '../../packages/action/src/actionError.ts';
import {
  clip,
  MAX_STATUS_DESCRIPTION,
  nextLink,
  rateLimitWaitMs,
} from '../../packages/action/src/githubApi.ts';
import { changedPages, pullRequestPayload } from '../../packages/action/src/pullRequest.ts';
import { ApiError } from '../../packages/cli/src/client/cliErrors.ts';
import type { Preview } from '../../src/contract/previews.ts';

const preview = (compare: Preview['compare']): Preview => ({
  name: 'pr-1',
  flipbook_id: '00000000-0000-4000-8000-000000000001',
  version_id: '00000000-0000-4000-8000-000000000002',
  status: 'done',
  pages: 3,
  pages_done: 3,
  preview_url: 'https://flipbooks.example.com/p/token',
  created_at: '2026-12-03T10:00:00Z',
  updated_at: '2026-12-03T10:00:00Z',
  reading: { opens: 0, readers: 0, read_seconds: 0 },
  compare,
});

const page = (before: number, after: number) => ({
  before,
  after,
  regions: [[0.1, 0.1, 0.2, 0.05]],
  compare_url: 'https://x.test/c',
  before_image: 'https://x.test/b.png',
  after_image: 'https://x.test/a.png',
  diff_image: 'https://x.test/d.png',
});

describe('the GitHub Action, its pure parts', () => {
  it('follows rel="next" of a Link header, and nothing else', () => {
    const link =
      '<https://api.github.com/repositories/1/issues/7/comments?per_page=100&page=3>; rel="next", <https://api.github.com/repositories/1/issues/7/comments?per_page=100&page=5>; rel="last"';
    expect(nextLink(link)).toBe(
      'https://api.github.com/repositories/1/issues/7/comments?per_page=100&page=3',
    );
    expect(nextLink('<https://api.github.com/x?page=1>; rel="prev"')).toBeNull();
    expect(nextLink(undefined)).toBeNull();
  });

  it("waits as long as GitHub's rate limit says, a minute at most; other refusals are final", () => {
    const now = 1_000_000_000_000;
    expect(rateLimitWaitMs(429, { 'retry-after': '3' }, now)).toBe(3000);
    expect(rateLimitWaitMs(403, { 'retry-after': '7' }, now)).toBe(7000);
    expect(rateLimitWaitMs(403, { 'retry-after': '7200' }, now)).toBe(60_000);
    const reset = String(now / 1000 + 20);
    expect(
      rateLimitWaitMs(403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset }, now),
    ).toBe(20_000);
    expect(rateLimitWaitMs(429, {}, now)).toBe(1000);
    expect(rateLimitWaitMs(403, { 'x-ratelimit-remaining': '12' }, now)).toBeNull();
    expect(rateLimitWaitMs(502, {}, now)).toBeNull();
  });

  it('keeps a status description within 140 characters', () => {
    expect(clip('3 pages changed')).toBe('3 pages changed');
    const long = `Processing failed: ${'x'.repeat(200)}`;
    expect(clip(long)).toHaveLength(MAX_STATUS_DESCRIPTION);
    expect(clip(long).endsWith('…')).toBe(true);
  });

  it('counts changed, inserted and removed pages; none without a comparison', () => {
    const compare = {
      against_version_id: '00000000-0000-4000-8000-000000000003',
      pages_before: 3,
      pages_after: 3,
      changed: [page(2, 2)],
      inserted: [3],
      removed: [3],
      moved: [{ before: 1, after: 2 }],
      unchanged: 1,
    };
    expect(changedPages(preview(compare))).toBe(3);
    expect(changedPages(preview(null))).toBe(0);
    expect(changedPages(preview({ ...compare, failure: 'no live version' }))).toBe(0);
  });

  it("says a server's refusal with its status, and never a stack", () => {
    expect(failureWords(new ApiError(409, 'The preview is not done yet'))).toBe(
      'The flipbook server answered 409: The preview is not done yet',
    );
    expect(failureWords(new ApiError(0, 'Cannot reach https://x.test: ECONNREFUSED'))).toBe(
      'Cannot reach https://x.test: ECONNREFUSED',
    );
    expect(failureWords(new TypeError('x is undefined'))).toBe('x is undefined');
  });

  it('checks a pull_request payload before it is used', () => {
    const payload = {
      action: 'opened',
      number: 7,
      pull_request: { number: 7, merged: false, head: { sha: 'a'.repeat(40) } },
    };
    expect(pullRequestPayload(payload)).toBe(payload);
    expect(() => pullRequestPayload({ action: 'opened' })).toThrow(
      'The pull_request event has no number, action or head sha (GITHUB_EVENT_PATH)',
    );
  });
});
