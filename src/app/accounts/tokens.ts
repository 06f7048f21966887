// Secrets handed to a browser (a session cookie, an invitation link): 32 random bytes, URL-safe.
// Only their SHA-256 is stored, so a copy of the database signs no one in.
import { createHash, randomBytes } from 'node:crypto';

export const newToken = () => randomBytes(32).toString('base64url');

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** What a token we made looks like: anything else is refused before any lookup. */
export const isWellFormedToken = (token: string) => /^[A-Za-z0-9_-]{43}$/.test(token);
