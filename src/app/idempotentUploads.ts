// Uploads sent with an Idempotency-Key (src/domain/idempotency.ts): the same key again within the
// window gives the first answer again and creates nothing; with a different request it is a 422.
// The key and the request's fingerprint go into the upload's event metadata, so the read table
// `idempotent_uploads` records them in the append's own transaction (src/readTables/
// idempotentUploads.ts): whatever dies when, a key is known exactly when its upload exists.

import { RuleBroken } from '../domain/errors.ts';
import { IDEMPOTENCY_WINDOW_MS, requestFingerprint } from '../domain/idempotency.ts';
import {
  findIdempotentUpload,
  type IdempotentUpload,
  keepIdempotentResponse,
  sweepIdempotentUploads,
} from '../readTables/idempotentUploads.ts';
import type { Db } from '../readTables/readTable.ts';
import type { Caller } from './caller.ts';
import type { EventMetadata } from './eventContext.ts';
import type { ReceivedUpload } from './received.ts';

/** What an upload route passes down: the client's key. */
export type UploadOptions = {
  idempotencyKey?: string;
  /** told when the answer is the first request's again (the route sets Idempotent-Replayed) */
  replayed?: () => void;
};

export type Idempotency = { key: string; fingerprint: string; since: Date };

/** The request's key and fingerprint, or null when it sent no key. */
export const idempotencyOf = (
  options: UploadOptions,
  /** the upload's time, by the daemon's clock: the idempotency window counts back from it */
  now: Date,
  operation: string,
  target: string | null,
  upload: ReceivedUpload,
): Idempotency | null =>
  options.idempotencyKey !== undefined
    ? {
        key: options.idempotencyKey,
        fingerprint: requestFingerprint({
          operation,
          target,
          fields: upload.fields,
          fileSha256: upload.file?.sha256 ?? null,
        }),
        since: new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS),
      }
    : null;

/** The events' metadata: the caller's, and the key the read table records. */
export const withKey = (metadata: EventMetadata, idempotency: Idempotency | null) =>
  idempotency
    ? { ...metadata, idempotency: { key: idempotency.key, fingerprint: idempotency.fingerprint } }
    : metadata;

/**
 * The first request's answer when the key was used within the window, or null. The same key
 * with another request (another file, other fields, another flipbook) is refused.
 */
export const priorAnswer = async <T>(
  db: Db,
  caller: Caller,
  idempotency: Idempotency | null,
  /** the answer made again from the read tables, for an upload whose answer was not kept */
  remake: (prior: IdempotentUpload) => Promise<T>,
): Promise<T | null> => {
  if (!idempotency) return null;
  const prior = await findIdempotentUpload(
    db,
    caller.workspaceId,
    idempotency.key,
    idempotency.since,
  );
  if (!prior) return null;
  if (prior.fingerprint !== idempotency.fingerprint) {
    throw new RuleBroken(
      'Idempotency-Key already used for another request in the last 24 hours: send a new key for a new upload',
    );
  }
  // The text as it was sent (JSON.parse keeps the order of its fields)
  return prior.response === null ? await remake(prior) : (JSON.parse(prior.response) as T);
};

/** Keeps the answer for the key's later requests (best effort: it can be made again). */
export const keepAnswer = async (
  db: Db,
  caller: Caller,
  idempotency: Idempotency | null,
  versionId: string,
  answer: object,
) => {
  if (!idempotency) return;
  await keepIdempotentResponse(db, caller.workspaceId, idempotency.key, versionId, answer).catch(
    () => undefined,
  );
  // Now and then, the keys whose window is over go (once a minute at most, per process).
  const now = performance.now();
  if (now - lastSweep > 60_000) {
    lastSweep = now;
    await sweepIdempotentUploads(db, idempotency.since).catch(() => undefined);
  }
};
let lastSweep = 0;
