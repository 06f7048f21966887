// The few GitHub REST calls the action makes: a commit status, and the pull request's one comment
// found by its hidden marker (every page of the comments read, then PATCHed or POSTed). Over
// undici, through HTTPS_PROXY/HTTP_PROXY when set (a self-hosted runner behind a proxy), at
// GITHUB_API_URL (GitHub Enterprise Server's is https://HOST/api/v3).
import { Agent, type Dispatcher, EnvHttpProxyAgent, request } from 'undici';
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

export const githubApi = (github: Github) => {
  const proxied = ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy'].some(
    (name) => process.env[name],
  );
  const agent: Dispatcher = proxied ? new EnvHttpProxyAgent() : new Agent();
  const repoPath = `/repos/${github.owner}/${github.repo}`;

  const call = async <T>(method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown) => {
    const address = url.startsWith('http') ? url : `${github.api}${url}`;
    let response: Dispatcher.ResponseData;
    try {
      response = await request(address, {
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
    } catch (error) {
      throw new GithubError(`Cannot reach GitHub at ${github.api}: ${(error as Error).message}`);
    }
    const text = await response.body.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = { message: text.slice(0, 200) };
    }
    if (response.statusCode >= 400) {
      const message = (json as { message?: string } | null)?.message ?? 'no message';
      // The usual cause, said where it is seen: a token without the workflow's permissions (or
      // a pull request from a fork, whose token only reads).
      const hint =
        response.statusCode === 403 || response.statusCode === 404
          ? ' (does the job have `permissions: pull-requests: write` and `statuses: write`?)'
          : '';
      throw new GithubError(
        `GitHub answered ${response.statusCode} to ${method} ${new URL(address).pathname}: ${message}${hint}`,
      );
    }
    return { json: json as T, next: nextLink(response.headers.link) };
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
