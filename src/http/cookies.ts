// Cookies, the one module that reads and writes them: read by name; every Set-Cookie the service
// sends (the dashboard's session, a passkey ceremony's challenge, a single sign-on's state, a
// share link's password proof) made by `cookieHeader`, HttpOnly always (no script of ours reads a
// cookie). The session cookie's name has the `__Host-` prefix with https; the reader and the file
// routes read it too: members of a workspace read its non-public books (docs/access.md).
import type { IncomingMessage } from 'node:http';

export const SESSION_COOKIE = 'flipbook_session';
/** With https the cookie is `__Host-`: Secure, host-only, path / (no subdomain can set it). */
export const cookieName = (secure: boolean) =>
  secure ? `__Host-${SESSION_COOKIE}` : SESSION_COOKIE;

export const readCookie = (req: IncomingMessage, name: string): string | null => {
  const header = req.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
};

/** The dashboard's session cookie, under either of its names (https or not). */
export const sessionTokenOf = (req: IncomingMessage) =>
  readCookie(req, cookieName(true)) ?? readCookie(req, cookieName(false));

export type CookieOptions = {
  path: string;
  sameSite: 'Lax' | 'Strict';
  /** https: sent back only over https */
  secure: boolean;
  /** how long it lasts (0: removes it); neither this nor `expires`: until the browser closes */
  maxAgeSeconds?: number;
  expires?: Date;
};

/** A Set-Cookie header's value. */
export const cookieHeader = (name: string, value: string, options: CookieOptions) =>
  [
    `${name}=${value}`,
    `Path=${options.path}`,
    'HttpOnly',
    `SameSite=${options.sameSite}`,
    ...(options.expires ? [`Expires=${options.expires.toUTCString()}`] : []),
    ...(options.maxAgeSeconds === undefined ? [] : [`Max-Age=${options.maxAgeSeconds}`]),
    ...(options.secure ? ['Secure'] : []),
  ].join('; ');

/** The dashboard's session cookie, for the whole site until the session's end. */
export const sessionCookie = (secure: boolean, token: string, expiresAt: Date) =>
  cookieHeader(cookieName(secure), token, {
    path: '/',
    sameSite: 'Lax',
    secure,
    expires: expiresAt,
  });

/** The session cookie removed (signed out). */
export const clearedCookie = (secure: boolean) =>
  cookieHeader(cookieName(secure), '', { path: '/', sameSite: 'Lax', secure, maxAgeSeconds: 0 });
