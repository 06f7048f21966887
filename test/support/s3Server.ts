// A real S3-protocol server for tests (s3rver: multipart uploads, ranges, copies, batch deletes),
// on a free loopback port with its own directory. The global setup starts one for the run; a
// test that takes the store away starts its own, and brings it back on the same port and
// directory (so the buckets and objects are still there).
import crypto, { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
export const freshBucket = async (endpoint: string) => {
  const bucket = `test-${randomBytes(6).toString('hex')}`;
  const client = s3TestClient(endpoint);
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  client.destroy();
  return {
    bucket,
    args: ['--blob-url', `s3://${bucket}`, '--s3-endpoint', endpoint, '--s3-path-style'],
  };
};
