// Every request gets an id, sent back as X-Request-Id on every answer (errors, files and the
// reader included) and recorded in the metadata of the events it causes, so a story in the log
// can be found from one answer. A well-formed id the client (or its proxy) sent is kept, so its
// own logs line up with ours; anything else is replaced by a fresh one.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { clientAddress } from './rateLimit.ts';

export type RequestContext = {
  requestId: string;
  /** null when the operator turned recording off (--no-client-info) */
  clientIp: string | null;
  userAgent: string | null;
};

export type ContextOptions = { trustProxy: boolean; recordClientInfo: boolean };

/** Printable ASCII without spaces, at most 128 characters (what proxies and tracers send). */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:/+=@-]{1,128}$/;
const MAX_USER_AGENT = 256;

/** Without control characters: C0, DEL and C1 (U+0080 to U+009F, which terminals obey too). */
const printable = (text: string) => text.replace(/\p{Cc}/gu, '');

const contexts = new WeakMap<IncomingMessage, RequestContext>();
/** When each request arrived (performance.now()): what a bound on its whole answer counts from. */
const arrivals = new WeakMap<IncomingMessage, number>();

export const beginRequest = (
  req: IncomingMessage,
  res: ServerResponse,
  options: ContextOptions,
): RequestContext => {
  const sent = req.headers['x-request-id'];
  const requestId = typeof sent === 'string' && REQUEST_ID_PATTERN.test(sent) ? sent : randomUUID();
  res.setHeader('X-Request-Id', requestId);
  const agent = req.headers['user-agent'];
  const context: RequestContext = {
    requestId,
    clientIp: options.recordClientInfo ? clientAddress(req, options.trustProxy) : null,
    userAgent:
      options.recordClientInfo && typeof agent === 'string' && agent
        ? // control characters have no business in a log an auditor reads
          printable(agent).slice(0, MAX_USER_AGENT)
        : null,
  };
  contexts.set(req, context);
  arrivals.set(req, performance.now());
  return context;
};

/** When the request arrived (performance.now() ms), or now for one the server did not begin. */
export const arrivedAt = (req: IncomingMessage): number => arrivals.get(req) ?? performance.now();

/** The request's context (begun by the server for every request). */
export const requestContext = (req: IncomingMessage): RequestContext =>
  contexts.get(req) ?? { requestId: randomUUID(), clientIp: null, userAgent: null };
