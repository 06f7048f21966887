// The blob store in an S3-compatible bucket (AWS S3, R2, MinIO, Ceph, Garage...), for daemons and
// workers with no shared file system. Same keys as the directory, under an optional prefix:
//   <prefix>tmp/<host>.<pid>.<uuid>.part       uploads on their way in (multipart)
//   <prefix>originals/ab/<sha256>.pdf          originals, by content
//   <prefix>pages/<version>/<pos>/<file>       page files; <prefix>pages/<version>/document.json
// An object appears whole or not at all (PUT and multipart completion are atomic), so pages need
// no attempt folders: a render writes locally, in this process's scratch directory, and uploads
// each page as it finishes. Renders of one original are the same bytes, so a late upload from a
// worker that lost its lease rewrites a page with itself; what it leaves after a deletion is
// found by the sweep (`flipbook blobs gc`).
// Every failure other than "no such object" is a BlobStoreUnavailable: a 503 for a request, a
// retry later for processing.
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { lstat, mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, type Readable, Writable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
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
import { Upload } from '@aws-sdk/lib-storage';
import { BlobStoreUnavailable } from '../domain/errors.ts';
import { isAlive } from '../isAlive.ts';
import { logger } from '../log.ts';
import {
  type BlobStore,
  counted,
  isStoreKey,
  type OpenedBlob,
  OriginalMissing,
  originalKey,
  pageKey,
  UUID,
  versionKey,
} from './blobStore.ts';
import {
  OLD_TEMPORARY,
  ORIGINAL,
  type Original,
  type PageFolder,
  TEMPORARY,
  type Temporary,
  temporaryName,
  thisOwner,
} from './listing.ts';
import { parseS3Url } from './s3Url.ts';

export type S3StoreOptions = {
  /** s3://bucket[/prefix] */
  url: string;
  endpoint?: string;
  pathStyle?: boolean;
  /** where renders and local copies of originals go; this process's own folder is made in it */
  scratchDir: string;
};

/**
 * Parts of a multipart upload: 5 MiB each (S3's smallest), two in flight, so an upload holds
 * ~15 MiB at most (8 MiB parts measured ~20 MB more at the peak of a 512 MB upload).
 */
const PART_SIZE = 5 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;
/** Local copies of originals kept for the next use (words.json, a retry), at most this many bytes. */
const CACHE_BYTES = 1024 * 1024 * 1024;

const TYPES: Record<string, string> = {
  jpg: 'image/jpeg',
  txt: 'text/plain; charset=utf-8',
  json: 'application/json; charset=utf-8',
  pdf: 'application/pdf',
};
const typeOf = (key: string) => TYPES[key.split('.').pop() ?? ''] ?? 'application/octet-stream';

export const s3Client = (options: { endpoint?: string; pathStyle?: boolean }) => {
  const endpoint = options.endpoint ?? process.env.AWS_ENDPOINT_URL_S3;
  return new S3Client({
    ...(endpoint ? { endpoint } : {}),
    forcePathStyle: options.pathStyle ?? false,
    // Stores other than AWS often have no region: any name does for them.
    ...(endpoint && !process.env.AWS_REGION && !process.env.AWS_DEFAULT_REGION
      ? { region: 'us-east-1' }
      : {}),
    // Only the checksums a request needs: newer SDKs add CRC32 trailers by default, which many
    // S3-compatible stores refuse.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
    // A store that stops answering is a failure within seconds, not a hung request: 5 s to
    // connect, 10 s of silence (a socket idle, not a transfer's length), three tries.
    // (throwOnRequestTimeout: without it the SDK only warns, and a frozen store hangs requests.)
    requestHandler: {
      connectionTimeout: 5_000,
      requestTimeout: 10_000,
      throwOnRequestTimeout: true,
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

export const openS3Store = async (options: S3StoreOptions): Promise<BlobStore> => {
  const { bucket, prefix } = parseS3Url(options.url);
  const client = s3Client(options);
  const describe = `s3://${bucket}/${prefix}`;
  const scratch = join(options.scratchDir, `${temporaryName().replace(/\.part$/, '')}.scratch`);
  await sweepScratch(options.scratchDir);
  await mkdir(scratch, { recursive: true });

  /** runs one call; a missing object is `null`, anything else BlobStoreUnavailable */
  const call = async <T>(operation: string, run: () => Promise<T>): Promise<T | null> => {
    try {
      return await run();
    } catch (error) {
      if (isMissing(error)) return null;
      if (error instanceof BlobStoreUnavailable) throw error;
      throw new BlobStoreUnavailable(operation, error);
    }
  };
  const must = async <T>(operation: string, run: () => Promise<T>): Promise<T> => {
    const result = await call(operation, run);
    if (result === null) throw new BlobStoreUnavailable(operation, new Error('no such object'));
    return result;
  };
  const head = (key: string) =>
    call('head', () => client.send(new HeadObjectCommand({ Bucket: bucket, Key: key })));
  const put = (key: string, body: Uint8Array | string) =>
    must('put', () =>
      client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: body,
          ContentType: typeOf(key),
          ContentLength: Buffer.byteLength(body),
        }),
      ),
    );
  const getText = async (key: string) => {
    const object = await call('get', () =>
      client.send(new GetObjectCommand({ Bucket: bucket, Key: key })),
    );
    if (!object?.Body) return null;
    return must('get', () =>
      (object.Body as { transformToString: () => Promise<string> }).transformToString(),
    );
  };
  const remove = (key: string) =>
    call('delete', () => client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key })));

  async function* list(under: string) {
    let token: string | undefined;
    do {
      const page = await must('list', () =>
        client.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: under, ContinuationToken: token }),
        ),
      );
      for (const object of page.Contents ?? []) {
        if (object.Key) {
          yield {
            key: object.Key,
            size: object.Size ?? 0,
            mtimeMs: object.LastModified?.getTime() ?? 0,
          };
        }
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }
  /** removes every object under a prefix; the bytes they held */
  const removePrefix = async (under: string) => {
    let bytes = 0;
    let batch: string[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      const keys = batch;
      batch = [];
      await must('delete', () =>
        client.send(
          new DeleteObjectsCommand({
            Bucket: bucket,
            Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true },
          }),
        ),
      );
    };
    for await (const object of list(under)) {
      bytes += object.size;
      batch.push(object.key);
      if (batch.length === 1000) await flush();
    }
    await flush();
    return bytes;
  };
  const opened = async (key: string): Promise<OpenedBlob | null> => {
    const info = await head(key);
    if (!info) return null;
    const etag = info.ETag ?? `"${info.ContentLength ?? 0}"`;
    return {
      size: info.ContentLength ?? 0,
      etag,
      lastModified: info.LastModified ?? new Date(0),
      // If-Match: the bytes are the object the validators describe, or a 404 if it changed.
      read: async (start, end) => {
        const object = await must('get', () =>
          client.send(
            new GetObjectCommand({
              Bucket: bucket,
              Key: key,
              IfMatch: etag,
              ...(end >= start ? { Range: `bytes=${start}-${end}` } : {}),
            }),
          ),
        );
        return object.Body as Readable;
      },
      close: async () => {},
    };
  };

  /** upload key -> its local spool */
  const spools = new Map<string, string>();
  /** uploads committed and not yet discarded by their request */
  const committed = new Set<string>();
  const originals = localCopies(join(scratch, 'originals'), async (sha256, to) => {
    const object = await call('get', () =>
      client.send(new GetObjectCommand({ Bucket: bucket, Key: prefix + originalKey(sha256) })),
    );
    if (!object) throw new OriginalMissing();
    await pipeline(object.Body as Readable, createWriteStream(to, { flags: 'wx' })).catch(
      (error: unknown) => {
        // A local disk's errno is the local disk's; the rest is the store going away mid-read.
        if ((error as NodeJS.ErrnoException).code) throw error;
        throw new BlobStoreUnavailable('get', error);
      },
    );
  });

  const store: BlobStore = {
    describe,
    kind: 's3',
    temporary: async () => {
      const name = temporaryName();
      const key = `${prefix}tmp/${name}`;
      // Spooled beside the upload for its inspection only: pdfinfo must seek in a file to count
      // pages and refuse an unreadable PDF with the spec's 422 before the 201.
      const path = join(scratch, 'uploads', name);
      await mkdir(join(scratch, 'uploads'), { recursive: true });
      spools.set(key, path);
      return { ref: key, path, stream: uploadStream(client, bucket, key, path) };
    },
    commitOriginal: async (key, sha256) => {
      const target = prefix + originalKey(sha256);
      if (!(await head(target))) {
        await must('copy', () =>
          client.send(
            new CopyObjectCommand({
              Bucket: bucket,
              Key: target,
              CopySource: `${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`,
              ContentType: 'application/pdf',
              MetadataDirective: 'REPLACE',
            }),
          ),
        );
      }
      // The original is stored: a temporary left behind is only the sweep's, never an error.
      await remove(key).catch(() => undefined);
      // The spooled copy serves this process's workers: no download before the first page.
      const spool = spools.get(key);
      spools.delete(key);
      committed.add(key);
      if (spool) await originals.adopt(sha256, spool);
    },
    discard: async (key) => {
      const spool = spools.get(key);
      spools.delete(key);
      if (spool) await rm(spool, { force: true });
      // Committed (the spool went with it): the temporary is already gone, nothing to ask.
      else if (committed.delete(key)) return;
      await remove(key);
    },
    localOriginal: (sha256) => originals.get(sha256),
    openOriginal: (sha256) => opened(prefix + originalKey(sha256)),
    removeOriginal: async (sha256) => {
      await remove(prefix + originalKey(sha256));
    },
    renderTarget: async (versionId) => {
      // Named after the version: an operator (or a test) can tell whose render it is.
      const dir = join(scratch, `render-${versionId}-${randomUUID().slice(0, 8)}`);
      const version = prefix + versionKey(versionId);
      return {
        dir,
        activate: async () => {
          await mkdir(dir, { recursive: true });
        },
        publishPage: async (position) => {
          const folder = join(dir, String(position));
          const rendered = new Set(await readdir(folder));
          await Promise.all(
            (['max.jpg', 'mid.jpg', 'min.jpg'] as const)
              .filter((file) => rendered.has(file))
              .map(async (file) =>
                put(
                  prefix + pageKey(versionId, position, file),
                  await readFile(join(folder, file)),
                ),
              ),
          );
          await rm(folder, { recursive: true, force: true }); // the bucket has them now
        },
        writeFile: async (relative, content) => {
          await put(`${version}/${relative}`, content);
        },
        finish: () => rm(dir, { recursive: true, force: true }),
        abandon: () => rm(dir, { recursive: true, force: true }),
        release: () => rm(dir, { recursive: true, force: true }),
      };
    },
    openPageFile: (versionId, position, file) =>
      opened(prefix + pageKey(versionId, position, file)),
    readPageFile: (versionId, position, file) =>
      getText(prefix + pageKey(versionId, position, file)),
    writePageFile: async (versionId, position, file, content) => {
      await put(prefix + pageKey(versionId, position, file), content);
    },
    readDocument: (versionId) => getText(`${prefix}${versionKey(versionId)}/document.json`),
    removePages: async (versionId) => {
      await removePrefix(`${prefix}${versionKey(versionId)}/`);
    },
    listTemporaries: async () => {
      const found: Temporary[] = [];
      for await (const object of list(`${prefix}tmp/`)) {
        const name = object.key.slice(`${prefix}tmp/`.length);
        const owned = TEMPORARY.exec(name);
        if (!owned && !OLD_TEMPORARY.test(name)) continue;
        found.push({
          ref: object.key,
          size: object.size,
          mtimeMs: object.mtimeMs,
          owner: owned ? { host: owned[1] as string, pid: Number(owned[2]) } : null,
        });
      }
      return found;
    },
    listOriginals: async () => {
      const found: Original[] = [];
      for await (const object of list(`${prefix}originals/`)) {
        const [folder, name = ''] = object.key.slice(`${prefix}originals/`.length).split('/');
        const sha256 = ORIGINAL.exec(name)?.[1];
        if (sha256?.startsWith(folder ?? '-')) {
          found.push({ sha256, ref: object.key, size: object.size, mtimeMs: object.mtimeMs });
        }
      }
      return found;
    },
    listPageFolders: async () => {
      // One entry per version (the delimiter's common prefixes), not every page's objects.
      const found: PageFolder[] = [];
      let token: string | undefined;
      do {
        const page = await must('list', () =>
          client.send(
            new ListObjectsV2Command({
              Bucket: bucket,
              Prefix: `${prefix}pages/`,
              Delimiter: '/',
              ContinuationToken: token,
            }),
          ),
        );
        for (const common of page.CommonPrefixes ?? []) {
          const versionId = (common.Prefix ?? '').slice(`${prefix}pages/`.length, -1);
          if (UUID.test(versionId)) found.push({ versionId, ref: common.Prefix as string });
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return found;
    },
    removeListed: async (ref) => {
      if (ref.endsWith('/')) return removePrefix(ref);
      const size = (await head(ref))?.ContentLength ?? 0;
      await remove(ref);
      return size;
    },
    sizeOfListed: async (ref) => {
      if (!ref.endsWith('/')) return (await head(ref))?.ContentLength ?? 0;
      let bytes = 0;
      for await (const object of list(ref)) bytes += object.size;
      return bytes;
    },
    entries: async function* () {
      for (const top of ['originals/', 'pages/']) {
        for await (const object of list(prefix + top)) {
          const key = object.key.slice(prefix.length);
          if (isStoreKey(key)) yield { key, size: object.size };
        }
      }
    },
    readKey: async (key) => {
      if (!isStoreKey(key)) throw new Error(`not a blob key: ${key}`);
      const object = await must('get', () =>
        client.send(new GetObjectCommand({ Bucket: bucket, Key: prefix + key })),
      );
      return object.Body as Readable;
    },
    writeKey: async (key, body, size) => {
      if (!isStoreKey(key)) throw new Error(`not a blob key: ${key}`);
      if (size <= PART_SIZE) {
        const chunks: Buffer[] = [];
        for await (const chunk of body) chunks.push(chunk as Buffer);
        await put(prefix + key, Buffer.concat(chunks));
        return;
      }
      await pipeline(body, uploadStream(client, bucket, prefix + key));
    },
    hasKey: async (key) => {
      const info = await head(prefix + key);
      return info ? (info.ContentLength ?? 0) : null;
    },
    readMark: () => getText(`${prefix}flipbook-store.json`),
    writeMark: async (content) => {
      await put(`${prefix}flipbook-store.json`, content);
    },
    check: async () => {
      await must('list', () =>
        client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, MaxKeys: 1 })),
      );
    },
    close: async () => {
      await rm(scratch, { recursive: true, force: true }).catch(() => {});
      client.destroy();
    },
  };
  return counted(store);
};

/**
 * A writable that streams into a multipart upload: at most PARTS_IN_FLIGHT parts in memory, the
 * rest waits (backpressure reaches the client's socket). It finishes only once the object is
 * complete in the bucket; destroyed, it aborts the upload so no parts are left behind.
 */
const uploadStream = (
  client: S3Client,
  bucket: string,
  key: string,
  spoolPath?: string,
): Writable => {
  const body = new PassThrough({ highWaterMark: 1024 * 1024 });
  const spool = spoolPath ? createWriteStream(spoolPath, { flags: 'wx' }) : null;
  const spooled = spool ? finished(spool) : Promise.resolve();
  spooled.catch(() => {});
  const upload = new Upload({
    client,
    params: { Bucket: bucket, Key: key, Body: body, ContentType: typeOf(key) },
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
      if (!body.write(chunk)) {
        waits.push(
          once(body, 'drain').catch((error: unknown) => {
            throw new BlobStoreUnavailable('upload', error);
          }),
        );
      }
      if (spool && !spool.write(chunk)) waits.push(once(spool, 'drain'));
      if (waits.length === 0) return callback();
      Promise.all(waits).then(() => callback(), callback);
    },
    final(callback) {
      body.end();
      spool?.end();
      Promise.all([
        done.catch((error: unknown) => {
          throw new BlobStoreUnavailable('upload', error);
        }),
        spooled,
      ]).then(() => callback(), callback);
    },
    destroy(error, callback) {
      if (error || !stream.writableFinished) {
        void upload.abort().catch(() => {});
        body.destroy();
        spool?.destroy();
      }
      callback(error);
    },
  });
  // The store failing mid-upload stops reading from `body`: the writer would wait forever for
  // a drain. Fail the stream now instead.
  done.catch((error: unknown) => {
    if (!stream.destroyed) stream.destroy(new BlobStoreUnavailable('upload', error));
  });
  return stream;
};

/**
 * Local copies of originals, shared by whoever needs one at the same time and kept (up to
 * CACHE_BYTES, least recently used first out) for the next.
 */
const localCopies = (dir: string, fetch: (sha256: string, to: string) => Promise<void>) => {
  type Copy = { path: string; ready: Promise<number>; users: number; used: number };
  const copies = new Map<string, Copy>();
  const evict = async () => {
    let total = 0;
    for (const copy of copies.values()) total += await copy.ready.catch(() => 0);
    const idle = [...copies.entries()]
      .filter(([, copy]) => copy.users === 0)
      .sort((a, b) => a[1].used - b[1].used);
    for (const [sha256, copy] of idle) {
      if (total <= CACHE_BYTES) break;
      copies.delete(sha256);
      total -= await copy.ready.catch(() => 0);
      await rm(copy.path, { force: true });
    }
  };
  return {
    /** takes a local file of the original in (an upload's spool), or removes it if one is here */
    adopt: async (sha256: string, file: string) => {
      if (copies.has(sha256)) return void (await rm(file, { force: true }));
      const path = join(dir, `${sha256}.pdf`);
      const ready = (async () => {
        await mkdir(dir, { recursive: true });
        await rename(file, path);
        return (await stat(path)).size;
      })();
      copies.set(sha256, { path, ready, users: 0, used: Date.now() });
      await ready.catch(async () => {
        copies.delete(sha256);
        await rm(file, { force: true });
      });
      await evict();
    },
    get: async (sha256: string) => {
      let copy = copies.get(sha256);
      if (!copy) {
        const path = join(dir, `${sha256}.pdf`);
        const ready = (async () => {
          await mkdir(dir, { recursive: true });
          const part = `${path}.${randomUUID().slice(0, 8)}.part`;
          try {
            await fetch(sha256, part);
            await rename(part, path);
          } catch (error) {
            await rm(part, { force: true });
            throw error;
          }
          return (await stat(path)).size;
        })();
        copy = { path, ready, users: 0, used: Date.now() };
        copies.set(sha256, copy);
        ready.catch(() => copies.delete(sha256)); // the next asker tries again
      }
      const held = copy;
      held.users += 1;
      held.used = Date.now();
      try {
        await held.ready;
      } catch (error) {
        held.users -= 1;
        throw error;
      }
      let released = false;
      return {
        path: held.path,
        release: async () => {
          if (released) return;
          released = true;
          held.users -= 1;
          await evict();
        },
      };
    },
  };
};

/** Scratch folders of processes on this host that are gone (killed mid-render) are removed. */
const sweepScratch = async (dir: string) => {
  const me = thisOwner();
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const owned = /^(.+)\.(\d+)\.[0-9a-f-]{36}\.scratch$/.exec(name);
    if (!owned || owned[1] !== me.host) continue;
    const pid = Number(owned[2]);
    if (pid === me.pid) {
      // Our pid: an earlier process had it (pid 1 in a container) if the folder is older than us.
      const info = await lstat(join(dir, name)).catch(() => null);
      if (!info || info.mtimeMs >= performance.timeOrigin) continue;
    } else if (isAlive(pid)) continue;
    await rm(join(dir, name), { recursive: true, force: true }).catch(() => {});
  }
};
