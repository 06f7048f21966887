// When a key opens the API: revoked, expired (its own expiry or a roll's grace), rolled (in its
// grace) or active; and its fingerprint, which a holder computes from the key alone.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  fingerprintOf,
  generateApiKey,
  hashApiKey,
  type KeyValidity,
  keyStatus,
  keyWorks,
} from '../../src/domain/apiKey.ts';

const NOW = new Date('2025-01-15T10:30:00.000Z');
const key = (change: Partial<KeyValidity> = {}): KeyValidity => ({
  revokedAt: null,
  expiresAt: null,
  validUntil: null,
  ...change,
});

describe('keyStatus', () => {
  it.each([
    ['a plain key', key(), 'active', true],
    ['a key expiring later', key({ expiresAt: '2025-01-15T10:30:01.000Z' }), 'active', true],
    ['a key expiring now', key({ expiresAt: '2025-01-15T10:30:00.000Z' }), 'expired', false],
    ['a key past its expiry', key({ expiresAt: '2025-01-01T00:00:00.000Z' }), 'expired', false],
    ['a rolled key in its grace', key({ validUntil: '2025-01-15T11:30:00.000Z' }), 'rolled', true],
    [
      'a rolled key at the end of its grace',
      key({ validUntil: NOW.toISOString() }),
      'expired',
      false,
    ],
    [
      'a rolled key whose own expiry comes first',
      key({ validUntil: '2025-01-16T00:00:00.000Z', expiresAt: '2025-01-15T00:00:00.000Z' }),
      'expired',
      false,
    ],
    ['a revoked key', key({ revokedAt: '2025-01-10T00:00:00.000Z' }), 'revoked', false],
    [
      'a rolled key revoked in its grace',
      key({ revokedAt: '2025-01-15T10:00:00.000Z', validUntil: '2025-01-15T11:30:00.000Z' }),
      'revoked',
      false,
    ],
  ] as const)('%s is %s', (_what, validity, status, works) => {
    expect(keyStatus(validity, NOW)).toBe(status);
    expect(keyWorks(validity, NOW)).toBe(works);
  });
});

describe('fingerprintOf', () => {
  it('is the first 8 hex digits of the SHA-256 of the key', () => {
    const apiKey = generateApiKey();
    const expected = createHash('sha256').update(apiKey).digest('hex').slice(0, 8);
    expect(fingerprintOf(hashApiKey(apiKey))).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{8}$/);
  });
});
