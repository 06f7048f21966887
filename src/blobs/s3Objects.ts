// The object-store primitive in an S3-compatible bucket (AWS S3, R2, MinIO, Ceph, Garage...),
// for daemons and workers with no shared file system; keys under an optional prefix. An object
// appears whole or not at all (PUT and multipart completion are atomic). Every failure other than
// "no such object" is a BlobStoreUnavailable: a 503 for a request, a retry later for processing.
// Every request to the bucket is bounded (./bucketLimits.ts: connections in ./boundedAgent.ts,
// retries and budgets in ./boundedSend.ts), so a bucket that stalls or fails costs its callers a
// quick failure, never a hang.
// One file (over 300 lines): every operation of the primitive on one client, bounded the same way;
// the streamed upload is ./s3Upload.ts.
import { readFile, rm } from 'node:fs/promises';
import { PassThrough, type Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { BlobStoreUnavailable } from '../domain/errors.ts';
import { logger } from '../log.ts';
import { BucketTimeout, boundedAgent } from './boundedAgent.ts';
import { type Attempt, boundedSend } from './boundedSend.ts';
import { type BucketLimits, bucketLimits } from './bucketLimits.ts';
import { heartbeat } from './heartbeat.ts';
import type { ObjectStore, OpenedBlob, StoredObject } from './objectStore.ts';
import { uploadStream } from './s3Upload.ts';
import { parseS3Url } from './s3Url.ts';
import { makeScratch } from './scratch.ts';

export type S3StoreOptions = {
  /** s3://bucket[/prefix] */
  url: string;
  endpoint?: string;
  pathStyle?: boolean;
  /** where renders and local copies of originals go; this process's own folder is made in it */
  scratchDir: string;
  /** the bounds on every request (--s3-timeout); the defaults unless told */
  limits?: BucketLimits;
  /**
   * The database's clock minus this machine's: a bucket refuses a request signed more than 15
   * minutes off its own time (RequestTimeTooSkewed), so a machine whose clock is wrong signs by
   * the time every decision follows (docs/deploy.md, "Clocks").
   */
  clockOffsetMs?: number;
};

const TYPES: Record<string, string> = {
  jpg: 'image/jpeg',
  txt: 'text/plain; charset=utf-8',
  json: 'application/json; charset=utf-8',
  pdf: 'application/pdf',
};
const typeOf = (key: string) => TYPES[key.split('.').pop() ?? ''] ?? 'application/octet-stream';

export const s3Client = (
  options: { endpoint?: string; pathStyle?: boolean; clockOffsetMs?: number },
  limits: BucketLimits,
) => {
  const endpoint = options.endpoint ?? process.env.AWS_ENDPOINT_URL_S3;
  return new S3Client({
    ...(endpoint ? { endpoint } : {}),
    ...(options.clockOffsetMs ? { systemClockOffset: options.clockOffsetMs } : {}),
    forcePathStyle: options.pathStyle ?? false,
    // Stores other than AWS often have no region: any name does for them.
    ...(endpoint && !process.env.AWS_REGION && !process.env.AWS_DEFAULT_REGION
      ? { region: 'us-east-1' }
      : {}),
    // Only the checksums a request needs: newer SDKs add CRC32 trailers by default, which many
    // S3-compatible stores refuse.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // Retries are ours (./boundedSend.ts), within a budget; the SDK's token bucket, which a run
    // of 500s drains, never decides.
    maxAttempts: 1,
    // Every wait bounded by the agent (./boundedAgent.ts); the SDK's own timers are off (its
    // connection timeout counted the wait for a free socket, its socket timeout would cut a
    // body whose reader is merely slow).
    requestHandler: {
      httpAgent: boundedAgent(limits, false),
      httpsAgent: boundedAgent(limits, true),
      socketTimeout: 0,
    },
    // The SDK's own warnings go to our JSON log, not to stderr as bare text. Its error lines are
    // every failed command (a 404 too), which we handle and log ourselves: not repeated.
    logger: {
      debug: () => {},
      info: () => {},
      warn: (...args: unknown[]) => logger.warn({ sdk: sdkWords(args) }, 'S3 client'),
      error: () => {},
    },
  });
};

const sdkWords = (args: unknown[]) =>
  args
    .map((a) =>
      a instanceof Error ? a.message : typeof a === 'object' ? JSON.stringify(a) : String(a),
    )
    .join(' ')
    .slice(0, 2000);

const isMissing = (error: unknown) => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  // The bucket itself missing is the store's failure, not the object's absence (a HEAD's 404
  // cannot tell them apart: /readyz's listing does).
  if (e?.name === 'NoSuchBucket') return false;
  return (
    e?.name === 'NoSuchKey' ||
    e?.name === 'NotFound' ||
    e?.$metadata?.httpStatusCode === 404 ||
    e?.$metadata?.httpStatusCode === 412 // If-Match: the object changed or went
  );
};

export const openS3Objects = async (options: S3StoreOptions): Promise<ObjectStore> => {
  const { bucket, prefix } = parseS3Url(options.url);
  const limits = options.limits ?? bucketLimits();
  const client = s3Client(options, limits);
  const send = boundedSend(limits);
  const scratch = await makeScratch(options.scratchDir);

  /** runs one request, bounded; a missing object is `null`, anything else BlobStoreUnavailable */
  const call = async <T>(operation: string, run: Attempt<T>): Promise<T | null> => {
    try {
      return await send(run);
    } catch (error) {
      if (isMissing(error)) return null;
      if (error instanceof BlobStoreUnavailable) throw error;
      throw new BlobStoreUnavailable(operation, error);
    }
  };
  const must = async <T>(operation: string, run: Attempt<T>): Promise<T> => {
    const result = await call(operation, run);
    if (result === null) throw new BlobStoreUnavailable(operation, new Error('no such object'));
    return result;
  };
  // Asked outside any request's budget: its questions serve every upload under way, whichever
  // request began them.
  const answering = heartbeat(
    () =>
      send(
        (o) =>
          client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, MaxKeys: 1 }), o),
        true,
      ),
    limits.heartbeatMs,
  );

  const put = async (key: string, body: Uint8Array | string) => {
    await must('put', (o) =>
      client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: prefix + key,
          Body: body,
          ContentType: typeOf(key),
          ContentLength: Buffer.byteLength(body),
        }),
        o,
      ),
    );
  };
  const head = async (key: string): Promise<StoredObject | null> => {
    const info = await call('head', (o) =>
      client.send(new HeadObjectCommand({ Bucket: bucket, Key: prefix + key }), o),
    );
    return info
      ? { key, size: info.ContentLength ?? 0, mtimeMs: info.LastModified?.getTime() ?? 0 }
      : null;
  };

  /** pages of a listing under `under` (a full key prefix), with or without a delimiter */
  async function* pages(under: string, delimiter?: string) {
    let token: string | undefined;
    do {
      const page = await must('list', (o) =>
        client.send(
          new ListObjectsV2Command({
            Bucket: bucket,
            Prefix: under,
            ContinuationToken: token,
            ...(delimiter ? { Delimiter: delimiter } : {}),
          }),
          o,
        ),
      );
      yield page;
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }
  async function* list(under: string): AsyncIterable<StoredObject> {
    for await (const page of pages(prefix + under)) {
      for (const object of page.Contents ?? []) {
        if (object.Key?.startsWith(prefix)) {
          yield {
            key: object.Key.slice(prefix.length),
            size: object.Size ?? 0,
            mtimeMs: object.LastModified?.getTime() ?? 0,
          };
        }
      }
    }
  }

  return {
    describe: `s3://${bucket}/${prefix}`,
    kind: 's3',
    scratch,
    head,
    open: async (key): Promise<OpenedBlob | null> => {
      const info = await call('head', (o) =>
        client.send(new HeadObjectCommand({ Bucket: bucket, Key: prefix + key }), o),
      );
      if (!info) return null;
      const etag = info.ETag ?? `"${info.ContentLength ?? 0}"`;
      return {
        size: info.ContentLength ?? 0,
        etag,
        lastModified: info.LastModified ?? new Date(0),
        // If-Match: the bytes are the object the validators describe, or a 404 if it changed.
        read: async (start, end) => {
          const object = await must('get', (o) =>
            client.send(
              new GetObjectCommand({
                Bucket: bucket,
                Key: prefix + key,
                IfMatch: etag,
                ...(end >= start ? { Range: `bytes=${start}-${end}` } : {}),
              }),
              o,
            ),
          );
          return watched(object.Body as Readable, limits.silenceMs);
        },
        close: async () => {},
      };
    },
    get: async (key) => {
      const object = await call('get', (o) =>
        client.send(new GetObjectCommand({ Bucket: bucket, Key: prefix + key }), o),
      );
      if (!object?.Body) return null;
      const chunks: Buffer[] = [];
      for await (const chunk of watched(object.Body as Readable, limits.silenceMs)) {
        chunks.push(chunk as Buffer);
      }
      return Buffer.concat(chunks);
    },
    put,
    putFile: async (key, path) => {
      await put(key, await readFile(path));
      await rm(path, { force: true });
    },
    upload: async (key, spool) =>
      uploadStream(client, send, answering, bucket, prefix + key, typeOf(key), spool),
    move: async (from, to) => {
      await must('copy', (o) =>
        client.send(
          new CopyObjectCommand({
            Bucket: bucket,
            Key: prefix + to,
            CopySource: `${bucket}/${(prefix + from).split('/').map(encodeURIComponent).join('/')}`,
            ContentType: typeOf(to),
            MetadataDirective: 'REPLACE',
          }),
          o,
        ),
      );
      // The object is stored under `to`: `from` left behind is only the sweep's, never an error.
      await call('delete', (o) =>
        client.send(new DeleteObjectCommand({ Bucket: bucket, Key: prefix + from }), o),
      ).catch(() => undefined);
    },
    list,
    folders: async (under) => {
      // The delimiter's common prefixes: one entry per folder, not every object under it.
      const found: string[] = [];
      for await (const page of pages(prefix + under, '/')) {
        for (const common of page.CommonPrefixes ?? []) {
          const name = (common.Prefix ?? '').slice((prefix + under).length, -1);
          if (name) found.push(name);
        }
      }
      return found;
    },
    remove: async (key) => {
      await call('delete', (o) =>
        client.send(new DeleteObjectCommand({ Bucket: bucket, Key: prefix + key }), o),
      );
    },
    removeAll: async (under) => {
      let bytes = 0;
      let batch: string[] = [];
      const flush = async () => {
        if (batch.length === 0) return;
        const keys = batch;
        batch = [];
        await must('delete', (o) =>
          client.send(
            new DeleteObjectsCommand({
              Bucket: bucket,
              Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true },
            }),
            o,
          ),
        );
      };
      for await (const object of list(under)) {
        bytes += object.size;
        batch.push(prefix + object.key);
        if (batch.length === 1000) await flush();
      }
      await flush();
      return bytes;
    },
    localPath: () => null,
    check: async () => {
      await must('list', (o) =>
        client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, MaxKeys: 1 }), o),
      );
    },
    close: async () => {
      await rm(scratch, { recursive: true, force: true }).catch(() => {});
      client.destroy();
    },
  };
};

/**
 * A body coming from the bucket, failed (BlobStoreUnavailable) after `silenceMs` without a byte
 * while its reader waits for one; a reader that is slow itself (a reader's client on a poor
 * link) is waited for as long as it takes. Any failure of the body is the store's.
 */
const watched = (body: Readable, silenceMs: number): Readable => {
  const out = new PassThrough();
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(
      () =>
        body.destroy(
          new BucketTimeout(
            `the bucket was silent for ${silenceMs / 1000} s in the middle of a body`,
          ),
        ),
      silenceMs,
    );
  };
  body.on('data', (chunk: Buffer) => {
    if (out.write(chunk)) return arm();
    clearTimeout(timer); // the reader's turn: not the bucket's silence
    body.pause();
    out.once('drain', () => {
      arm();
      body.resume();
    });
  });
  body.once('end', () => {
    clearTimeout(timer);
    out.end();
  });
  body.once('error', (error) => {
    clearTimeout(timer);
    out.destroy(new BlobStoreUnavailable('get', error));
  });
  out.once('close', () => {
    clearTimeout(timer);
    if (!body.readableEnded) body.destroy();
  });
  arm();
  return out;
};
