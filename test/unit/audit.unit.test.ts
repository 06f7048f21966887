// The audit trail's pure parts: the chain's hash and how stored metadata of any age reads.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { adminMetadata, showMetadata } from '../../src/app/eventContext.ts';
import { chainHash, entryOf, GENESIS } from '../../src/audit/chainHash.ts';
import { UNKNOWN_METADATA } from '../support/metadata.ts';

const row = {
  stream_id: 'flipbook-1',
  stream_position: '2',
  message_id: 'e-2',
  message_type: 'VersionUploaded',
  message_data: { b: 1, a: { z: [1, 2.5, 'é'], y: null } },
  message_metadata: { actor: { type: 'system' } },
};

describe('the chain hash', () => {
  it('is SHA-256 over the previous hash, a newline and the entry in RFC 8785 form', () => {
    const expected = createHash('sha256')
      .update(
        `${GENESIS}\n{"data":{"a":{"y":null,"z":[1,2.5,"é"]},"b":1},"id":"e-2","metadata":{"actor":{"type":"system"}},"position":2,"stream":"flipbook-1","type":"VersionUploaded"}`,
      )
      .digest('hex');
    expect(chainHash(GENESIS, entryOf(row))).toBe(expected);
  });

  it('does not depend on the order keys come back in, but on every value', () => {
    const reordered = { ...row, message_data: { a: { y: null, z: [1, 2.5, 'é'] }, b: 1 } };
    expect(chainHash(GENESIS, entryOf(reordered))).toBe(chainHash(GENESIS, entryOf(row)));
    const edited = { ...row, message_data: { ...row.message_data, b: 2 } };
    expect(chainHash(GENESIS, entryOf(edited))).not.toBe(chainHash(GENESIS, entryOf(row)));
    const moved = { ...row, stream_position: 3 };
    expect(chainHash(GENESIS, entryOf(moved))).not.toBe(chainHash(GENESIS, entryOf(row)));
  });

  it('links each hash to the one before', () => {
    const first = chainHash(GENESIS, entryOf(row));
    expect(chainHash(first, entryOf(row))).not.toBe(first);
  });
});

describe('stored metadata as the trail shows it', () => {
  it('reads an event from before the audit trail as unknown, never as an error', () => {
    for (const stored of [{}, null, undefined, { messageId: 'x' }, { actor: 'nonsense' }]) {
      expect(showMetadata(stored)).toEqual(UNKNOWN_METADATA);
    }
  });

  it('keeps what was recorded', () => {
    const stored = {
      actor: { type: 'api_key', id: 'k1', name: 'ci' },
      request_id: 'r1',
      correlation_id: 'r1',
      client_ip: '127.0.0.1',
    };
    expect(showMetadata(stored)).toEqual({
      ...stored,
      user_agent: null,
      causation_id: null,
    });
  });

  it('names the admin by --as, else by the operating-system user', () => {
    expect(adminMetadata(' auditor-bob ')).toEqual({ actor: { type: 'admin', id: 'auditor-bob' } });
    const fallback = adminMetadata();
    expect(fallback.actor.type).toBe('admin');
    expect((fallback.actor as { id: string }).id.length).toBeGreaterThan(0);
  });
});
