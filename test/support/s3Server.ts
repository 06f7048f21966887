// A real S3-protocol server for tests (s3rver: multipart uploads, ranges, copies, batch deletes),
// on a free loopback port with its own directory. The global setup starts one for the run; a
// test that takes the store away starts its own, and brings it back on the same port and
// directory (so the buckets and objects are still there).
import crypto, { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { s3TestClient } from './blobPlace.ts';
import { S3_ENV } from './s3Env.ts';

export { S3_ENV };

// s3rver signs its continuation tokens (a listing cut short by MaxKeys or at 1000 keys) with
// single DES, which OpenSSL 3 keeps in its legacy provider: on Node 24 every truncated listing was
// a 500 (the blob store's readiness check, MaxKeys=1, failed on any bucket of 2 objects or more).
// Triple DES under the key repeated thrice is the same cipher, and is in the default provider.
type CipherFactory = (algorithm: string, key: Buffer, ...rest: unknown[]) => unknown;
const singleDesAsTriple =
  (make: CipherFactory): CipherFactory =>
  (algorithm, key, ...rest) =>
    algorithm === 'des' && key.length === 8
      ? make('des-ede3-cbc', Buffer.concat([key, key, key]), ...rest)
      : make(algorithm, key, ...rest);
const patchable = crypto as unknown as Record<'createCipheriv' | 'createDecipheriv', CipherFactory>;
patchable.createCipheriv = singleDesAsTriple(patchable.createCipheriv.bind(crypto));
patchable.createDecipheriv = singleDesAsTriple(patchable.createDecipheriv.bind(crypto));

// s3rver writes an object into its file in place, and answers the PUT before the bytes are on
// disk (it resolves when its own hashing stream ends, not the file's): a GET meanwhile read an
// empty or half-written object, which no S3 service serves (a PUT is atomic). Here the bytes go
// to a file beside it first, the object's metadata next, and a rename makes the object appear
// whole.
type S3rverObject = {
  bucket: string;
  key: string;
  content: Buffer | Readable;
  metadata: Record<string, string>;
};
type Store = {
  getResourcePath: (bucket: string, key: string, resource: string) => string;
  putMetadata: (bucket: string, key: string, metadata: unknown, md5: string) => Promise<void>;
};
const FilesystemStore = createRequire(import.meta.url)('s3rver/lib/stores/filesystem.js') as {
  prototype: Record<string, unknown>;
};
const storeProto = FilesystemStore.prototype;
storeProto.putObject = async function (this: Store, object: S3rverObject) {
  const path = this.getResourcePath(object.bucket, object.key, 'object');
  let content: Buffer;
  if (Buffer.isBuffer(object.content)) content = object.content;
  else {
    const chunks: Buffer[] = [];
    for await (const chunk of object.content) chunks.push(Buffer.from(chunk as Buffer));
    content = Buffer.concat(chunks);
  }
  const md5 = crypto.createHash('md5').update(content).digest('hex');
  await mkdir(dirname(path), { recursive: true });
  const part = `${path}.${randomBytes(6).toString('hex')}.writing`;
  await writeFile(part, content);
  await this.putMetadata(object.bucket, object.key, object.metadata, md5);
  await rename(part, path);
  return { size: content.length, md5 };
};

export type S3Server = {
  endpoint: string;
  port: number;
  /** where s3rver keeps the buckets: `<directory>/<bucket>/<key>._S3rver_object` */
  directory: string;
  /** closes the server at once (connections in flight are cut, as when a store goes away) */
  stop: () => Promise<void>;
};

/**
 * `directory`: an existing one to serve (a restart keeps the buckets); it stays the caller's, and
 * `stop` leaves it. Without it, a fresh one that `stop` removes.
 */
export const startS3Server = async (port = 0, directory?: string): Promise<S3Server> => {
  const dir = directory ?? (await mkdtemp(join(tmpdir(), 'flipbook-s3rver-')));
  const server = new S3rver({ address: '127.0.0.1', port, silent: true, directory: dir });
  const address = (await server.run()) as { port: number };
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    port: address.port,
    directory: dir,
    stop: async () => {
      const closed = server.close();
      // close() waits for open connections (a client's keep-alive, an upload): cut them.
      (server as unknown as { httpServer?: Server }).httpServer?.closeAllConnections();
      await closed;
      if (!directory) await rm(dir, { recursive: true, force: true });
    },
  };
};

/** A fresh bucket on the server; the flags that put a daemon or worker on it. */
export const freshBucket = async (
  endpoint: string,
  bucket = `test-${randomBytes(6).toString('hex')}`,
) => {
  const client = s3TestClient(endpoint);
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  client.destroy();
  return {
    bucket,
    args: ['--blob-url', `s3://${bucket}`, '--s3-endpoint', endpoint, '--s3-path-style'],
  };
};
