// Bodies held in memory (the reader's HTML and JSON, its script and stylesheet): sent with an
// ETag of their bytes (a 304 when If-None-Match holds it), compressed with brotli or gzip as the
// client's Accept-Encoding allows, and `Vary: Accept-Encoding` so that no cache hands one client
// the encoding another asked for. Node's zlib, on its thread pool. Nothing streamed comes here:
// JPEGs and originals go through ./files.ts, uncompressed (a JPEG is compressed already).
// A HEAD gets the same headers, Content-Length included, and no body (node:http leaves it out).
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import fresh from 'fresh';

export type Encoding = 'br' | 'gzip' | 'identity';

/** A body ready to send: its bytes, their validator, and its compressed forms once made. */
export type Body = {
  bytes: Buffer;
  etag: string;
  effort: 'fast' | 'best';
  encoded: Map<Encoding, Promise<Buffer>>;
};

/** Below this, compressing saves less than the header it costs. */
const MIN_SIZE = 512;

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/**
 * `best` for what is made once and kept (the script and stylesheet); `fast` for pages made per
 * request, where brotli's top level would cost more time than it saves on the wire.
 */
export const prepareBody = (content: string | Buffer, effort: Body['effort'] = 'fast'): Body => {
  const bytes = typeof content === 'string' ? Buffer.from(content) : content;
  // Weak: the same validator names every encoding of these bytes (RFC 9110 §8.8.3).
  const etag = `W/"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
  return { bytes, etag, effort, encoded: new Map() };
};

/** The encoding to send: the client's preferred of br and gzip by q-value (br on a tie). */
export const negotiateEncoding = (header: string | string[] | undefined): Encoding => {
  const q = new Map<string, number>();
  for (const part of String(header ?? '').split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const value = params.map((p) => /^\s*q\s*=\s*([\d.]+)\s*$/.exec(p)?.[1]).find(Boolean);
    q.set(name.trim(), value === undefined ? 1 : Number(value));
  }
  const quality = (name: string) => q.get(name) ?? q.get('*') ?? 0;
  const [best] = (['br', 'gzip'] as const)
    .filter((name) => quality(name) > 0)
    .sort((a, b) => quality(b) - quality(a));
  return best ?? 'identity';
};

const encode = (body: Body, encoding: 'br' | 'gzip') => {
  let made = body.encoded.get(encoding);
  if (!made) {
    const best = body.effort === 'best';
    made =
      encoding === 'br'
        ? brotli(body.bytes, {
            params: {
              [constants.BROTLI_PARAM_QUALITY]: best ? 11 : 5,
              [constants.BROTLI_PARAM_SIZE_HINT]: body.bytes.length,
              [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
            },
          })
        : gzipped(body.bytes, { level: best ? 9 : 6 });
    body.encoded.set(encoding, made);
  }
  return made;
};

/**
 * Answers with `body` (a 200's ETag checked against If-None-Match first). `headers` are the
 * representation's own (Content-Type, Cache-Control, security headers).
 */
export const sendBody = async (
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  content: Body | string | Buffer,
) => {
  const body =
    typeof content === 'string' || Buffer.isBuffer(content) ? prepareBody(content) : content;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  // Always by the encoding; by more when the representation says so (a page's language).
  res.setHeader('Vary', headers.Vary ? `Accept-Encoding, ${headers.Vary}` : 'Accept-Encoding');
  if (status === 200) {
    res.setHeader('ETag', body.etag);
    // As in ./conditional.ts: fetch() adds `Cache-Control: no-cache` to a conditional request,
    // which `fresh` would read as "never 304"; we are the origin and answer on the validator.
    const conditional = { ...req.headers, 'cache-control': undefined };
    if (fresh(conditional, { etag: body.etag })) {
      res.statusCode = 304;
      res.removeHeader('Content-Type');
      res.end();
      return;
    }
  }
  const encoding =
    body.bytes.length >= MIN_SIZE ? negotiateEncoding(req.headers['accept-encoding']) : 'identity';
  const bytes = encoding === 'identity' ? body.bytes : await encode(body, encoding);
  if (encoding !== 'identity') res.setHeader('Content-Encoding', encoding);
  res.setHeader('Content-Length', bytes.length);
  res.statusCode = status;
  res.end(bytes);
};
