// Reading Idempotency-Key and telling two requests apart (src/domain/idempotency.ts).
import { describe, expect, it } from 'vitest';
import { parseIdempotencyKey, requestFingerprint } from '../../src/domain/idempotency.ts';

describe('Idempotency-Key', () => {
  it('takes a bare key or the draft’s quoted string, and nothing for none', () => {
    expect(parseIdempotencyKey(undefined)).toBeNull();
    expect(parseIdempotencyKey('8e03978e-40d5-43e8-bc93-6894a57f9324')).toBe(
      '8e03978e-40d5-43e8-bc93-6894a57f9324',
    );
    expect(parseIdempotencyKey('"a key"')).toBe('a key');
    expect(parseIdempotencyKey('"with \\"quotes\\""')).toBe('with "quotes"');
    expect(parseIdempotencyKey('  padded  ')).toBe('padded');
  });

  it('refuses empty, long, non-ASCII, control characters and a repeated header', () => {
    for (const bad of ['', '""', 'x'.repeat(256), 'ключ', 'a\tb', 'a\u0000b']) {
      expect(() => parseIdempotencyKey(bad), JSON.stringify(bad)).toThrow(
        /Invalid Idempotency-Key/,
      );
    }
    expect(() => parseIdempotencyKey(['a', 'b'])).toThrow(/give it once/);
    expect(parseIdempotencyKey('x'.repeat(255))).toHaveLength(255);
  });

  it('fingerprints where a request goes, its fields (in any order) and its file', () => {
    const base = {
      operation: 'create',
      target: null,
      fields: { title: 'A', slug: 'a' },
      fileSha256: 'ab'.repeat(32),
    };
    const same = requestFingerprint({ ...base, fields: { slug: 'a', title: 'A' } });
    expect(requestFingerprint(base)).toBe(same);
    for (const other of [
      { ...base, operation: 'version' },
      { ...base, target: 'some-flipbook' },
      { ...base, fields: { title: 'B', slug: 'a' } },
      { ...base, fields: { title: 'A' } },
      { ...base, fileSha256: 'cd'.repeat(32) },
      { ...base, fileSha256: null },
    ]) {
      expect(requestFingerprint(other)).not.toBe(same);
    }
  });
});
