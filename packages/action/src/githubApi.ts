// The few GitHub REST calls the action makes: a commit status, and the pull request's one comment
// found by its hidden marker (every page of the comments read, then PATCHed or POSTed); rate
// limits, 5xx and broken connections tried again, as GitHub's REST API guide asks. Over undici,
// through HTTPS_PROXY/HTTP_PROXY when set (a self-hosted runner behind a proxy), at
// GITHUB_API_URL (GitHub Enterprise Server's is https://HOST/api/v3).
import * as core from '@actions/core';
import { Agent, type Dispatcher, EnvHttpProxyAgent, request } from 'undici';
import { sleep } from '../../cli/src/client/apiClient.ts';
import { ActionError } from './actionError.ts';
import type { Github } from './runnerContext.ts';

/** GitHub refused or failed a request: its status and its own words. */
export class GithubError extends ActionError {
  override name = 'GithubError';
}

export type CommitState = 'pending' | 'success' | 'failure' | 'error';

/** GitHub refuses a longer description (422). */
export const MAX_STATUS_DESCRIPTION = 140;

export const clip = (text: string) =>
  text.length <= MAX_STATUS_DESCRIPTION ? text : `${text.slice(0, MAX_STATUS_DESCRIPTION - 1)}…`;

type Comment = { id: number; body?: string };

/** The `rel="next"` address of a Link header, if any. */
export const nextLink = (link: string | string[] | undefined) =>
  /<([^>]+)>;\s*rel="next"/.exec(String(link ?? ''))?.[1] ?? null;

type Method = 'GET' | 'POST' | 'PATCH';

const ATTEMPTS = 4;
const backoffMs = (attempt: number) => 1000 * 2 ** (attempt - 1);
/** The longest wait for a rate limit: a job waits a minute, not an hour. */
const MAX_RATE_WAIT_MS = 60_000;

/** How long GitHub asks to wait before asking again, or null when it is not a rate limit. */
export const rateLimitWaitMs = (
  status: number,
  headers: Record<string, string | string[] | undefined>,
  now = Date.now(),
): number | null => {
  if (status !== 429 && status !== 403) return null;
  const retryAfter = Number(headers['retry-after']);
  if (headers['retry-after'] !== undefined && Number.isFinite(retryAfter)) {
    return Math.min(MAX_RATE_WAIT_MS, retryAfter * 1000);
  }
  if (headers['x-ratelimit-remaining'] === '0') {
    const reset = Number(headers['x-ratelimit-reset']) * 1000;
    return Math.min(MAX_RATE_WAIT_MS, Math.max(1000, reset - now));
  }
  return status === 429 ? 1000 : null;
};

export const githubApi = (github: Github) => {
  const proxied = ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy'].some(
    (name) => process.env[name],
  );
  const agent: Dispatcher = proxied ? new EnvHttpProxyAgent() : new Agent();
  const repoPath = `/repos/${github.owner}/${github.repo}`;

  /** One request; a network failure throws with undici's code. */
  const send = async (method: Method, address: string, body: unknown) => {
    const response = await request(address, {
      dispatcher: agent,
      method,
      headers: {
        authorization: `Bearer ${github.token}`,
        accept: 'application/vnd.github+json',
        'x-github-api-version': '2022-11-28',
        'user-agent': 'flipbook-action',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      headersTimeout: 60_000,
      bodyTimeout: 60_000,
    });
    const text = await response.body.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = { message: text.slice(0, 200) };
    }
    return { status: response.statusCode, headers: response.headers, json };
  };

  /**
   * A request, tried again when GitHub says it can be: a rate limit (429, or 403 with
   * Retry-After or no requests left) after the time it names, a 5xx or a broken connection after
   * a backoff. Adding a comment is the exception: sent twice it is two comments, so it is sent
   * again only when the connection was never made.
   */
  const call = async <T>(method: Method, url: string, body?: unknown) => {
    const address = url.startsWith('http') ? url : `${github.api}${url}`;
    const where = `${method} ${new URL(address).pathname}`;
    const repeatable = !(method === 'POST' && /\/comments$/.test(address));
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= ATTEMPTS;
      let answer: Awaited<ReturnType<typeof send>>;
      try {
        answer = await send(method, address, body);
      } catch (error) {
        const code = (error as { code?: string }).code ?? '';
        const neverSent = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'].includes(code);
        if (last || !(repeatable || neverSent)) {
          throw new GithubError(`Cannot reach GitHub for ${where}: ${(error as Error).message}`);
        }
        await sleep(backoffMs(attempt));
        continue;
      }
      const { status, headers, json } = answer;
      if (status < 400) return { json: json as T, next: nextLink(headers.link) };
      const message = (json as { message?: string } | null)?.message ?? 'no message';
      const wait = rateLimitWaitMs(status, headers);
      if (!last && wait !== null) {
        core.info(
          `GitHub's rate limit (${status}: ${message}); retrying in ${Math.ceil(wait / 1000)} s`,
        );
        await sleep(wait);
        continue;
      }
      if (!last && status >= 500 && repeatable) {
        core.info(`GitHub answered ${status} to ${where}; retrying`);
        await sleep(backoffMs(attempt));
        continue;
      }
      // The usual cause, said where it is seen: a token without the workflow's permissions (or
      // a pull request from a fork, whose token only reads).
      const hint =
        status === 403 || status === 404
          ? ' (does the job have `permissions: pull-requests: write` and `statuses: write`?)'
          : '';
      throw new GithubError(`GitHub answered ${status} to ${where}: ${message}${hint}`);
    }
  };

  return {
    setStatus: async (
      sha: string,
      status: { state: CommitState; context: string; description: string; targetUrl?: string },
    ) => {
      await call('POST', `${repoPath}/statuses/${sha}`, {
        state: status.state,
        context: status.context,
        description: clip(status.description),
        ...(status.targetUrl ? { target_url: status.targetUrl } : {}),
      });
    },

    /** The first comment carrying `marker`, looked for on every page. */
    findComment: async (issue: number, marker: string): Promise<Comment | null> => {
      let url: string | null = `${repoPath}/issues/${issue}/comments?per_page=100`;
      while (url) {
        const page: { json: Comment[]; next: string | null } = await call<Comment[]>('GET', url);
        const found = page.json.find((comment) => comment.body?.includes(marker));
        if (found) return found;
        url = page.next;
      }
      return null;
    },

    updateComment: async (id: number, body: string) => {
      await call('PATCH', `${repoPath}/issues/comments/${id}`, { body });
    },

    addComment: async (issue: number, body: string) => {
      await call('POST', `${repoPath}/issues/${issue}/comments`, { body });
    },

    close: () => agent.close(),
  };
};

export type GithubApi = ReturnType<typeof githubApi>;

/** The pull request's one comment with this marker: updated when it is there, else made. */
export const upsertComment = async (
  github: GithubApi,
  issue: number,
  marker: string,
  body: string,
) => {
  const existing = await github.findComment(issue, marker);
  if (existing) await github.updateComment(existing.id, body);
  else await github.addComment(issue, body);
  return existing ? 'updated' : 'created';
};
