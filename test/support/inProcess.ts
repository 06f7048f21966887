// Requests answered in process: a URL whose origin an app registered (test/support/appSpec.ts)
// goes to that app's node:http listener through light-my-request (Fastify's `inject`: a real
// IncomingMessage and ServerResponse, no socket, no port); any other URL goes out with fetch.
// `appFetch` is fetch's shape, so the helpers (apiHelpers' `send`, the dashboard's sign-in) and
// the tests that use them run the same against a daemon or an app in process.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import inject, { type Response as InjectedResponse } from 'light-my-request';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;
const apps = new Map<string, Listener>();

/** Routes `origin` (http://name.test) to `listener` until the returned function is called. */
export const registerApp = (origin: string, listener: Listener) => {
  apps.set(origin, listener);
  return () => void apps.delete(origin);
};

/** Statuses whose answer has no body (the Response constructor refuses one). */
const BODYLESS = new Set([101, 204, 205, 304]);
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const DECODERS: Record<string, (bytes: Buffer) => Buffer> = {
  gzip: (bytes) => gunzipSync(bytes),
  br: (bytes) => brotliDecompressSync(bytes),
  deflate: (bytes) => inflateSync(bytes),
};

/** One exchange with an app in process, as fetch would see it (redirects not followed). */
const exchange = async (listener: Listener, request: Request): Promise<Response> => {
  const target = new URL(request.url);
  const payload = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
  const reply = await inject(listener as never, {
    method: request.method as 'GET',
    url: `${target.pathname}${target.search}`,
    headers: { host: target.host, ...Object.fromEntries(request.headers) },
    ...(payload ? { payload } : {}),
    remoteAddress: '127.0.0.1',
  });
  return asResponse(reply, request.method);
};

/** light-my-request's answer as fetch's Response. */
const asResponse = (reply: InjectedResponse, method: string): Response => {
  const headers = new Headers();
  for (const [name, value] of Object.entries(reply.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, String(one));
  }
  // Decoded as fetch decodes it (its Content-Encoding header stays, as fetch's does).
  const decode = DECODERS[String(reply.headers['content-encoding'] ?? '')];
  const body =
    BODYLESS.has(reply.statusCode) || method === 'HEAD'
      ? null
      : decode
        ? decode(reply.rawPayload)
        : reply.rawPayload;
  return new Response(body as ConstructorParameters<typeof Response>[0], {
    status: reply.statusCode,
    statusText: reply.statusMessage,
    headers,
  });
};

/** fetch, with the registered apps answered in process (redirects followed as fetch does). */
export const appFetch = async (url: string | URL, init: RequestInit = {}): Promise<Response> => {
  let request = new Request(url, init);
  for (let hop = 0; hop <= 20; hop++) {
    const listener = apps.get(new URL(request.url).origin);
    if (!listener) return fetch(request);
    const response = await exchange(listener, request);
    const location = response.headers.get('location');
    if (!REDIRECTS.has(response.status) || !location || request.redirect === 'manual') {
      return response;
    }
    const next = new URL(location, request.url);
    const asGet =
      response.status === 303 ||
      (response.status !== 307 && response.status !== 308 && request.method === 'POST');
    request = new Request(next, {
      method: asGet ? 'GET' : request.method,
      headers: request.headers,
      redirect: request.redirect,
      ...(asGet || !init.body ? {} : { body: init.body }),
    });
  }
  throw new Error(`too many redirects from ${String(url)}`);
};

/**
 * A request as a client may send it but fetch never would (a Content-Length its body does not
 * have, say), to an app in process.
 */
export const appInject = async (
  url: string,
  request: {
    method: string;
    headers: Record<string, string>;
    /** a stream may never end: a body held back, answered (or not) before it is all there */
    payload?: string | Buffer | Readable;
  },
): Promise<Response> => {
  const target = new URL(url);
  const listener = apps.get(target.origin);
  if (!listener) throw new Error(`no app in process at ${target.origin}`);
  const reply = await inject(listener as never, {
    method: request.method as 'GET',
    url: `${target.pathname}${target.search}`,
    headers: { host: target.host, ...request.headers },
    ...(request.payload === undefined ? {} : { payload: request.payload }),
    remoteAddress: '127.0.0.1',
  });
  return asResponse(reply, request.method);
};
