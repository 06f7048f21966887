// The blob store's operations, written once over the object-store primitive (./objectStore.ts):
// the same keys, the same steps and the same atomicity on a directory and on a bucket.
//   tmp/<host>.<pid>.<uuid>.part          uploads on their way in
//   originals/ab/<sha256>.pdf             originals, by content
//   pages/<version>/<pos>/<file>          page files; pages/<version>/document.json
// A render writes into this process's scratch folder and publishes each page as it finishes, one
// object at a time, each whole or absent. Renders of one original are the same bytes, so a late
// publish from a worker that lost its lease rewrites a page with itself; what it leaves after a
// deletion is found by the sweep (`flipbook blobs gc`).
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { finished, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BlobStoreUnavailable } from '../domain/errors.ts';
import {
  type BlobStore,
  counted,
  isStoreKey,
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
  TEMPORARY,
  type Temporary,
  temporaryName,
} from './listing.ts';
import { localCopies } from './localCopies.ts';
import type { ObjectStore } from './objectStore.ts';
import { scratchFailure } from './scratch.ts';

const MARK = 'flipbook-store.json';
const IMAGES = ['max.jpg', 'mid.jpg', 'min.jpg'] as const;
/** files copied in (`flipbook blobs copy`) up to this size are held whole and put in one request */
const WHOLE_BYTES = 8 * 1024 * 1024;

export const blobStoreOn = (objects: ObjectStore): BlobStore => {
  const { scratch } = objects;
  /**
   * A folder in this process's scratch folder (made when the store opened). Made again if someone
   * removed the scratch folder, but only while the store is there: a directory store keeps its
   * scratch under its root, and a root that is gone (a volume unmounted) is an unavailable store,
   * never a new one made on whatever disk is left beneath.
   */
  const folderIn = async (name: string) => {
    const folder = join(scratch, name);
    try {
      await mkdir(folder);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return;
      if (code !== 'ENOENT') throw error;
    }
    await objects.check().catch((error: unknown) => {
      throw error instanceof BlobStoreUnavailable
        ? error
        : new BlobStoreUnavailable('scratch', error);
    });
    await mkdir(folder, { recursive: true });
  };
  /** upload key -> its local spool (a store with no local files) */
  const spools = new Map<string, string>();
  /** uploads committed and not yet discarded by their request */
  const committed = new Set<string>();
  const originals = localCopies(join(scratch, 'originals'), async (sha256, to) => {
    const blob = await objects.open(originalKey(sha256));
    if (!blob) throw new OriginalMissing();
    try {
      await pipeline(
        blob.size === 0 ? Readable.from([]) : await blob.read(0, blob.size - 1),
        createWriteStream(to, { flags: 'wx' }),
      ).catch((error: unknown) => {
        // A local disk's errno is the local disk's; the rest is the store going away mid-read.
        if ((error as NodeJS.ErrnoException).code) throw error;
        throw new BlobStoreUnavailable('get', error);
      });
    } finally {
      await blob.close();
    }
  });
  const text = async (key: string) => (await objects.get(key))?.toString('utf8') ?? null;

  const store: BlobStore = {
    describe: objects.describe,
    kind: objects.kind,
    temporary: async () => {
      const name = temporaryName();
      const ref = `tmp/${name}`;
      const local = objects.localPath(ref);
      if (local) return { ref, path: local, stream: await objects.upload(ref) };
      // Spooled beside the upload for its inspection only: pdfinfo must seek in a file to count
      // pages and refuse an unreadable PDF with the spec's 422 before the 201.
      const spool = join(scratch, 'uploads', name);
      // The local disk's failure (no inode left for the folder) is the machine's, not the store's.
      await folderIn('uploads').catch((error: unknown) => {
        if (error instanceof BlobStoreUnavailable) throw error;
        throw scratchFailure(error, spool, "the upload's local copy could not be made");
      });
      spools.set(ref, spool);
      return { ref, path: spool, stream: await objects.upload(ref, spool) };
    },
    commitOriginal: async (ref, sha256) => {
      const target = originalKey(sha256);
      if (await objects.head(target)) {
        await objects.remove(ref).catch(() => undefined); // same bytes already stored
      } else {
        await objects.move(ref, target);
      }
      // The spooled copy serves this process's workers: no download before the first page.
      const spool = spools.get(ref);
      spools.delete(ref);
      committed.add(ref);
      if (spool) await originals.adopt(sha256, spool);
    },
    discard: async (ref) => {
      const spool = spools.get(ref);
      spools.delete(ref);
      if (spool) await rm(spool, { force: true });
      // Committed: the temporary is already gone, nothing to ask the store.
      else if (committed.delete(ref)) return;
      await objects.remove(ref);
    },
    localOriginal: async (sha256) => {
      const local = objects.localPath(originalKey(sha256));
      if (!local) return originals.get(sha256);
      const info = await stat(local).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') throw new OriginalMissing();
        throw error;
      });
      if (!info.isFile()) throw new OriginalMissing();
      return { path: local, release: async () => {} };
    },
    openOriginal: (sha256) => objects.open(originalKey(sha256)),
    removeOriginal: (sha256) => objects.remove(originalKey(sha256)),
    renderTarget: async (versionId) => {
      // Named after the version: an operator (or a test) can tell whose render it is.
      const dir = join(scratch, `render-${versionId}-${randomUUID().slice(0, 8)}`);
      const gone = () => rm(dir, { recursive: true, force: true });
      /** every key this attempt published, for `verify` */
      const published = new Set<string>();
      return {
        dir,
        activate: () => folderIn(basename(dir)),
        publishPage: async (position) => {
          const folder = join(dir, String(position));
          const rendered = new Set(await readdir(folder));
          await Promise.all(
            IMAGES.filter((file) => rendered.has(file)).map(async (file) => {
              const key = pageKey(versionId, position, file);
              await objects.putFile(key, join(folder, file));
              published.add(key);
            }),
          );
          await rm(folder, { recursive: true, force: true }); // published
        },
        adopt: (position, files) => {
          for (const file of files) published.add(pageKey(versionId, position, file));
        },
        writeFile: async (relative, content) => {
          const key = `${versionKey(versionId)}/${relative}`;
          await objects.put(key, content);
          published.add(key);
        },
        verify: async () => {
          const present = new Set<string>();
          for await (const object of objects.list(`${versionKey(versionId)}/`)) {
            present.add(object.key);
          }
          const vanished = [...published].filter((key) => !present.has(key));
          if (vanished.length > 0) {
            throw new BlobStoreUnavailable(
              'verify',
              new Error(`${vanished.length} of the render's files vanished, ${vanished[0]} first`),
            );
          }
        },
        finish: gone,
        abandon: gone,
        release: gone,
      };
    },
    openPageFile: (versionId, position, file) => objects.open(pageKey(versionId, position, file)),
    readPageFile: (versionId, position, file) => text(pageKey(versionId, position, file)),
    readPageBytes: (versionId, position, file) => objects.get(pageKey(versionId, position, file)),
    writePageFile: (versionId, position, file, content) =>
      objects.put(pageKey(versionId, position, file), content),
    readDocument: (versionId, file = 'document.json') => text(`${versionKey(versionId)}/${file}`),
    readComparison: (versionId) => text(`${versionKey(versionId)}/compare.json`),
    writeComparison: (versionId, content) =>
      objects.put(`${versionKey(versionId)}/compare.json`, content),
    removePageFile: (versionId, position, file) =>
      objects.remove(pageKey(versionId, position, file)),
    removePages: async (versionId) => {
      await objects.removeAll(`${versionKey(versionId)}/`);
    },
    listTemporaries: async () => {
      const found: Temporary[] = [];
      for await (const object of objects.list('tmp/')) {
        const name = object.key.slice('tmp/'.length);
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
      for await (const object of objects.list('originals/')) {
        const [, folder, name = ''] = object.key.split('/');
        const sha256 = ORIGINAL.exec(name)?.[1];
        if (sha256?.startsWith(folder ?? '-')) {
          found.push({ sha256, ref: object.key, size: object.size, mtimeMs: object.mtimeMs });
        }
      }
      return found;
    },
    listPageFolders: async () =>
      (await objects.folders('pages/'))
        .filter((versionId) => UUID.test(versionId))
        .map((versionId) => ({ versionId, ref: `${versionKey(versionId)}/` })),
    // A listed item's ref is a key, or a folder's prefix (ending in `/`).
    removeListed: async (ref) => {
      if (ref.endsWith('/')) return objects.removeAll(ref);
      const size = (await objects.head(ref))?.size ?? 0;
      await objects.remove(ref);
      return size;
    },
    sizeOfListed: async (ref) => {
      if (!ref.endsWith('/')) return (await objects.head(ref))?.size ?? 0;
      let bytes = 0;
      for await (const object of objects.list(ref)) bytes += object.size;
      return bytes;
    },
    entries: async function* () {
      for (const top of ['originals/', 'pages/']) {
        for await (const object of objects.list(top)) {
          if (isStoreKey(object.key)) yield { key: object.key, size: object.size };
        }
      }
    },
    readKey: async (key) => {
      if (!isStoreKey(key)) throw new Error(`not a blob key: ${key}`);
      const blob = await objects.open(key);
      if (!blob) throw new BlobStoreUnavailable('get', new Error('no such object'));
      if (blob.size === 0) {
        await blob.close(); // an empty page text: nothing to read
        return Readable.from([]);
      }
      const body = await blob.read(0, blob.size - 1).catch(async (error: unknown) => {
        await blob.close();
        throw error;
      });
      // Closed when the bytes are read, fail or are let go: a directory's stream is opened
      // with autoClose off, and so never says 'close' on its own after its end (the handle was
      // left to the garbage collector, which warns).
      finished(body, () => void blob.close());
      return body;
    },
    writeKey: async (key, body, size) => {
      if (!isStoreKey(key)) throw new Error(`not a blob key: ${key}`);
      if (size <= WHOLE_BYTES) {
        const chunks: Buffer[] = [];
        for await (const chunk of body) chunks.push(chunk as Buffer);
        return objects.put(key, Buffer.concat(chunks));
      }
      // Through a temporary, moved into place once whole: a copy cut short shows nothing.
      const ref = `tmp/${temporaryName()}`;
      try {
        await pipeline(body, await objects.upload(ref));
        await objects.move(ref, key);
      } catch (error) {
        await objects.remove(ref).catch(() => undefined);
        throw error;
      }
    },
    hasKey: async (key) => (await objects.head(key))?.size ?? null,
    readMark: () => text(MARK),
    writeMark: (content) => objects.put(MARK, content),
    check: () => objects.check(),
    close: () => objects.close(),
  };
  return counted(store);
};
