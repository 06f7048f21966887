// What the three upload endpoints share: the checks made before a byte of the body is read (the
// Idempotency-Key's form, the plan's limits the headers already tell), and the temporary file's
// removal whatever happens.
import type { ServerResponse } from 'node:http';
import type { Caller } from '../../app/caller.ts';
import type { UploadOptions } from '../../app/idempotentUploads.ts';
import { refuseEarly, type UploadTarget } from '../../app/uploadLimits.ts';
import { IDEMPOTENCY_WINDOW_MS, parseIdempotencyKey } from '../../domain/idempotency.ts';
import { findIdempotentUpload } from '../../readTables/idempotentUploads.ts';
import type { Db } from '../../readTables/readTable.ts';
import type { Request } from '../server.ts';
import {
  declaredFileBytes,
  dropBodyAfterRefusal,
  MAX_UPLOAD_BYTES,
  receiveUpload,
  uploadTooLarge,
} from '../upload.ts';
import type { EndpointDeps } from './declare.ts';

export type Upload = Awaited<ReturnType<typeof receiveUpload>>;

/**
 * The upload's Idempotency-Key, read before its body: a malformed key is refused at once. A key
 * the workspace used already skips the early quota checks: its request may be a retry of one
 * that was counted (the use case answers it, or refuses a different request with that key).
 */
const uploadOptions = async (
  deps: EndpointDeps,
  req: Request,
  res: ServerResponse,
  caller: Caller,
  target: UploadTarget,
): Promise<UploadOptions> => {
  const key = parseIdempotencyKey(req.headers['idempotency-key']);
  const now = deps.clock.now();
  const known =
    key !== null &&
    (await findIdempotentUpload(
      deps.store.db,
      caller.workspaceId,
      key,
      new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS),
    )) !== null;
  if (!known) await refuseBeforeBody(deps.store.db, req, caller, target);
  return {
    ...(key === null ? {} : { idempotencyKey: key }),
    replayed: () => res.setHeader('Idempotent-Replayed', 'true'),
  };
};

/** Receives the upload and runs `work` on it; the temporary file goes whatever happens. */
const withUpload = async <T>(
  deps: EndpointDeps,
  req: Request,
  work: (upload: Upload) => Promise<T>,
): Promise<T> => {
  const upload = await receiveUpload(req, deps.blobs);
  try {
    return await work(upload);
  } finally {
    // (best effort: a failed removal must not turn a stored upload into an error; a committed
    // original was moved already)
    if (upload.file) await deps.blobs.discard(upload.file.ref).catch(() => undefined);
  }
};

/**
 * An upload endpoint from its request to its answer: the checks made before the body, the upload
 * received, `work` done on it with the request's options, and the temporary file removed.
 */
export const handleUpload = async <T>(
  { req, res, caller }: { req: Request; res: ServerResponse; caller: Caller },
  deps: EndpointDeps,
  target: UploadTarget,
  work: (upload: Upload, options: UploadOptions) => Promise<T>,
): Promise<T> => {
  const options = await uploadOptions(deps, req, res, caller, target);
  return withUpload(deps, req, (upload) => work(upload, options));
};

/**
 * The plan's limits that the request's headers already tell (its declared size, the number of
 * flipbooks or versions), checked before a byte of the body is read: the API's uploads and the
 * dashboard's.
 */
export const refuseBeforeBody = async (
  db: Db,
  req: Request,
  caller: Caller,
  target: UploadTarget,
) => {
  const declared = declaredFileBytes(req);
  try {
    // Past the service's own limit the spec's answer is 413, whatever the plan allows.
    if (declared !== null && declared > MAX_UPLOAD_BYTES) throw uploadTooLarge();
    await refuseEarly(db, caller, declared, target);
  } catch (error) {
    dropBodyAfterRefusal(req);
    throw error;
  }
};
