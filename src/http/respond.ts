// Response helpers: every JSON body the service sends goes out through `sendJson` (the API, the
// health routes, the reader's data, the dashboard's passkey ceremonies); every error is
// {"error": message}.
import type { IncomingMessage, ServerResponse } from 'node:http';
import send from '@polka/send-type';
import { sendBody } from './sendBody.ts';

export type JsonOptions = {
  /**
   * the request, for an answer a client may keep: it then carries an ETag (a 304 when it did not
   * change) and is compressed as the client accepts (./sendBody.ts)
   */
  req?: IncomingMessage;
  /** Cache-Control (none: the API's answers say nothing) */
  cache?: string;
  /** more headers (Set-Cookie, Retry-After...) */
  headers?: Record<string, string | string[]>;
};

export const sendJson = (
  res: ServerResponse,
  status: number,
  body: unknown,
  options: JsonOptions = {},
) => {
  const headers: Record<string, string | string[]> = {
    ...(options.cache
      ? { 'Cache-Control': options.cache, 'X-Content-Type-Options': 'nosniff' }
      : {}),
    ...options.headers,
  };
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  const type = { 'Content-Type': 'application/json; charset=utf-8' };
  if (!options.req) return send(res, status, body, type);
  return sendBody(options.req, res, status, type, JSON.stringify(body));
};

export const sendError = (res: ServerResponse, status: number, message: string) =>
  sendJson(res, status, { error: message });

/** After a form: See Other (a reload does not send it again), never kept by a cache. */
export const redirect = (
  res: ServerResponse,
  location: string,
  extra: Record<string, string | string[]> = {},
) => {
  res.writeHead(303, {
    Location: location,
    'Cache-Control': 'no-store',
    'Content-Length': 0,
    ...extra,
  });
  res.end();
};
