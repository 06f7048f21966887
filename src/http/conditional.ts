// What a GET or HEAD of a file answers, given the request's conditional and Range headers and the
// file's validators (RFC 9110 §13.2.2 order). Pure: the parsing is jshttp's `fresh` (If-None-Match,
// If-Modified-Since) and `range-parser` (Range), the modules `send` and Express are built from;
// src/http/files.ts does the I/O from one open descriptor.
import type { IncomingHttpHeaders } from 'node:http';
import fresh from 'fresh';
import rangeParser from 'range-parser';

export type Validators = { etag: string; lastModified: string };

export type Answer =
  | { status: 200; start: number; end: number }
  | { status: 206; start: number; end: number }
  | { status: 304 }
  | { status: 412 }
  | { status: 416 };

export const answerFor = (headers: IncomingHttpHeaders, size: number, v: Validators): Answer => {
  if (!preconditionsHold(headers, v)) return { status: 412 };
  // `fresh` treats a request's `Cache-Control: no-cache` as "never 304" (a rule for caches, from
  // RFC 2616). We are the origin: a conditional request is answered on its validators (fetch()
  // adds no-cache to every request that carries If-None-Match).
  const conditional = { ...headers, 'cache-control': undefined };
  if (fresh(conditional, { etag: v.etag, 'last-modified': v.lastModified })) {
    return { status: 304 };
  }
  const whole = { status: 200, start: 0, end: size - 1 } as const;
  const range = headers.range;
  // An empty file has no byte to point at: it is simply sent whole (a server may ignore Range).
  if (!range || size === 0 || !ifRangeHolds(headers['if-range'], v)) return whole;
  const ranges = rangeParser(size, wholeSuffixes(range, size), { combine: true });
  if (ranges === -2) return whole; // malformed: ignored, as RFC 9110 allows
  if (ranges === -1) return { status: 416 };
  // Another unit, or several ranges that do not merge (no multipart/byteranges): the whole file.
  if (ranges.type !== 'bytes' || ranges.length !== 1 || !ranges[0]) return whole;
  return { status: 206, start: ranges[0].start, end: ranges[0].end };
};

/**
 * range-parser refuses a suffix longer than the file (`bytes=-500` of 100 bytes) as unsatisfiable;
 * RFC 9110 §14.1.2 says it means the whole file, so such a suffix is handed to it as `0-`.
 */
const wholeSuffixes = (range: string, size: number) =>
  range.replace(/([=,]\s*)-\s*(\d+)/g, (part, before: string, length: string) =>
    Number(length) > size ? `${before}0-` : part,
  );

/** If-Match (strong comparison), else If-Unmodified-Since. */
const preconditionsHold = (headers: IncomingHttpHeaders, v: Validators) => {
  const ifMatch = headers['if-match'];
  if (ifMatch !== undefined) {
    const tags = ifMatch.split(',').map((tag) => tag.trim());
    return tags.includes('*') || tags.includes(v.etag);
  }
  const since = Date.parse(headers['if-unmodified-since'] ?? '');
  return Number.isNaN(since) || Date.parse(v.lastModified) <= since;
};

/** A Range applies only if the file is still the one If-Range names (strong ETag or exact date). */
const ifRangeHolds = (ifRange: string | string[] | undefined, v: Validators) => {
  if (typeof ifRange !== 'string') return ifRange === undefined;
  const value = ifRange.trim();
  if (value.startsWith('"') || value.startsWith('W/')) return value === v.etag;
  return Date.parse(value) === Date.parse(v.lastModified);
};
