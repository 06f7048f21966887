// A stand-in for the GitHub REST API, for the GitHub Action's end-to-end test: no GitHub is
// reachable from here (and a real one would need a repository, a token and a pull request of
// its own), so this node:http server implements only the endpoints the action calls, as GitHub
// documents them, and records every request for the test to look at:
//   POST  {base}/repos/{owner}/{repo}/statuses/{sha}                  a commit status (201)
//   GET   {base}/repos/{owner}/{repo}/issues/{n}/comments?per_page=   a page of comments, Link next
//   POST  {base}/repos/{owner}/{repo}/issues/{n}/comments             a new comment (201)
//   PATCH {base}/repos/{owner}/{repo}/issues/comments/{id}            a comment's new body (200)
// It answers under a path prefix (GitHub Enterprise Server's is /api/v3), so GITHUB_API_URL is
// what the action must follow; a request without the token answers 401 as GitHub does.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Recorded = { method: string; path: string; body: unknown };
export type Comment = { id: number; issue: number; body: string };
export type Status = {
  sha: string;
  state: string;
  context: string;
  description?: string;
  target_url?: string;
};

export const startGithubStandIn = async (options: { token: string; base?: string }) => {
  const base = options.base ?? '/api/v3';
  const requests: Recorded[] = [];
  const comments: Comment[] = [];
  const statuses: Status[] = [];
  let nextId = 1000;
  /** answers a test forces for a path pattern (a token without permissions, say) */
  const forced: {
    method: string;
    path: RegExp;
    status: number;
    message: string;
    times: number;
    headers: Record<string, string>;
  }[] = [];
  let origin = '';

  type Answer = (status: number, value: unknown, headers?: Record<string, string>) => void;
  type Route = [
    string,
    RegExp,
    (
      m: RegExpExecArray,
      r: { url: URL; body: Record<string, unknown> | null; answer: Answer },
    ) => void,
  ];
  const routes: Route[] = [
    [
      'POST',
      /^\/repos\/[^/]+\/[^/]+\/statuses\/(\w+)$/,
      (m, { body, answer }) => {
        const status = { sha: m[1] as string, ...(body as Omit<Status, 'sha'>) };
        if ((status.description ?? '').length > 140) {
          return answer(422, { message: 'description is too long (maximum is 140 characters)' });
        }
        statuses.push(status);
        answer(201, { id: statuses.length, ...status });
      },
    ],
    [
      'POST',
      /^\/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/comments$/,
      (m, { body, answer }) => {
        const comment = { id: nextId++, issue: Number(m[1]), body: String(body?.body) };
        comments.push(comment);
        answer(201, comment);
      },
    ],
    [
      'GET',
      /^\/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/comments$/,
      (m, { url, answer }) => {
        const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 30));
        const page = Number(url.searchParams.get('page') ?? 1);
        const all = comments.filter((c) => c.issue === Number(m[1]));
        const next = new URL(url);
        next.searchParams.set('page', String(page + 1));
        const more = page * perPage < all.length;
        answer(
          200,
          all.slice((page - 1) * perPage, page * perPage),
          more ? { link: `<${next}>; rel="next"` } : {},
        );
      },
    ],
    [
      'PATCH',
      /^\/repos\/[^/]+\/[^/]+\/issues\/comments\/(\d+)$/,
      (m, { body, answer }) => {
        const comment = comments.find((c) => c.id === Number(m[1]));
        if (!comment) return answer(404, { message: 'Not Found' });
        comment.body = String(body?.body);
        answer(200, comment);
      },
    ],
  ];

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', origin);
      const method = req.method ?? 'GET';
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text ? (JSON.parse(text) as Record<string, unknown>) : null;
      requests.push({ method, path: `${url.pathname}${url.search}`, body });
      const answer: Answer = (status, value, headers = {}) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
        res.end(JSON.stringify(value));
      };
      if (req.headers.authorization !== `Bearer ${options.token}`) {
        return answer(401, { message: 'Bad credentials' });
      }
      const force = forced.find(
        (f) => f.times > 0 && f.method === method && f.path.test(url.pathname),
      );
      if (force) {
        force.times--;
        return answer(force.status, { message: force.message }, force.headers);
      }
      const path = url.pathname.startsWith(`${base}/`) ? url.pathname.slice(base.length) : '';
      for (const [verb, pattern, handle] of routes) {
        const m = verb === method ? pattern.exec(path) : null;
        if (m) return handle(m, { url, body, answer });
      }
      return answer(404, { message: 'Not Found' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    /** what GITHUB_API_URL is set to */
    apiUrl: `${origin}${base}`,
    requests,
    comments,
    statuses,
    /** a comment someone else wrote (to fill pages before the action's) */
    addComment: (issue: number, body: string) => {
      comments.push({ id: nextId++, issue, body });
    },
    /** answer `status` with `message` (and `headers`) to requests like this, `times` times */
    force: (
      method: string,
      path: RegExp,
      status: number,
      message: string,
      { times = Number.POSITIVE_INFINITY, headers = {} } = {},
    ) => {
      forced.push({ method, path, status, message, times, headers });
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
};
export type GithubStandIn = Awaited<ReturnType<typeof startGithubStandIn>>;
