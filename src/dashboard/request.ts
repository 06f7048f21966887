// What every dashboard request goes through: its session cookie, its form body, and the checks
// a browser-facing page needs (CSRF here; the same-site origin in src/http/sameOrigin.ts). The
// dashboard takes session cookies only; the API takes keys only, and never reads this cookie.

import { timingSafeEqual } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { Forbidden } from '../domain/errors.ts';

/** Where to go after signing in: a path of this site only (never //evil.example or a scheme). */
// Only a path of this site, in visible ASCII (a Location header holds nothing else: anything
// beyond it must come percent-encoded), never `//host` or a backslash a browser reads as `/`.
export const safeNext = (next: string | null | undefined) =>
  next && /^\/(?![/\\])[\x21-\x5b\x5d-\x7e]*$/.test(next) && next.length < 512 ? next : null;

/** The form's CSRF token against the session's, in constant time. */
export const checkCsrf = (sent: string | undefined, expected: string) => {
  const a = Buffer.from(sent ?? '');
  const b = Buffer.from(expected);
  if (a.length !== b.length || !timingSafeEqual(a, b)) {
    throw new Forbidden('This form has expired: reload the page and try again');
  }
};

/** Answers a page: never cached (it is someone's own), never framed, one script of our own. */
export const PAGE_HEADERS = {
  'Content-Security-Policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  // Same-origin only: an invitation page's URL (a secret) never reaches another site, and our
  // own forms still carry an Origin (no-referrer would make it "null").
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};

export const sendPage = (
  res: ServerResponse,
  status: number,
  body: string,
  extra: Record<string, string | string[]> = {},
) => {
  const bytes = Buffer.from(body);
  res.writeHead(status, {
    ...PAGE_HEADERS,
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': bytes.length,
    ...extra,
  });
  res.end(bytes);
};

/** Answers a CSV file to download (a table's figures, a link's readers), as private as a page. */
export const sendCsv = (res: ServerResponse, name: string, body: string) => {
  res.writeHead(200, {
    ...PAGE_HEADERS,
    'Content-Type': 'text/csv; charset=utf-8',
    'Content-Disposition': `attachment; filename="${name}"`,
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
};
