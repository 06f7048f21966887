// What a passkey's rules need, kept pure so they are tested alone: who the relying party is (a
// passkey belongs to a domain name, never to an IP address), what a credential id and a name may
// be, and when a challenge is still good.
import { isIP } from 'node:net';
import { InvalidInput } from '../errors.ts';

/** How long a challenge may wait for the browser's answer (the browser gives up at 2 minutes). */
export const CHALLENGE_MS = 5 * 60_000;
/** The browser's own time limit for the ceremony, handed to it in the options. */
export const CEREMONY_TIMEOUT_MS = 2 * 60_000;
export const RP_NAME = 'Flipbooks';
export const MAX_PASSKEY_NAME = 60;

export type RelyingParty =
  | { usable: true; id: string; origin: string; name: string }
  | { usable: false; why: string };

/**
 * The relying party a public URL makes: its host name is the RP ID and its origin the one
 * answers must come from. Browsers refuse an IP address as an RP ID, so such a URL cannot hold
 * passkeys, and the dashboard says why instead of failing in the browser.
 */
export const relyingParty = (publicUrl: string): RelyingParty => {
  const url = new URL(publicUrl);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) {
    return {
      usable: false,
      why: `Passkeys need this service to be reached by a domain name (such as localhost), not an IP address: it is set up as ${url.origin}.`,
    };
  }
  if (url.protocol !== 'https:' && host !== 'localhost' && !host.endsWith('.localhost')) {
    return {
      usable: false,
      why: `Passkeys need this service to be reached over https (or on localhost): it is set up as ${url.origin}.`,
    };
  }
  return { usable: true, id: host, origin: url.origin, name: RP_NAME };
};

/**
 * A credential id as browsers write it: base64url, no padding. The WebAuthn spec caps ids at
 * 1023 bytes (1364 characters); anything else is refused before any lookup.
 */
export const isCredentialId = (id: unknown): id is string =>
  typeof id === 'string' && id.length >= 16 && id.length <= 1364 && /^[A-Za-z0-9_-]+$/.test(id);

/**
 * The name a person gives a passkey, as stored: spaces and control characters folded to one
 * space (bidirectional overrides too), trimmed, at most MAX_PASSKEY_NAME characters (not cutting a character in two). Empty
 * means `fallback` (the browser's name).
 */
export const passkeyName = (raw: unknown, fallback: string): string => {
  if (raw !== undefined && raw !== null && typeof raw !== 'string') {
    throw new InvalidInput('The passkey’s name must be text');
  }
  const folded = (raw ?? '')
    // Bidirectional overrides would let a name show itself as another: folded like controls.
    .replace(/[\p{Cc}\p{Zl}\p{Zp}\s\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]+/gu, ' ')
    .trim()
    .toWellFormed();
  const name = folded || fallback;
  return Array.from(name).slice(0, MAX_PASSKEY_NAME).join('').trim();
};

/** A stored challenge is good until its expiry, on the service's clock. */
export const challengeLive = (expiresAt: Date, now: Date) => now.getTime() < expiresAt.getTime();
