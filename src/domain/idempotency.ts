// Idempotency-Key on the upload endpoints (draft-ietf-httpapi-idempotency-key-header, as Stripe
// does it): a client that sends the same key again, after a network failure say, gets the first
// answer again and creates nothing. Pure: reading the header and fingerprinting a request.
import { createHash } from 'node:crypto';
import { InvalidInput } from './errors.ts';

/** How long a key is remembered; after that the same key is a new request. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

const MAX_KEY_LENGTH = 255;

/**
 * The key of an `Idempotency-Key` header: the draft's sf-string (`"…"`) or, as most clients send
 * it, the bare value. Printable ASCII, 1 to 255 characters. Absent: null.
 */
export const parseIdempotencyKey = (header: string | string[] | undefined): string | null => {
  if (header === undefined) return null;
  if (Array.isArray(header)) {
    throw new InvalidInput('Invalid Idempotency-Key: give it once');
  }
  let key = header.trim();
  const quoted = /^"((?:[^"\\]|\\["\\])*)"$/.exec(key);
  if (quoted) key = (quoted[1] as string).replace(/\\(["\\])/g, '$1');
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || !/^[\x20-\x7e]+$/.test(key)) {
    throw new InvalidInput(
      `Invalid Idempotency-Key: 1 to ${MAX_KEY_LENGTH} printable ASCII characters`,
    );
  }
  return key;
};

/**
 * What makes two requests the same request: where they go, the fields they send and the file's
 * bytes (by their SHA-256). A key sent again with anything different is refused.
 */
export const requestFingerprint = (request: {
  operation: string;
  target: string | null;
  fields: Record<string, string>;
  fileSha256: string | null;
}) => {
  const fields = Object.keys(request.fields)
    .sort()
    .map((name) => [name, request.fields[name]]);
  return createHash('sha256')
    .update(JSON.stringify([request.operation, request.target, fields, request.fileSha256 ?? null]))
    .digest('hex');
};
