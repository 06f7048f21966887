// A message for the next page of a session, once (POST, redirect, GET: a reload sends nothing
// again and shows nothing again). It may hold a secret shown once (an invitation link, a new API
// key), so it is sealed with a key only the session's own cookie gives (AES-256-GCM, the key
// derived from the cookie's token, which the database never holds): the database keeps an
// unreadable blob for the moment between the redirect and the next page.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { setFlash, takeFlash } from '../../state/accounts.ts';
import type { Store } from '../../store/store.ts';

const keyOf = (sessionToken: string) =>
  createHash('sha256').update(`flipbook flash\u0000${sessionToken}`).digest();

export const seal = (sessionToken: string, value: unknown) => {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(sessionToken), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url')).join('.');
};

export const unseal = (sessionToken: string, sealed: string): unknown => {
  try {
    const [iv, tag, body] = sealed.split('.').map((p) => Buffer.from(p, 'base64url'));
    if (!iv || !tag || !body) return null;
    const decipher = createDecipheriv('aes-256-gcm', keyOf(sessionToken), iv);
    decipher.setAuthTag(tag);
    return JSON.parse(Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8'));
  } catch {
    return null;
  }
};

export const putFlash = (
  store: Store,
  session: { sessionId: string; token: string },
  value: unknown,
) => setFlash(store.db, session.sessionId, seal(session.token, value));

export const popFlash = async (store: Store, session: { sessionId: string; token: string }) => {
  const sealed = await takeFlash(store.db, session.sessionId);
  return sealed ? unseal(session.token, sealed) : null;
};
