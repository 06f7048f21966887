// Receives a multipart upload: the `file` part is streamed into the blob store while it is hashed
// (never held whole in memory), other parts are small text fields. Every limit is enforced while
// the bytes arrive, and a refused or aborted upload leaves no file behind. A full disk (507), a
// bucket that fails and a full spool disk (503) are answered at once, without reading the rest
// of the body.

import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { basename } from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { ReceivedFile, ReceivedUpload } from '../app/received.ts';
import type { BlobStore } from '../blobs/blobStore.ts';
import {
  AppError,
  BlobStoreUnavailable,
  InsufficientStorage,
  InvalidInput,
  isOutOfSpace,
  MachineFailure,
} from '../domain/errors.ts';
import { ClientClosed } from './clientGone.ts';

export const MAX_UPLOAD_BYTES = 512 * 1024 * 1024;
const MAX_FIELD_BYTES = 64 * 1024;
/** A refused body up to this size is read to its end so the client gets the answer. */
const DRAIN_LIMIT = 16 * 1024 * 1024;
/** busboy's limit on one part's headers. */
const MAX_PART_HEADER_BYTES = 16 * 1024;
const MAX_PARTS = 25;
/**
 * The most a multipart body may hold besides the file's bytes: every part's headers and fields
 * at their limits (and the boundaries, well within the slack). So a declared length over a limit
 * by more than this is a file over it.
 */
const MULTIPART_OVERHEAD = MAX_PARTS * (MAX_PART_HEADER_BYTES + MAX_FIELD_BYTES);

export class PayloadTooLarge extends AppError {
  override name = 'PayloadTooLarge';
  constructor(message: string) {
    super(413, message);
  }
}

export const uploadTooLarge = () =>
  new PayloadTooLarge(
    `File too large: uploads are limited to ${MAX_UPLOAD_BYTES / 1024 / 1024} MB`,
  );

export type ReceiveOptions = {
  /**
   * Called with the fields read so far when the file part begins, before a byte of it is stored:
   * throwing refuses the upload (the dashboard checks its CSRF field, sent before the file).
   */
  beforeFile?: (fields: Record<string, string>) => void;
};

export const receiveUpload = (
  req: IncomingMessage,
  blobs: BlobStore,
  options: ReceiveOptions = {},
): Promise<ReceivedUpload> => {
  const type = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\s*;/i.test(type)) {
    // No multipart body means no file part: the spec's answer for a missing file.
    return drain(req).then(() => {
      throw new InvalidInput('file is required');
    });
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_UPLOAD_BYTES + MULTIPART_OVERHEAD) {
    return Promise.reject(uploadTooLarge());
  }

  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        defParamCharset: 'utf8', // keep Unicode file names intact
        limits: {
          fileSize: MAX_UPLOAD_BYTES,
          files: 1,
          fields: 20,
          fieldSize: MAX_FIELD_BYTES,
          parts: MAX_PARTS,
          headerPairs: 50,
        },
      });
    } catch (error) {
      drain(req).then(() =>
        reject(new InvalidInput(`Malformed multipart body: ${(error as Error).message}`)),
      );
      return;
    }

    const fields: Record<string, string> = {};
    const temporaries: string[] = [];
    let file: Promise<ReceivedFile | null> = Promise.resolve(null);
    let failure: Error | null = null;
    const fail = (error: Error) => {
      failure ??= isOutOfSpace(error) ? new InsufficientStorage() : error;
    };

    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) fail(new InvalidInput(`Field "${name}" is too long`));
      else fields[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      // Every file stream gets an error listener at once, those read and forgotten too: busboy
      // fails the stream of a body cut short, and an 'error' nobody listens to would be thrown.
      stream.on('error', () => {});
      if (name !== 'file') {
        stream.resume(); // not ours; read and forget
        return;
      }
      try {
        options.beforeFile?.(fields);
      } catch (error) {
        fail(error as Error);
        stream.resume(); // refused: read and forget, so the client still gets the answer
        return;
      }
      // Listen at once: busboy may fail this stream (a body cut short) before we have a file to
      // pipe it into, and an 'error' with no listener would crash the process. A full disk and
      // a failed store reach this stream too (the pipeline below destroys it with the write's
      // error): they are what happened, not a malformed body (the store's failure was a 400
      // "Malformed multipart body: The file store is unavailable").
      stream.on('error', (error) =>
        fail(
          isOutOfSpace(error) || error instanceof AppError
            ? error
            : new InvalidInput(`Malformed multipart body: ${error.message}`),
        ),
      );
      file = blobs.temporary().then(async ({ ref, path, stream: out }) => {
        temporaries.push(ref);
        const inspect = new Inspector();
        let truncated = false;
        stream.on('limit', () => {
          truncated = true;
        });
        await pipeline(stream, inspect, out);
        if (truncated) throw uploadTooLarge();
        return {
          ref,
          path,
          name: cleanFileName(info.filename),
          mimeType: info.mimeType || 'application/octet-stream',
          size: inspect.size,
          sha256: inspect.hash.digest('hex'),
        };
      });
      file.catch((error: Error) => {
        fail(error);
        // The write stream failed and busboy's file stream was destroyed with it: busboy would
        // wait forever for it to be read, and so would the client. Stop reading the body now;
        // the 507 (or the 503: the bucket, the spool's disk) goes out with `Connection: close`,
        // so the rest is never read.
        if (
          isOutOfSpace(error) ||
          error instanceof BlobStoreUnavailable ||
          error instanceof MachineFailure
        ) {
          req.unpipe(parser);
          parser.destroy(failure ?? error);
        }
      });
    });
    parser.on('filesLimit', () => fail(new InvalidInput('Only one file may be uploaded')));
    parser.on('partsLimit', () => fail(new InvalidInput('Too many parts in the multipart body')));
    parser.on('fieldsLimit', () => fail(new InvalidInput('Too many fields in the multipart body')));

    // Best effort: the answer must go out even when the store is what failed; a temporary left
    // behind is the sweep's (`flipbook blobs gc`).
    // When the store itself failed, removing from it would only wait out its timeouts too: the
    // answer goes out now and the removal goes on behind it.
    const cleanUp = async (cause: unknown) => {
      const removed = Promise.all(
        temporaries.map((ref) => blobs.discard(ref).catch(() => undefined)),
      );
      if (!(cause instanceof BlobStoreUnavailable)) await removed;
    };
    // A client that goes away mid-upload never sees an answer; anything else that breaks the
    // parse is a malformed body.
    let clientGone = false;
    const gone = () => {
      clientGone = true;
      parser.destroy(new ClientClosed());
    };
    req.on('close', () => {
      if (!req.complete) gone();
    });
    // Gone already, while the request was checked (its 'close' past): nothing would ever flow.
    if (req.destroyed) gone();
    req.on('error', (error) => parser.destroy(error));
    // pipe, not pipeline: pipeline would destroy the request (and with it the socket) when we
    // stop the parser early, and the client would get a reset instead of our 507.
    req.pipe(parser);
    finished(parser)
      .then(async () => {
        const received = await file.catch((error: Error) => {
          fail(error);
          return null;
        });
        if (failure) {
          await cleanUp(failure);
          return reject(failure);
        }
        resolve({ fields, file: received });
      })
      .catch(async (error: Error) => {
        await file.catch(() => null);
        await cleanUp(failure ?? error);
        const refusal =
          failure ??
          (clientGone ? error : new InvalidInput(`Malformed multipart body: ${error.message}`));
        // A small malformed body is read to its end before we answer: closing the connection
        // while the client still sends resets it, and the client may never read our 400.
        if (!clientGone && refusal instanceof InvalidInput && declared <= DRAIN_LIMIT) {
          await drain(req);
        }
        reject(refusal);
      });
  });
};

/**
 * The least the uploaded file can weigh, from the request's Content-Length: null when the body
 * declares no length (chunked) or is not multipart.
 */
export const declaredFileBytes = (req: IncomingMessage): number | null => {
  const declared = Number(req.headers['content-length']);
  if (
    !Number.isFinite(declared) ||
    !/^multipart\/form-data\s*;/i.test(req.headers['content-type'] ?? '')
  ) {
    return null;
  }
  return Math.max(0, declared - MULTIPART_OVERHEAD);
};

/**
 * Lets a refusal go out before the body is read: the rest of the body is read and dropped as it
 * comes, since closing the connection on a client still sending resets it, and it may never read
 * the answer (seen with undici: EPIPE instead of the 422). A client that goes on sending past
 * DRAIN_LIMIT after the answer has had it long since: the connection is then cut.
 */
export const dropBodyAfterRefusal = (req: IncomingMessage) => {
  let seen = 0;
  req.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > DRAIN_LIMIT) req.socket?.destroy();
  });
  req.on('error', () => {}); // a cut connection is the expected end, not a failure
  req.resume();
};

/** Hashes and counts the bytes on their way to disk (what they are is told from the file). */
class Inspector extends Transform {
  readonly hash = createHash('sha256');
  size = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
    this.hash.update(chunk);
    this.size += chunk.length;
    done(null, chunk);
  }
}

/**
 * The file's own name, without any directory part or control characters (NUL among them: the
 * store cannot hold it), at most 255 chars. An unpaired surrogate cannot come out of busboy's
 * UTF-8 decoding, but would break the stored event; make sure.
 */
const cleanFileName = (raw: string | undefined) => {
  // Browsers and curl send a double quote in a name as %22 (the HTML spec's multipart form):
  // the name the person gave it has the quote.
  const printable = [...(raw ?? '').replaceAll('%22', '"').toWellFormed()]
    .filter((c) => c.charCodeAt(0) >= 0x20 && c !== '\u007f')
    .join('');
  const name = basename(printable.replaceAll('\\', '/')).trim();
  // Cut by code points: cutting UTF-16 units could split a pair and leave a lone surrogate.
  return [...(name || 'document.pdf')].slice(0, 255).join('');
};

/** Reads and discards a body we will not use, so the client sees our answer, not a reset. */
export const drain = (req: IncomingMessage) =>
  new Promise<void>((resolve) => {
    if (req.readableEnded || req.destroyed) return resolve();
    req.on('end', resolve);
    req.on('error', () => resolve());
    req.on('close', () => resolve());
    req.resume();
  });
