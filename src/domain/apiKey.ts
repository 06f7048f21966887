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
