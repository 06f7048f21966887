// An upload into the bucket as a stream (./s3Objects.ts's `upload`): a multipart upload that holds
// little in memory, fails the moment the bucket does, and leaves nothing behind when given up.
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { PassThrough, Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { AbortMultipartUploadCommand, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { BlobStoreUnavailable } from '../domain/errors.ts';
import type { boundedSend } from './boundedSend.ts';
import type { Heartbeat } from './heartbeat.ts';
import { scratchFailure } from './scratch.ts';

/**
 * Parts of a multipart upload: 5 MiB each (S3's smallest), two in flight, so an upload holds
 * ~15 MiB at most (8 MiB parts measured ~20 MB more at the peak of a 512 MB upload).
 */
const PART_SIZE = 5 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;

const _TYPES: Record<string, string> = {
  jpg: 'image/jpeg',
  txt: 'text/plain; charset=utf-8',
  json: 'application/json; charset=utf-8',
  pdf: 'application/pdf',
};
/**
 * A writable that streams into a multipart upload: at most PARTS_IN_FLIGHT parts in memory, the
 * rest waits (backpressure reaches the client's socket). It finishes only once the object is
 * complete in the bucket. The first request of the upload that fails (after its retries, within
 * its budget) fails the stream at once: lib-storage itself says nothing until its other parts
 * end, and they wait for a body that waits for them (measured: 30 s, then 30 more aborting).
 * So does the bucket failing the heartbeat's question (./heartbeat.ts) while the stream is open:
 * before its first part is whole, nothing of the upload is waiting on the bucket. And so does the
 * local copy failing (a full TMPDIR): the machine's failure (MachineFailure), not the store's.
 * Destroyed, the upload is aborted behind the caller's back (each request bounded), so no parts
 * are left in the bucket; an abort that fails leaves them to the bucket's lifecycle rule
 * (docs/deploy.md).
 */
export const uploadStream = (
  client: S3Client,
  send: ReturnType<typeof boundedSend>,
  answering: Heartbeat,
  bucket: string,
  key: string,
  /** the object's Content-Type */
  contentType: string,
  spoolPath?: string,
): Writable => {
  const body = new PassThrough({ highWaterMark: 1024 * 1024 });
  const spool = spoolPath ? createWriteStream(spoolPath, { flags: 'wx' }) : null;
  const spoolFailed = (error: unknown) =>
    scratchFailure(error, spoolPath ?? '', "the upload's local copy could not be written");
  const spooled = spool
    ? finished(spool).catch((error: unknown) => Promise.reject(spoolFailed(error)))
    : Promise.resolve();
  spooled.catch(() => {});
  // A local copy that fails mid-write fails the upload now: a destroyed file stream never drains,
  // and a write waiting for it would hold the client's upload for ever.
  spool?.on('error', (error) => {
    if (!stream.destroyed) stream.destroy(spoolFailed(error));
  });
  const failed = (error: unknown) =>
    error instanceof BlobStoreUnavailable ? error : new BlobStoreUnavailable('upload', error);
  // The upload's requests, each bounded on its own (outside the HTTP request's budget: an upload
  // lasts as long as its client sends).
  // Aborted with the stream: a request of the upload retried after the refusal was answered (the
  // bucket back up by then) would store a temporary that nothing removes any more.
  const given = new AbortController();
  const parts = new Proxy(client, {
    get: (target, property, receiver) =>
      property === 'send'
        ? (command: Parameters<S3Client['send']>[0]) =>
            send(
              (o) => target.send(command, o),
              true,
              // (the abort itself goes on: it removes the parts already stored)
              command instanceof AbortMultipartUploadCommand ? undefined : given.signal,
            ).catch((error: unknown) => {
              if (!stream.destroyed) stream.destroy(failed(error));
              throw error;
            })
        : Reflect.get(target, property, receiver),
  });
  const upload = new Upload({
    client: parts,
    params: { Bucket: bucket, Key: key, Body: body, ContentType: contentType },
    partSize: PART_SIZE,
    queueSize: PARTS_IN_FLIGHT,
    leavePartsOnError: false,
  });
  const done = upload.done();
  const stream: Writable = new Writable({
    write(chunk, _encoding, callback) {
      // On to the bucket and the spool both; the next chunk waits for whichever is slower.
      const waits: Promise<unknown>[] = [];
      // (the body fails only because the upload did: that is the store's failure)
      if (!body.write(chunk))
        waits.push(once(body, 'drain').catch((error) => Promise.reject(failed(error))));
      if (spool && !spool.write(chunk)) {
        waits.push(once(spool, 'drain').catch((error) => Promise.reject(spoolFailed(error))));
      }
      if (waits.length === 0) return callback();
      Promise.all(waits).then(() => callback(), callback);
    },
    final(callback) {
      body.end();
      spool?.end();
      Promise.all([done.catch((error: unknown) => Promise.reject(failed(error))), spooled]).then(
        () => callback(),
        callback,
      );
    },
    destroy(error, callback) {
      if (error || !stream.writableFinished) {
        given.abort(error ?? new Error('the upload was given up'));
        void upload.abort().catch(() => {});
        body.destroy();
        spool?.destroy();
      }
      callback(error);
    },
  });
  // The upload failing by itself (a part refused as malformed, say) fails the stream too.
  done.catch((error: unknown) => {
    if (!stream.destroyed) stream.destroy(failed(error));
  });
  const unwatch = answering.watch((error) => {
    if (!stream.destroyed && !stream.writableFinished) {
      stream.destroy(
        new BlobStoreUnavailable(
          'upload',
          error instanceof BlobStoreUnavailable ? error.cause : error,
        ),
      );
    }
  });
  stream.once('close', unwatch);
  stream.once('finish', unwatch);
  return stream;
};
