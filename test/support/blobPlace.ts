// Where a daemon's blobs are, from its flags, and what is stored there: for tests that check
// that files appear and go, on either blob store.
import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { S3_ENV } from './s3Env.ts';

export type BlobPlace =
  | { kind: 'dir'; dir: string }
  | { kind: 's3'; bucket: string; prefix: string; endpoint: string };

const flag = (args: string[], name: string) => {
  const at = args.lastIndexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};

export const placeOf = (args: string[]): BlobPlace => {
  const url = flag(args, '--blob-url');
  if (url) {
    const [, bucket = '', prefix = ''] = /^s3:\/\/([^/]+)\/?(.*)$/.exec(url) ?? [];
    return {
      kind: 's3',
      bucket,
      prefix: prefix ? `${prefix.replace(/\/+$/, '')}/` : '',
      endpoint: flag(args, '--s3-endpoint') ?? '',
    };
  }
  const dir = flag(args, '--blob-dir') ?? join(flag(args, '--data-dir') ?? './data', 'blobs');
  return { kind: 'dir', dir };
};

export const s3TestClient = (endpoint: string) =>
  new S3Client({
    endpoint,
    forcePathStyle: true,
    region: S3_ENV.AWS_REGION,
    credentials: {
      accessKeyId: S3_ENV.AWS_ACCESS_KEY_ID,
      secretAccessKey: S3_ENV.AWS_SECRET_ACCESS_KEY,
    },
  });

/** Files (or objects) under `tmp`, `originals` or `pages[/<version>]`, as keys relative to it. */
export const storedKeys = async (place: BlobPlace, under: string): Promise<string[]> => {
  if (place.kind === 'dir') {
    const root = join(place.dir, under);
    const walk = async (dir: string): Promise<string[]> => {
      const found: string[] = [];
      for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) found.push(...(await walk(path)));
        else found.push(relative(root, path));
      }
      return found;
    };
    return (await walk(root)).sort();
  }
  const client = s3TestClient(place.endpoint);
  try {
    const keys: string[] = [];
    let token: string | undefined;
    const from = `${place.prefix}${under.replace(/\/+$/, '')}/`;
    do {
      const page = await client.send(
        new ListObjectsV2Command({ Bucket: place.bucket, Prefix: from, ContinuationToken: token }),
      );
      for (const object of page.Contents ?? []) keys.push((object.Key ?? '').slice(from.length));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return keys.sort();
  } finally {
    client.destroy();
  }
};

/**
 * Waits until every page of a version has its largest image: the background fill after `done`
 * (docs/processing.md, "The largest rendition"). Returns the version's keys then.
 */
export const waitForFill = async (
  place: BlobPlace,
  versionId: string,
  pages: number,
  timeoutMs = 60_000,
): Promise<string[]> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const keys = await storedKeys(place, `pages/${versionId}`);
    if (keys.filter((k) => /(?:^|\/)\d+\/max\.jpg$/.test(k)).length >= pages) return keys;
    if (Date.now() > deadline) throw new Error(`the fill of ${versionId} did not end`);
    await new Promise((r) => setTimeout(r, 50));
  }
};
