// Mounts the route table (src/http/api.ts) on the router: for each endpoint, authentication (unless
// it is public), its path parameters, query and JSON body read against its schemas, then its
// handler, whose result is sent with the endpoint's success status. The body policy applied
// before routing (which requests read their own body) comes from the same table.
import type { ServerResponse } from 'node:http';
import type { Caller } from '../app/caller.ts';
import type { Endpoint } from './endpoint.ts';
import { jsonReader, paramsReader, queryReader } from './endpointInput.ts';
import { pathPattern } from './pathPattern.ts';
import { sendJson } from './respond.ts';
import { queryOf, type Request, type Routes } from './server.ts';
import { dropBodyAfterRefusal } from './upload.ts';

export const API_PREFIX = '/api/v1';

export const mountEndpoints = <Deps>(
  routes: Routes,
  endpoints: readonly Endpoint<Deps>[],
  deps: Deps,
  authenticate: (req: Request) => Promise<Caller>,
) => {
  for (const endpoint of endpoints) {
    const params = endpoint.params ? paramsReader(endpoint.params) : () => ({});
    const query = endpoint.query ? queryReader(endpoint.query, endpoint.queryInvalid) : () => ({});
    const body =
      endpoint.body && 'json' in endpoint.body ? jsonReader(endpoint.body) : async () => undefined;
    const isUpload = endpoint.body !== undefined && 'upload' in endpoint.body;
    routes[endpoint.method](
      API_PREFIX + endpoint.path,
      async (req: Request, res: ServerResponse) => {
        try {
          const caller = endpoint.public
            ? (undefined as unknown as Caller)
            : await authenticate(req);
          const context = {
            req,
            res,
            caller,
            params: params(req.params) as never,
            query: query(queryOf(req)) as never,
            body: (await body(req)) as never,
          };
          const answer = await endpoint.handle(context, deps);
          if (endpoint.ok.status === 204) res.writeHead(204).end();
          else if (endpoint.csv && wantsCsv(req)) {
            const { fileName, text } = endpoint.csv(answer as never);
            const bytes = Buffer.from(text);
            res.writeHead(endpoint.ok.status, {
              'Content-Type': 'text/csv; charset=utf-8',
              'Content-Disposition': `attachment; filename="${fileName}"`,
              'Content-Length': bytes.length,
              'Cache-Control': 'no-store',
            });
            res.end(bytes);
          } else sendJson(res, endpoint.ok.status, answer);
        } catch (error) {
          // An upload refused before its body was read (or while it was): the rest is dropped,
          // not read into the void.
          if (isUpload && !req.readableEnded) dropBodyAfterRefusal(req);
          throw error;
        }
      },
    );
  }
};

/** A request that asks for CSV first (`Accept: text/csv`), of an endpoint that has it. */
const wantsCsv = (req: Request) => /^\s*text\/csv\b/i.test(req.headers.accept ?? '');

/**
 * What the request's endpoint does with a body: `upload` and `json` read their own; for any
 * other request (`none`, or no endpoint) a body is only counted and dropped.
 */
export const bodyPolicy = <Deps>(endpoints: readonly Endpoint<Deps>[]) => {
  const table = endpoints.map((e) => ({
    method: e.method.toUpperCase(),
    pattern: pathPattern(API_PREFIX + e.path),
    kind: e.body === undefined ? ('none' as const) : 'json' in e.body ? 'json' : 'upload',
  }));
  return (method: string | undefined, path: string) =>
    table.find((e) => e.method === method && e.pattern.test(path))?.kind ?? 'none';
};
