// The blob store's contract, run against both implementations: a directory, and a bucket on
// s3rver under a prefix. Then what only the bucket can do: lose its server. Every operation must
// then fail as BlobStoreUnavailable (a 503 for a request, a deferred render for a worker), within
// the client's timeouts, and an upload cut short must leave no object and no spool behind.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import {
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rename,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from 'vitest';
import {
  type BlobStore,
  type OpenedBlob,
  originalKey,
  type PageFile,
  pageKey,
} from '../../src/blobs/blobStore.ts';
import { copyBlobs } from '../../src/blobs/copy.ts';
import { thisOwner } from '../../src/blobs/listing.ts';
import { openDirStore, openS3Store } from '../../src/blobs/openBlobStore.ts';

import { BlobStoreUnavailable } from '../../src/domain/errors.ts';
import { type BlobPlace, storedKeys } from '../support/blobPlace.ts';
import { freshBucket, S3_ENV, startS3Server } from '../support/s3Server.ts';

// The bucket store's client reads its credentials as the AWS SDK does: from the environment.
Object.assign(process.env, S3_ENV);

const MiB = 1024 * 1024;
/** past the bucket store's 8 MiB part: the upload goes multipart, the copy streams */
const LARGE = 9 * MiB + 321;
const IMAGES = ['max.jpg', 'mid.jpg', 'min.jpg'] as const;

// Temporary directories and open stores, all gone at the end of the file.
const madeDirs: string[] = [];
const openStores: BlobStore[] = [];
afterAll(async () => {
  await Promise.all(openStores.map((store) => store.close()));
  await Promise.all(madeDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** This process's open descriptors on files whose path holds `part` (Linux's /proc). */
const descriptorsOn = async (part: string) => {
  const links = await Promise.all(
    (await readdir('/proc/self/fd')).map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')),
  );
  return links.filter((link) => link.includes(part));
};

const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'flipbook-blobs-'));
  madeDirs.push(dir);
  return dir;
};

const kept = (store: BlobStore) => {
  openStores.push(store);
  return store;
};

type Kind = 'dir' | 's3';
/** A store on a fresh place; `again` opens another on the same place (another process). */
type Opened = { store: BlobStore; again: () => Promise<BlobStore>; place: BlobPlace };

const openFresh = async (kind: Kind, prefix = '', endpoint = inject('s3Endpoint')) => {
  let place: BlobPlace;
  let open: () => Promise<BlobStore>;
  if (kind === 'dir') {
    const dir = await tempDir();
    place = { kind, dir };
    open = () => openDirStore(dir);
  } else {
    const { bucket } = await freshBucket(endpoint);
    place = { kind, bucket, prefix: prefix ? `${prefix}/` : '', endpoint };
    const url = prefix ? `s3://${bucket}/${prefix}` : `s3://${bucket}`;
    open = async () => openS3Store({ url, endpoint, pathStyle: true, scratchDir: await tempDir() });
  }
  const again = async () => kept(await open());
  return { store: await again(), again, place } satisfies Opened;
};

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

const bytesOf = async (stream: Readable) => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
};

const readRange = async (blob: OpenedBlob, start: number, end: number) =>
  bytesOf(await blob.read(start, end));

/** the whole of an opened file, or null; closed either way */
const contentOf = async (opening: Promise<OpenedBlob | null>) => {
  const blob = await opening;
  if (!blob) return null;
  try {
    return await readRange(blob, 0, blob.size - 1);
  } finally {
    await blob.close();
  }
};

/** bytes as a client's body arrives: in pieces */
const inPieces = (bytes: Buffer, size = 64 * 1024) => {
  const pieces: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) pieces.push(bytes.subarray(at, at + size));
  return Readable.from(pieces);
};

const upload = async (store: BlobStore, bytes: Buffer) => {
  const incoming = await store.temporary();
  await pipeline(inPieces(bytes), incoming.stream);
  return incoming;
};

const storeOriginal = async (store: BlobStore, bytes: Buffer) => {
  const sha = sha256(bytes);
  await store.commitOriginal((await upload(store, bytes)).ref, sha);
  return sha;
};

/** What a render leaves visible: every page file and document.json, by key under the version. */
type Rendered = Map<string, Buffer>;

/** A processing attempt as the worker runs it: activate, pages published one by one, text. */
const render = async (store: BlobStore, versionId: string, pages: number, attempt = 1) => {
  const target = await store.renderTarget(versionId, attempt);
  await target.activate();
  const files: Rendered = new Map();
  for (let position = 1; position <= pages; position++) {
    const folder = join(target.dir, String(position));
    await mkdir(folder, { recursive: true });
    for (const [at, file] of IMAGES.entries()) {
      const bytes = randomBytes(3000 - at * 1000 + position);
      await writeFile(join(folder, file), bytes);
      files.set(`${position}/${file}`, bytes);
    }
    await target.publishPage(position);
    const text = `attempt ${attempt}, page ${position}`;
    await target.writeFile(`${position}/text.txt`, text);
    files.set(`${position}/text.txt`, Buffer.from(text));
  }
  const document = JSON.stringify({ title: `attempt ${attempt}`, pages });
  await target.writeFile('document.json', document);
  files.set('document.json', Buffer.from(document));
  return { target, files };
};

const totalBytes = (files: Rendered) => [...files.values()].reduce((n, b) => n + b.length, 0);

/** the version's files as the store serves them, by the same keys as `Rendered` */
const served = async (store: BlobStore, versionId: string, files: Rendered) => {
  const found: Rendered = new Map();
  for (const key of files.keys()) {
    const [position, file] = key.split('/');
    const bytes =
      key === 'document.json'
        ? await store.readDocument(versionId).then((text) => text && Buffer.from(text))
        : await contentOf(store.openPageFile(versionId, Number(position), file as PageFile));
    if (bytes) found.set(key, bytes);
  }
  return found;
};

describe.each<Kind>(['dir', 's3'])('the %s blob store', (kind) => {
  let opened: Opened;
  let store: BlobStore;

  beforeAll(async () => {
    // The bucket under a prefix: nothing may assume the store has the bucket to itself.
    opened = await openFresh(kind, 'some/prefix');
    store = opened.store;
  });

  it('commits an upload under its checksum, and stores a second identical upload once', async () => {
    const bytes = randomBytes(LARGE);
    const sha = sha256(bytes);
    const before = (await store.listOriginals()).length;

    const first = await upload(store, bytes);
    // While it is inspected, the upload is a local file of the same bytes (pdfinfo reads it).
    expect((await readFile(first.path)).equals(bytes)).toBe(true);
    expect(await store.listTemporaries()).toEqual([
      expect.objectContaining({ ref: first.ref, size: bytes.length, owner: thisOwner() }),
    ]);
    await store.commitOriginal(first.ref, sha);
    expect(existsSync(first.path)).toBe(false);
    expect(await store.listTemporaries()).toEqual([]);

    const second = await upload(store, bytes);
    await store.commitOriginal(second.ref, sha);
    expect(existsSync(second.path)).toBe(false);
    expect(await store.listTemporaries()).toEqual([]);
    const originals = await store.listOriginals();
    expect(originals).toHaveLength(before + 1);
    expect(originals.filter((o) => o.sha256 === sha)).toEqual([
      expect.objectContaining({ sha256: sha, size: bytes.length }),
    ]);
  });

  it('opens an original with its validators and reads exactly the range asked for', async () => {
    const bytes = randomBytes(200_000);
    const sha = await storeOriginal(store, bytes);
    const blob = await store.openOriginal(sha);
    if (!blob) throw new Error('the original is not there');
    try {
      expect(blob.size).toBe(bytes.length);
      expect(blob.etag).toMatch(/\S/);
      expect(blob.lastModified).toBeInstanceOf(Date);
      expect(Number.isNaN(blob.lastModified.getTime())).toBe(false);
      expect((await readRange(blob, 0, bytes.length - 1)).equals(bytes)).toBe(true);
      expect((await readRange(blob, 70_000, 70_999)).equals(bytes.subarray(70_000, 71_000))).toBe(
        true,
      );
      expect(await readRange(blob, bytes.length - 1, bytes.length - 1)).toEqual(bytes.subarray(-1));
    } finally {
      await blob.close();
    }
    expect(await store.openOriginal(sha256(randomBytes(8)))).toBeNull();
  });

  it('leaves nothing of a discarded upload', async () => {
    const bytes = randomBytes(300_000);
    const incoming = await upload(store, bytes);
    expect(existsSync(incoming.path)).toBe(true);
    await store.discard(incoming.ref);
    expect(existsSync(incoming.path)).toBe(false);
    expect(await store.listTemporaries()).toEqual([]);
    expect(await store.openOriginal(sha256(bytes))).toBeNull();
    expect((await store.listOriginals()).map((o) => o.sha256)).not.toContain(sha256(bytes));
  });

  it('lends an original as a local file, to two users at once, in this and another process', async () => {
    const bytes = randomBytes(500_000);
    const sha = await storeOriginal(store, bytes);
    // In another process nothing is at hand yet: the bucket store downloads it, once for both.
    const other = await opened.again();
    for (const lender of [store, other]) {
      const [a, b] = await Promise.all([lender.localOriginal(sha), lender.localOriginal(sha)]);
      expect(b.path).toBe(a.path);
      expect((await readFile(a.path)).equals(bytes)).toBe(true);
      expect((await readFile(b.path)).equals(bytes)).toBe(true);
      await Promise.all([a.release(), b.release()]);
      await a.release(); // a second release is harmless
    }
    const copy = await other.localOriginal(sha);
    await copy.release();
    await other.close();
    // The bucket store's copies are its own, gone with it; the directory's is the original.
    expect(existsSync(copy.path)).toBe(kind === 'dir');
  });

  it('publishes a render page by page, its text and document, and a page file made later', async () => {
    const versionId = randomUUID();
    const { target, files } = await render(store, versionId, 2);
    expect(await served(store, versionId, files)).toEqual(files);
    expect(await store.readPageFile(versionId, 2, 'text.txt')).toBe('attempt 1, page 2');
    expect(JSON.parse((await store.readDocument(versionId)) ?? '{}')).toEqual({
      title: 'attempt 1',
      pages: 2,
    });
    const page = await store.openPageFile(versionId, 1, 'mid.jpg');
    expect(page?.size).toBe(files.get('1/mid.jpg')?.length);
    expect(page?.etag).toMatch(/\S/);
    expect(page?.lastModified).toBeInstanceOf(Date);
    await page?.close();

    await target.verify(); // everything it published is there
    await target.finish();
    await target.release();
    expect(await served(store, versionId, files)).toEqual(files);
    // The render was local scratch: published, then gone.
    expect(existsSync(target.dir)).toBe(false);

    const words = JSON.stringify([{ word: 'flipbook', box: [1, 2, 3, 4] }]);
    expect(await store.readPageFile(versionId, 1, 'words.json')).toBeNull();
    await store.writePageFile(versionId, 1, 'words.json', words);
    expect(await store.readPageFile(versionId, 1, 'words.json')).toBe(words);
  });

  it("tells a render its published files vanished (a version's folder removed by hand)", async () => {
    const versionId = randomUUID();
    const { target } = await render(store, versionId, 2);
    await target.verify();
    await store.removeListed(`pages/${versionId}/`);
    await expect(target.verify()).rejects.toBeInstanceOf(BlobStoreUnavailable);
    await target.release();
  });

  it('answers null for a page file or document that is not there', async () => {
    const versionId = randomUUID();
    await render(store, versionId, 1);
    expect(await store.openPageFile(versionId, 2, 'mid.jpg')).toBeNull();
    expect(await store.readPageFile(versionId, 2, 'text.txt')).toBeNull();
    expect(await store.readPageFile(versionId, 1, 'words.json')).toBeNull();
    const unknown = randomUUID();
    expect(await store.openPageFile(unknown, 1, 'max.jpg')).toBeNull();
    expect(await store.readPageFile(unknown, 1, 'text.txt')).toBeNull();
    expect(await store.readDocument(unknown)).toBeNull();
  });

  it("shows a re-render's pages once it finishes; an abandoned attempt touches no other's", async () => {
    const versionId = randomUUID();
    const first = await render(store, versionId, 2, 1);
    await first.target.finish();
    await first.target.release();

    // A worker that lost its lease stops before activating: the visible pages are untouched.
    const stopped = await store.renderTarget(versionId, 2);
    await mkdir(join(stopped.dir, '1'), { recursive: true });
    await writeFile(join(stopped.dir, '1', 'max.jpg'), randomBytes(10));
    await stopped.abandon();
    await stopped.release();
    expect(await served(store, versionId, first.files)).toEqual(first.files);

    const second = await render(store, versionId, 2, 3);
    await second.target.finish();
    await second.target.release();
    expect(await served(store, versionId, second.files)).toEqual(second.files);
    expect(await store.readPageFile(versionId, 1, 'text.txt')).toBe('attempt 3, page 1');
  });

  it("removes a version's pages and an original, listed until then", async () => {
    const versionId = randomUUID();
    await render(store, versionId, 2);
    const bytes = randomBytes(50_000);
    const sha = await storeOriginal(store, bytes);
    expect((await store.listPageFolders()).map((f) => f.versionId)).toContain(versionId);
    expect((await store.listOriginals()).map((o) => o.sha256)).toContain(sha);

    await store.removePages(versionId);
    await store.removeOriginal(sha);
    expect((await store.listPageFolders()).map((f) => f.versionId)).not.toContain(versionId);
    expect((await store.listOriginals()).map((o) => o.sha256)).not.toContain(sha);
    expect(await store.openPageFile(versionId, 1, 'max.jpg')).toBeNull();
    expect(await store.readPageFile(versionId, 1, 'text.txt')).toBeNull();
    expect(await store.readDocument(versionId)).toBeNull();
    expect(await store.openOriginal(sha)).toBeNull();
    // Removing what is gone is no failure (two sweeps, a retried deletion).
    await store.removePages(versionId);
    await store.removeOriginal(sha);
  });

  it('sizes and removes a listed page folder and original by their ref', async () => {
    const versionId = randomUUID();
    const { files } = await render(store, versionId, 2);
    const words = '[]';
    await store.writePageFile(versionId, 2, 'words.json', words);
    const pageBytes = totalBytes(files) + words.length;
    const bytes = randomBytes(40_000);
    const sha = await storeOriginal(store, bytes);

    const folder = (await store.listPageFolders()).find((f) => f.versionId === versionId);
    const original = (await store.listOriginals()).find((o) => o.sha256 === sha);
    if (!folder || !original) throw new Error('the version or the original is not listed');
    expect(original.size).toBe(bytes.length);
    expect(original.mtimeMs).toBeGreaterThan(Date.now() - 60_000);

    expect(await store.sizeOfListed(folder.ref)).toBe(pageBytes);
    expect(await store.sizeOfListed(original.ref)).toBe(bytes.length);
    expect(await store.removeListed(folder.ref)).toBe(pageBytes);
    expect(await store.removeListed(original.ref)).toBe(bytes.length);

    expect(await store.openPageFile(versionId, 1, 'min.jpg')).toBeNull();
    expect(await store.openOriginal(sha)).toBeNull();
    expect((await store.listPageFolders()).map((f) => f.versionId)).not.toContain(versionId);
    // Another sweep got there first: nothing more goes.
    expect(await store.removeListed(folder.ref)).toBe(0);
    expect(await store.removeListed(original.ref)).toBe(0);
    expect(await store.sizeOfListed(original.ref)).toBe(0);
  });

  it('lists its files under store keys, and reads and writes them by key', async () => {
    const versionId = randomUUID();
    const { target, files } = await render(store, versionId, 1);
    await target.finish();
    await target.release();
    const bytes = randomBytes(30_000);
    const sha = await storeOriginal(store, bytes);

    const listed = new Map<string, number>();
    for await (const { key, size } of store.entries()) listed.set(key, size);
    const expected = new Map([...files].map(([key, b]) => [`pages/${versionId}/${key}`, b.length]));
    expected.set(originalKey(sha), bytes.length);
    for (const [key, size] of expected) expect([key, listed.get(key)]).toEqual([key, size]);
    expect([...listed.keys()].filter((key) => key.startsWith(`pages/${versionId}/`))).toHaveLength(
      files.size,
    );

    const imageKey = pageKey(versionId, 1, 'max.jpg');
    expect(await store.hasKey(imageKey)).toBe(files.get('1/max.jpg')?.length);
    expect(await store.hasKey(pageKey(versionId, 9, 'max.jpg'))).toBeNull();
    expect(
      (await bytesOf(await store.readKey(imageKey))).equals(
        files.get('1/max.jpg') ?? Buffer.alloc(0),
      ),
    ).toBe(true);
    expect((await bytesOf(await store.readKey(originalKey(sha)))).equals(bytes)).toBe(true);
    // Nothing left open once read, nor when the reader lets go early (a directory's files are
    // opened with autoClose off; a bucket's are no descriptors at all).
    (await store.readKey(imageKey)).destroy();
    await expect.poll(() => descriptorsOn(versionId)).toEqual([]);

    // Written by key, served by the pages' and originals' own operations.
    const copied = randomUUID();
    const image = randomBytes(5000);
    const document = '{"title":"copied"}';
    const original = randomBytes(20_000);
    await store.writeKey(pageKey(copied, 1, 'mid.jpg'), inPieces(image, 1000), image.length);
    await store.writeKey(
      `pages/${copied}/document.json`,
      Readable.from([Buffer.from(document)]),
      document.length,
    );
    await store.writeKey(originalKey(sha256(original)), inPieces(original), original.length);
    expect(await contentOf(store.openPageFile(copied, 1, 'mid.jpg'))).toEqual(image);
    expect(await store.readDocument(copied)).toBe(document);
    expect((await contentOf(store.openOriginal(sha256(original))))?.equals(original)).toBe(true);
    expect(await store.hasKey(pageKey(copied, 1, 'mid.jpg'))).toBe(image.length);
  });

  it('reads an empty file by key (a page without text), as `blobs copy` does', async () => {
    const versionId = randomUUID();
    await store.writePageFile(versionId, 1, 'text.txt', '');
    const key = pageKey(versionId, 1, 'text.txt');
    expect(await store.hasKey(key)).toBe(0);
    expect((await bytesOf(await store.readKey(key))).length).toBe(0);
  });

  it('refuses keys it does not make', async () => {
    for (const key of [
      'tmp/x.part',
      '../outside.pdf',
      'pages/../../etc/passwd',
      'originals/x.pdf',
    ]) {
      await expect(store.writeKey(key, Readable.from(['x']), 1)).rejects.toThrow(/not a blob key/);
      await expect(store.readKey(key)).rejects.toThrow(/not a blob key/);
    }
  });

  it('answers its readiness check, and fails it when its place is gone', async () => {
    // By now the store holds many files: the bucket's check lists one key of them (a listing
    // cut short, which s3rver answers only with the cipher patch in s3Server.ts).
    await expect(store.check()).resolves.toBeUndefined();
    const gone =
      kind === 'dir'
        ? await openDirStore(await tempDir())
        : await openS3Store({
            url: `s3://no-such-bucket-${randomBytes(4).toString('hex')}`,
            endpoint: inject('s3Endpoint'),
            pathStyle: true,
            scratchDir: await tempDir(),
          });
    kept(gone);
    if (kind === 'dir') await rm(gone.describe, { recursive: true, force: true });
    await expect(gone.check()).rejects.toThrow();
  });
});

describe('a blob directory moved away (a volume unmounted)', () => {
  it('is unavailable for writes and renders, and never made again where it was', async () => {
    const root = join(await tempDir(), 'blobs');
    const store = kept(await openDirStore(root));
    await rename(root, `${root}.away`);
    const versionId = randomUUID();
    const writes = {
      writePageFile: () => store.writePageFile(versionId, 1, 'words.json', '[]'),
      renderTarget: async () => (await store.renderTarget(versionId, 1)).activate(),
      temporary: () => store.temporary(),
    };
    for (const [name, write] of Object.entries(writes)) {
      await expect(write(), name).rejects.toBeInstanceOf(BlobStoreUnavailable);
    }
    expect(existsSync(root), 'the root is not made again').toBe(false);
    await rename(`${root}.away`, root);
    await store.writePageFile(versionId, 1, 'words.json', '[]');
    expect(await store.readPageFile(versionId, 1, 'words.json')).toBeTruthy();
  });
});

describe('a blob directory in the layout of attempt folders (before the object-store primitive)', () => {
  it('brings the shown attempt up on open, also after an open cut short; unshown attempts go', async () => {
    const dir = await tempDir();
    const version = (id: string) => join(dir, 'pages', id);
    const plant = async (path: string, content: string) => {
      await mkdir(join(path, '..'), { recursive: true });
      await writeFile(path, content);
    };
    // A version as a finished render left it, with a stray older attempt beside it.
    const whole = randomUUID();
    await plant(join(version(whole), 'attempt-2-aaaaaaaa', '1', 'max.jpg'), 'image 1');
    await plant(join(version(whole), 'attempt-2-aaaaaaaa', '2', 'text.txt'), 'text 2');
    await plant(join(version(whole), 'attempt-2-aaaaaaaa', 'document.json'), '{"pages":2}');
    await plant(join(version(whole), 'attempt-1-bbbbbbbb', '1', 'max.jpg'), 'older');
    // pdftoppm's raw output of an interrupted render, never shown
    await plant(join(version(whole), 'attempt-2-aaaaaaaa', 'work', 'p-1.jpg'), 'raw');
    await symlink('attempt-2-aaaaaaaa', join(version(whole), 'current'));
    // One whose move was cut short: page 1 already up, page 2 still in its attempt.
    const half = randomUUID();
    await plant(join(version(half), '1', 'text.txt'), 'half 1');
    await plant(join(version(half), 'attempt-1-cccccccc', '2', 'text.txt'), 'half 2');
    await symlink('attempt-1-cccccccc', join(version(half), 'current'));
    // One whose render never showed anything: no link.
    const never = randomUUID();
    await plant(join(version(never), 'attempt-1-dddddddd', '1', 'max.jpg'), 'never');

    const store = kept(await openDirStore(dir));
    expect(await store.readPageFile(whole, 2, 'text.txt')).toBe('text 2');
    expect(await contentOf(store.openPageFile(whole, 1, 'max.jpg'))).toEqual(
      Buffer.from('image 1'),
    );
    expect(await store.readDocument(whole)).toBe('{"pages":2}');
    expect(await store.readPageFile(half, 1, 'text.txt')).toBe('half 1');
    expect(await store.readPageFile(half, 2, 'text.txt')).toBe('half 2');
    expect(await store.openPageFile(never, 1, 'max.jpg')).toBeNull();
    for (const id of [whole, half, never]) {
      expect((await readdir(version(id))).filter((n) => !/^\d+$|^document\.json$/.test(n))).toEqual(
        [],
      );
    }
    expect((await storedKeys({ kind: 'dir', dir }, `pages/${whole}`)).sort()).toEqual([
      '1/max.jpg',
      '2/text.txt',
      'document.json',
    ]);
  });
});

describe('the bucket store under a prefix', () => {
  it('keeps every object under its prefix: a store on the whole bucket finds none', async () => {
    const { store, place } = await openFresh('s3', 'some/prefix');
    const sha = await storeOriginal(store, randomBytes(1000));
    if (place.kind !== 's3') throw new Error('not a bucket');
    expect(await storedKeys(place, 'originals')).toContain(`${sha.slice(0, 2)}/${sha}.pdf`);
    const whole = kept(
      await openS3Store({
        url: `s3://${place.bucket}`,
        endpoint: place.endpoint,
        pathStyle: true,
        scratchDir: await tempDir(),
      }),
    );
    expect(await whole.listOriginals()).toEqual([]);
    expect(await whole.listPageFolders()).toEqual([]);
    expect(await storedKeys({ ...place, prefix: '' }, 'originals')).toEqual([]);
  });
});

describe('copying between a directory and a bucket', () => {
  it('moves every file under its key both ways, and a second run skips them all', async () => {
    const source = (await openFresh('dir')).store;
    const versionId = randomUUID();
    const { target, files } = await render(source, versionId, 2);
    await target.finish();
    await target.release();
    const words = '[{"word":"copy"}]';
    await source.writePageFile(versionId, 2, 'words.json', words);
    files.set('2/words.json', Buffer.from(words));
    const original = randomBytes(LARGE); // over a part: the bucket takes it as a multipart upload
    const sha = await storeOriginal(source, original);
    const count = files.size + 1;
    const bytes = totalBytes(files) + original.length;

    const bucket = (await openFresh('s3', 'copied')).store;
    const back = (await openFresh('dir')).store;
    const failures: unknown[] = [];
    const onError = (_key: string, error: unknown) => failures.push(error);

    expect(await copyBlobs(source, bucket, { onError })).toEqual({
      copied: count,
      skipped: 0,
      bytes,
      failed: 0,
    });
    expect(await copyBlobs(bucket, back, { onError })).toEqual({
      copied: count,
      skipped: 0,
      bytes,
      failed: 0,
    });
    expect(failures).toEqual([]);

    const listing = async (store: BlobStore) => {
      const found: string[] = [];
      for await (const { key, size } of store.entries()) found.push(`${key} ${size}`);
      return found.sort();
    };
    expect(await listing(bucket)).toEqual(await listing(source));
    expect(await listing(back)).toEqual(await listing(source));

    for (const store of [bucket, back]) {
      expect(await served(store, versionId, files)).toEqual(files);
      expect(await store.readPageFile(versionId, 2, 'words.json')).toBe(words);
      expect(sha256((await contentOf(store.openOriginal(sha))) ?? Buffer.alloc(0))).toBe(sha);
    }

    const again = { copied: 0, skipped: count, bytes: 0, failed: 0 };
    expect(await copyBlobs(source, bucket, { onError })).toEqual(again);
    expect(await copyBlobs(bucket, back, { onError })).toEqual(again);
    expect(failures).toEqual([]);
  });
});

describe('the bucket store when an upload or the server fails', () => {
  /** a server of the test's own, to stop; stopped at the end if the test did not get that far */
  const ownServer = async () => {
    const server = await startS3Server();
    let stopped: Promise<void> | null = null;
    const stop = () => {
      stopped ??= server.stop();
      return stopped;
    };
    onTestFinished(() => stop());
    return { endpoint: server.endpoint, stop };
  };
  // Nothing may fail unseen: a rejection nobody awaits would crash a daemon.
  const unhandled: unknown[] = [];
  const note = (reason: unknown) => unhandled.push(reason);
  beforeAll(() => void process.on('unhandledRejection', note));
  afterAll(() => {
    process.off('unhandledRejection', note);
    expect(unhandled).toEqual([]);
  });

  it('fails every operation as BlobStoreUnavailable within the client timeouts', async () => {
    const server = await ownServer();
    const { store, again } = await openFresh('s3', 'gone', server.endpoint);
    const bytes = randomBytes(20_000);
    const sha = await storeOriginal(store, bytes);
    const pending = await upload(store, randomBytes(1000));
    const versionId = randomUUID();
    await render(store, versionId, 1);
    const target = await store.renderTarget(versionId, 2);
    await target.activate();
    await mkdir(join(target.dir, '1'), { recursive: true });
    for (const file of IMAGES) await writeFile(join(target.dir, '1', file), randomBytes(100));
    const opened = await store.openOriginal(sha);
    if (!opened) throw new Error('the original is not there');
    // Another process, with no local copy of the original to fall back on.
    const other = await again();

    await server.stop();
    const started = performance.now();
    const operations: Record<string, () => Promise<unknown>> = {
      openOriginal: () => store.openOriginal(sha),
      'read of an opened original': () => opened.read(0, 99),
      localOriginal: () => other.localOriginal(sha),
      commitOriginal: () => store.commitOriginal(pending.ref, sha256(randomBytes(8))),
      upload: () => upload(store, randomBytes(1000)),
      publishPage: () => target.publishPage(1),
      writeFile: () => target.writeFile('document.json', '{}'),
      openPageFile: () => store.openPageFile(versionId, 1, 'mid.jpg'),
      readPageFile: () => store.readPageFile(versionId, 1, 'text.txt'),
      writePageFile: () => store.writePageFile(versionId, 1, 'words.json', '[]'),
      readDocument: () => store.readDocument(versionId),
      removePages: () => store.removePages(versionId),
      removeOriginal: () => store.removeOriginal(sha),
      listTemporaries: () => store.listTemporaries(),
      listOriginals: () => store.listOriginals(),
      listPageFolders: () => store.listPageFolders(),
      removeListed: () => store.removeListed(`gone/${originalKey(sha)}`),
      sizeOfListed: () => store.sizeOfListed(`gone/pages/${versionId}/`),
      entries: async () => {
        for await (const _ of store.entries());
      },
      readKey: () => store.readKey(originalKey(sha)),
      writeKey: () => store.writeKey(originalKey(sha), Readable.from([bytes]), bytes.length),
      hasKey: () => store.hasKey(pageKey(versionId, 1, 'max.jpg')),
      check: () => store.check(),
    };
    const outcomes = await Promise.all(
      Object.entries(operations).map(async ([name, run]) => {
        const error = await run().then(
          () => 'resolved',
          (e: unknown) => e,
        );
        return [name, error instanceof BlobStoreUnavailable ? 'unavailable' : error] as const;
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    expect(Object.fromEntries(outcomes)).toEqual(
      Object.fromEntries(Object.keys(operations).map((name) => [name, 'unavailable'])),
    );
    expect(seconds).toBeLessThan(40);
  });

  it('leaves no object under tmp/, and no spool after discard, of an upload cut short', async () => {
    const { store, place } = await openFresh('s3');
    // Within the first part (one PUT at the end) and past it (a multipart upload under way).
    for (const size of [1 * MiB, 12 * MiB]) {
      const incoming = await store.temporary();
      const piece = randomBytes(256 * 1024);
      let sent = 0;
      const source = new Readable({
        read() {
          if (sent >= size) return void this.destroy(new Error('the client went away'));
          sent += piece.length;
          this.push(piece);
        },
      });
      await expect(pipeline(source, incoming.stream)).rejects.toThrow('the client went away');
      // Before the discard (which would delete it): no object, whole or cut, was completed.
      // A round trip later, whatever the aborted upload still had in flight has landed.
      await store.check();
      expect(await storedKeys(place, 'tmp')).toEqual([]);
      expect(await store.listTemporaries()).toEqual([]);
      expect(existsSync(incoming.path)).toBe(true); // the spool stays until discarded
      await store.discard(incoming.ref);
      expect(existsSync(incoming.path)).toBe(false);
    }
  });

  it('fails an upload under way as BlobStoreUnavailable when the server stops, not the process', async () => {
    const server = await ownServer();
    const { store } = await openFresh('s3', '', server.endpoint);
    const incoming = await store.temporary();
    const piece = randomBytes(256 * 1024);
    const total = 48 * MiB;
    let sent = 0;
    let stopping: Promise<void> | null = null;
    // Past the first part (its upload under way or done), the server stops; the body goes on.
    const source = new Readable({
      read() {
        const more = () => {
          if (sent >= total) return void this.push(null);
          sent += piece.length;
          this.push(piece);
        };
        if (sent < 10 * MiB) return more();
        stopping ??= server.stop();
        stopping.then(more, (error: unknown) => this.destroy(error as Error));
      },
    });
    const failure = await pipeline(source, incoming.stream).then(
      () => null,
      (error: unknown) => error,
    );
    await stopping;
    expect(failure).toBeInstanceOf(BlobStoreUnavailable);
    expect(sent).toBeLessThan(total); // failed while the body still came, not at its end
    expect(source.destroyed).toBe(true);
    // The spool goes even though the store cannot be told to forget the upload.
    await expect(store.discard(incoming.ref)).rejects.toBeInstanceOf(BlobStoreUnavailable);
    expect(existsSync(incoming.path)).toBe(false);
    expect(unhandled).toEqual([]);
  });
});
