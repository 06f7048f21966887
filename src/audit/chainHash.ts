// The tamper-evident chain over the event log: every event, in the order the service appended
// them, is hashed together with the hash before it. Editing, reordering or removing any event
// changes every hash after it, so a chain head kept outside the database (a checkpoint) proves
// the log it covers is untouched. docs/audit.md states the same algorithm for third parties.
//
//   hash(n) = hex(SHA-256( hash(n-1) + "\n" + JCS(entry(n)) )),  hash(0) = GENESIS
//   entry   = { stream, position, id, type, data, metadata }  (as stored: emt_messages' columns)
//
// JCS is the JSON Canonicalization Scheme (RFC 8785): sorted keys, no whitespace, ECMAScript
// number and string forms; the `canonicalize` package is its reference implementation.
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

export const GENESIS = '0'.repeat(64);

export type ChainEntry = {
  /** the stream's name, e.g. flipbook-<id> or workspace-<id> */
  stream: string;
  /** 1-based position in its stream */
  position: number;
  /** the event's id (Emmett's message id) */
  id: string;
  type: string;
  data: unknown;
  metadata: unknown;
};

export const chainHash = (previous: string, entry: ChainEntry) =>
  createHash('sha256')
    .update(`${previous}\n${canonicalize(entry)}`)
    .digest('hex');

/** An entry from the stored row, exactly as verify and export read it back. */
export const entryOf = (row: {
  stream_id: string;
  stream_position: string | number | bigint;
  message_id: string;
  message_type: string;
  message_data: unknown;
  message_metadata: unknown;
}): ChainEntry => ({
  stream: row.stream_id,
  position: Number(row.stream_position),
  id: row.message_id,
  type: row.message_type,
  data: row.message_data,
  metadata: row.message_metadata ?? {},
});
