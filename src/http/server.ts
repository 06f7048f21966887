// The daemon's HTTP side: a polka router on a node:http server we own (so we can close it), and
// one error path that answers every failure as {"error": message}. Unknown routes are a JSON 404.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import polka from 'polka';
import { AppError } from '../domain/errors.ts';
import type { Logger } from '../log.ts';
import { sendError, sendJson } from './respond.ts';

export type Request = IncomingMessage & { params: Record<string, string> };
export type Handler = (req: Request, res: ServerResponse) => Promise<void> | void;

export type Routes = {
  get: (path: string, handler: Handler) => void;
  post: (path: string, handler: Handler) => void;
  delete: (path: string, handler: Handler) => void;
};

/** Runs before routing, for every request; throwing an AppError answers the request with it. */
export type Before = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export const createHttpServer = (
  log: Logger,
  mount: (routes: Routes) => void,
  before: Before = async () => {},
): Server => {
  const server = createServer();
  const app = polka({
    server,
    onNoMatch: (_req, res) => sendError(res, 404, 'Not found'),
  });
  const fail = (req: IncomingMessage, res: ServerResponse, error: unknown) => {
    if (error instanceof AppError) {
      if (res.headersSent) return res.destroy();
      for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
      return sendError(res, error.status, error.message);
    }
    log.error({ err: error, url: req.url }, 'request failed');
    if (!res.headersSent) sendError(res, 500, 'Internal server error');
    else res.destroy();
  };
  // polka 0.5 does not catch a rejected async handler, so every handler goes through this.
  const guard = (handler: Handler) => async (req: IncomingMessage, res: ServerResponse) => {
    try {
      await handler(req as Request, res);
    } catch (error) {
      fail(req, res, error);
    }
  };
  const routes: Routes = {
    get: (path, handler) => void app.get(path, guard(handler)),
    post: (path, handler) => void app.post(path, guard(handler)),
    delete: (path, handler) => void app.delete(path, guard(handler)),
  };
  routes.get('/healthz', (_req, res) => sendJson(res, 200, { status: 'ok' }));
  mount(routes);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    before(req, res).then(
      () => app.handler(req, res),
      (error) => fail(req, res, error),
    );
  });
  return server;
};
