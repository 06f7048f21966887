// Cookies a request carries: read by name, and the dashboard's session cookie (whose name has the
// `__Host-` prefix with https), which the reader and the file routes read too: members of a
// workspace read its non-public books (docs/access.md).
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
