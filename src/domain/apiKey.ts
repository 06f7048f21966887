// API keys: `svc_` + 48 lowercase hex characters. Only their SHA-256 is ever stored.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const KEY_FORMAT = /^svc_[0-9a-f]{48}$/;

export const generateApiKey = () => `svc_${randomBytes(24).toString('hex')}`;

/** Checked before any lookup, so garbage never reaches the database. */
export const isWellFormedApiKey = (key: string) => KEY_FORMAT.test(key);

export const hashApiKey = (key: string) => createHash('sha256').update(key).digest('hex');

/** Compares two hex hashes without leaking, through timing, how much of them matched. */
export const sameHash = (a: string, b: string) => {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
};

/**
 * A key's short name: the first 8 hex digits of its SHA-256. A holder computes it from the key
 * (`printf %s "$KEY" | sha256sum | cut -c1-8`), and we from the stored hash: the key itself is
 * not needed.
 */
export const fingerprintOf = (keyHash: string) => keyHash.slice(0, 8);

/** What decides whether a key still authenticates, as RFC 3339 times (null: not set). */
export type KeyValidity = {
  revokedAt: string | null;
  expiresAt: string | null;
  /** the end of a roll's grace */
  validUntil: string | null;
};

/**
 * - `revoked`: refused since its revocation;
 * - `expired`: past its own expiry, or past the grace of the roll that replaced it;
 * - `rolled`: replaced by a new key, still accepted until `validUntil`;
 * - `active`: accepted.
 */
export type KeyStatus = 'active' | 'rolled' | 'expired' | 'revoked';

const passed = (time: string | null, now: Date) =>
  time !== null && Date.parse(time) <= now.getTime();

export const keyStatus = (key: KeyValidity, now: Date): KeyStatus => {
  if (key.revokedAt !== null) return 'revoked';
  if (passed(key.expiresAt, now) || passed(key.validUntil, now)) return 'expired';
  return key.validUntil === null ? 'active' : 'rolled';
};

/** Authentication's one question: does this key open the API at `now`? */
export const keyWorks = (key: KeyValidity, now: Date) => {
  const status = keyStatus(key, now);
  return status === 'active' || status === 'rolled';
};
