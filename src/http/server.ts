// The daemon's HTTP side: a polka router, attached to a node:http server we own (so we can close
// it) or handed requests in process by the tests' harness, and one error path that answers every failure as {"error": message}. Unknown routes are a JSON 404,
// a method a known path does not have a 405 naming those it has (`Allow`); requests node:http
// refuses before routing (an over-long header, bad syntax) get JSON errors too.

import { randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import type { Duplex } from 'node:stream';
import polka from 'polka';
import { withBucketBudget } from '../blobs/boundedSend.ts';
import {
  AppError,
  BlobStoreUnavailable,
  InsufficientStorage,
  isOutOfSpace,
  MachineFailure,
} from '../domain/errors.ts';
import type { Logger } from '../log.ts';
import { httpDuration, httpRequests } from '../metrics.ts';
import { withDatabaseBudget } from '../store/databaseLimits.ts';
import { drainSmallLeftover } from './bodyLimit.ts';
import { clientGone } from './clientGone.ts';
import { loggedUrl } from './loggedUrl.ts';
import { pathPattern } from './pathPattern.ts';
import { beginRequest, type ContextOptions } from './requestContext.ts';
import { sendError } from './respond.ts';
import { asUnavailable } from './unavailable.ts';

export type Request = IncomingMessage & { params: Record<string, string> };
export type Handler = (req: Request, res: ServerResponse) => Promise<void> | void;

/** The request's query string, parsed. */
export const queryOf = (req: IncomingMessage) => new URL(req.url ?? '/', 'http://x').searchParams;

export type Routes = {
  get: (path: string, handler: Handler) => void;
  post: (path: string, handler: Handler) => void;
  delete: (path: string, handler: Handler) => void;
  patch: (path: string, handler: Handler) => void;
  /**
   * A route also answered straight from the server's request event, before polka's routing, the
   * `before` hook and the database budget: for a request that reaches no database on its way and
   * comes thousands of times a second (the reader's beacons: their cost is bench/analytics's
   * ingestion target). It keeps what every answer has: its request id, its JSON errors, its
   * metrics. Only its exact method and path take the short way; anything else (a query string, an
   * absolute-form target) reaches the same handler by the usual routing.
   */
  direct: (method: 'POST', path: string, handler: Handler) => void;
};

/** Runs before routing, for every request; throwing an AppError answers the request with it. */
export type Before = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * The HTTP application as node:http's listeners, with no server and no port: a daemon attaches it
 * to its server (`serveHttpApp`), a test hands it requests made in process (test/support/appSpec.ts).
 */
export type HttpApp = {
  /** node:http's 'request' event */
  request: (req: IncomingMessage, res: ServerResponse) => void;
  /** node:http's 'checkExpectation' event: an Expect header other than 100-continue */
  checkExpectation: (req: IncomingMessage, res: ServerResponse) => void;
};

export const createHttpApp = (
  log: Logger,
  mount: (routes: Routes) => void,
  before: Before = async () => {},
  context: ContextOptions = { trustProxy: false, recordClientInfo: true },
  /** database time each request may spend (docs/deploy.md); none: unbounded */
  databaseBudgetMs?: number,
): HttpApp => {
  const mounted: { method: string; path: string; pattern: RegExp }[] = [];
  const app = polka({
    onNoMatch: (req, res) => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const known = mounted.filter((m) => m.pattern.test(path));
      const methods = new Set(known.map((m) => m.method));
      if (methods.size === 0) return sendError(res, 404, 'Not found');
      // the metrics' label: the route the path is, asked with a method it does not have
      routeOf.set(req, known[0]?.path ?? 'unmatched');
      if (methods.has('GET')) methods.add('HEAD');
      const allow = [...methods].join(', ');
      res.setHeader('Allow', allow);
      sendError(res, 405, `Method not allowed: use ${allow}`);
    },
  });
  const fail = (req: IncomingMessage, res: ServerResponse, cause: unknown) => {
    // Wherever the disk filled up on the way, the client hears the same 507; the operator hears
    // of it in the log, since nothing else will tell them.
    // A client that went away mid-request is no failure of ours: nobody is left to answer.
    if (clientGone(req, res, cause)) {
      log.info({ url: loggedUrl(req.url), reason: (cause as Error)?.message }, 'client went away');
      res.destroy();
      return;
    }
    const error = isOutOfSpace(cause) ? new InsufficientStorage() : (asUnavailable(cause) ?? cause);
    if (error instanceof InsufficientStorage) {
      log.error({ err: cause, url: loggedUrl(req.url) }, 'out of storage space');
    } else if (error instanceof BlobStoreUnavailable) {
      // The daemon says what failed: the operation and the bucket's own error.
      log.error(
        { operation: error.operation, cause: error.detail, url: loggedUrl(req.url) },
        'the blob store failed',
      );
    } else if (error instanceof MachineFailure) {
      // The machine's own failure (a full TMPDIR): what failed and which directory, once.
      log.error(
        { cause: error.detail, directory: error.directory, url: loggedUrl(req.url) },
        'the temporary disk failed',
      );
    } else if (error !== cause) {
      // Expected while the database is away, and many at once: a line each, without the stack.
      log.warn(
        { reason: String((cause as Error)?.message ?? cause), url: loggedUrl(req.url) },
        'service unavailable',
      );
    }
    if (error instanceof AppError) {
      if (res.headersSent) return res.destroy();
      for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
      // Answered before the body arrived (a database that failed before an upload was read): a
      // small body is read to its end first (the client still sending it would get a reset, not
      // the answer); a large one is not read into the void: the connection closes.
      if (!req.complete && error.status >= 500) {
        return void drainSmallLeftover(req).then((drained) => {
          if (!drained) res.setHeader('Connection', 'close');
          sendError(res, error.status, error.message);
        });
      }
      return sendError(res, error.status, error.message);
    }
    log.error({ err: error, url: loggedUrl(req.url) }, 'request failed');
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
  // Each handler knows its route's pattern: the metrics' label (never the URL a client sent).
  const named = (method: string, path: string, handler: Handler) => {
    // (a catch-all route, such as the dashboard's own 404 page, tells no path exists)
    if (!path.includes('*')) mounted.push({ method, path, pattern: pathPattern(path) });
    return guard(async (req, res) => {
      routeOf.set(req, path);
      await handler(req, res);
    });
  };
  const direct = new Map<string, (req: IncomingMessage, res: ServerResponse) => Promise<void>>();
  const routes: Routes = {
    get: (path, handler) => void app.get(path, named('GET', path, handler)),
    post: (path, handler) => void app.post(path, named('POST', path, handler)),
    delete: (path, handler) => void app.delete(path, named('DELETE', path, handler)),
    patch: (path, handler) => void app.patch(path, named('PATCH', path, handler)),
    direct: (method, path, handler) => {
      const route = named(method, path, handler);
      direct.set(`${method} ${path}`, route);
      app.post(path, route);
    },
  };
  mount(routes);
  /** Every answer counted in the metrics, under its route's pattern. */
  const measure = (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    res.once('finish', () => {
      const route = routeOf.get(req) ?? 'unmatched';
      const method = heads.has(req) ? 'HEAD' : (req.method ?? 'GET');
      httpRequests.inc({ route, method, status: String(res.statusCode) });
      httpDuration.observe({ route, method }, (performance.now() - started) / 1000);
    });
  };
  // An Expect header other than 100-continue: node:http would answer a bare 417.
  const checkExpectation = (req: IncomingMessage, res: ServerResponse) => {
    beginRequest(req, res, context);
    measure(req, res);
    sendError(res, 417, 'Expectation failed: only "Expect: 100-continue" is supported');
  };
  const request = (req: IncomingMessage, res: ServerResponse) => {
    beginRequest(req, res, context);
    measure(req, res);
    const short = direct.get(`${req.method} ${req.url}`);
    if (short) return void short(req, res);
    // HEAD is GET without the body: node:http already leaves the body out of a HEAD answer
    // (decided when the response was made), so the GET route answers it.
    if (req.method === 'HEAD') {
      heads.add(req);
      req.method = 'GET';
    }
    // A request target in absolute form (`GET http://host/path`, which RFC 9112 says a server
    // must accept) is routed by its path, like the origin form every browser sends.
    if (req.url && /^https?:\/\//i.test(req.url)) {
      const target = URL.parse(req.url);
      req.url = target ? `${target.pathname}${target.search}` : '/';
    }
    // The request's time on the bucket is bounded as its database time is (a bucket's own
    // limits say how much: src/blobs/boundedSend.ts).
    const handle = () =>
      withBucketBudget(() =>
        before(req, res).then(
          () => app.handler(req, res),
          (error) => fail(req, res, error),
        ),
      );
    if (databaseBudgetMs === undefined) handle();
    else withDatabaseBudget(databaseBudgetMs, handle);
  };
  return { request, checkExpectation };
};

/** A node:http server for the app, answering in JSON what node:http refuses before routing. */
export const serveHttpApp = (app: HttpApp): Server => {
  // No Host header required: nothing here routes by it (absolute URLs come from --public-url),
  // and node:http's own refusal would be a bare 400 without our JSON body.
  const server = createServer({ requireHostHeader: false });
  server.on('request', app.request);
  server.on('checkExpectation', app.checkExpectation);
  server.on('clientError', answerClientError);
  server.on('connect', answerConnect);
  return server;
};

/** The app on a server of its own (tests of the server alone use this). */
export const createHttpServer = (...args: Parameters<typeof createHttpApp>): Server =>
  serveHttpApp(createHttpApp(...args));

const heads = new WeakSet<IncomingMessage>();
const routeOf = new WeakMap<IncomingMessage, string>();

/** Whether the client asked with HEAD (routed as GET): a handler can skip reading the body. */
export const isHead = (req: IncomingMessage) => heads.has(req);

/** What node:http's own parse errors mean to a client; anything else is a plain 400. */
const CLIENT_ERRORS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request header fields too large'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'Chunk extensions too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request timeout'],
};

/**
 * Replaces node:http's default answer to a request it could not parse (a bare status line with no
 * body) with our JSON error, then closes the connection: after a parse error the rest of the
 * stream cannot be trusted. As node:http does, it answers only when nothing of another response
 * has been written on the socket yet, so the peer never reads a corrupted stream.
 */
const answerClientError = (error: NodeJS.ErrnoException, socket: Duplex) => {
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
  if (error.code !== 'ECONNRESET' && socket.writable && !inFlight?.headersSent) {
    const [status, message] = CLIENT_ERRORS[error.code ?? ''] ?? [400, 'Bad request'];
    return answerAndClose(socket, status, message);
  }
  socket.destroy();
};

/**
 * A CONNECT (a tunnel through a proxy, which this is not): node:http hands it over as a bare
 * socket and, left alone, drops it without a word. It gets a JSON 501 like anything else.
 */
const answerConnect = (_req: IncomingMessage, socket: Duplex) =>
  answerAndClose(socket, 501, 'Not implemented: CONNECT (this is not a proxy)');

/** A JSON error written on a socket node:http no longer manages, then the connection closed. */
const answerAndClose = (socket: Duplex, status: number, message: string) => {
  const body = JSON.stringify({ error: message });
  socket.on('error', () => socket.destroy());
  socket.end(
    [
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      // every answer carries one, even those to requests that never became requests
      `X-Request-Id: ${randomUUID()}`,
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
  socket.once('finish', () => socket.destroy());
  // A peer that never reads would keep the half-closed socket: give it a few seconds.
  setTimeout(() => socket.destroy(), 5_000).unref();
};
