// The blob store as a directory: the default, one machine (or a directory every daemon and worker
// shares). Files appear under their names only when complete (written beside, then renamed).
//   tmp/<host>.<pid>.<uuid>.part                 uploads on their way in
//   originals/ab/<sha256>.pdf                    originals, by content
//   pages/<version>/attempt-<n>-<rand>/<pos>/…   one directory per processing attempt
//   pages/<version>/current -> attempt-…         the attempt the page URLs show
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import {
  access,
  constants,
  lstat,
  mkdir,
  open,
  readdir,
  readFile,
  readlink,
  rename,
  rm,
  stat,
  symlink,
} from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { writeAtomically, writeFileAtomically } from '../atomicFile.ts';
import {
  type BlobStore,
  counted,
  isStoreKey,
  type OpenedBlob,
  OriginalMissing,
  originalKey,
  type PageFile,
  pageKey,
  versionKey,
} from './blobStore.ts';
import {
  listOriginals,
  listPageFolders,
  listTemporaries,
  sizeOf,
  temporaryName,
} from './listing.ts';

const MARK = 'flipbook-store.json';

export const openDirStore = async (dir: string): Promise<BlobStore> => {
  const root = resolve(dir);
  await mkdir(join(root, 'tmp'), { recursive: true });
  await mkdir(join(root, 'originals'), { recursive: true });
  await mkdir(join(root, 'pages'), { recursive: true });

  const originalPath = (sha256: string) => join(root, originalKey(sha256));
  const versionDir = (versionId: string) => join(root, versionKey(versionId));
  /** a page file of the attempt the version's `current` link points at */
  const pagePath = (versionId: string, position: number, file: PageFile) => {
    const [, version, , name] = pageKey(versionId, position, file).split('/');
    return join(root, 'pages', version as string, 'current', String(position), name as string);
  };
  const documentPath = (versionId: string) =>
    join(versionDir(versionId), 'current', 'document.json');
  /** a store key as a path here: page keys go through the version's `current` link */
  const keyPath = (key: string) => {
    if (!isStoreKey(key)) throw new Error(`not a blob key: ${key}`);
    const [top, version, ...rest] = key.split('/');
    return top === 'pages'
      ? join(root, 'pages', version as string, 'current', ...rest)
      : join(root, key);
  };

  const store: BlobStore = {
    describe: root,
    kind: 'dir',
    temporary: async () => {
      // Made again if someone removed it: one stray `rm -rf` must not fail every upload after.
      await mkdir(join(root, 'tmp'), { recursive: true });
      const path = join(root, 'tmp', temporaryName());
      return { ref: path, path, stream: createWriteStream(path, { flags: 'wx' }) };
    },
    commitOriginal: async (temporaryPath, sha256) => {
      const target = originalPath(sha256);
      const made = await mkdir(dirname(target), { recursive: true });
      const existing = await stat(target).catch(() => null);
      if (existing) {
        await rm(temporaryPath, { force: true }); // same bytes already stored
        return;
      }
      // The original is acknowledged data: its bytes reach the disk before its name does, and
      // the name itself is made durable, so a power cut cannot leave an empty or missing file
      // under an accepted checksum.
      await syncPath(temporaryPath);
      await rename(temporaryPath, target);
      await syncPath(dirname(target));
      if (made) await syncPath(join(root, 'originals')); // the new folder's own entry
    },
    discard: (path) => rm(path, { force: true }),
    localOriginal: async (sha256) => {
      const info = await stat(originalPath(sha256)).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') throw new OriginalMissing();
        throw error;
      });
      if (!info.isFile()) throw new OriginalMissing();
      return { path: originalPath(sha256), release: async () => {} };
    },
    openOriginal: (sha256) => openFile(originalPath(sha256)),
    removeOriginal: (sha256) => rm(originalPath(sha256), { force: true }),
    renderTarget: async (versionId, attempt) => {
      // Attempts never share a directory: a worker that lost its lease (or was killed, leaving
      // poppler running) cannot touch the new attempt's files. The version's `current` link
      // points at the attempt that holds the lease.
      const attemptDir = join(
        versionDir(versionId),
        `attempt-${attempt}-${randomUUID().slice(0, 8)}`,
      );
      return {
        dir: attemptDir,
        activate: async () => {
          const link = join(versionDir(versionId), 'current');
          const temporary = `${link}.${randomUUID().slice(0, 8)}`;
          await mkdir(attemptDir, { recursive: true });
          await symlink(basename(attemptDir), temporary);
          await rename(temporary, link); // rename over the old link: readers never see none
        },
        publishPage: async () => {}, // rendered in place, each file renamed in when whole
        writeFile: (path, content) => writeFileAtomically(join(attemptDir, path), content),
        finish: async () => {
          const dir = versionDir(versionId);
          for (const entry of await readdir(dir).catch(() => [])) {
            if (entry.startsWith('attempt-') && entry !== basename(attemptDir)) {
              await rm(join(dir, entry), { recursive: true, force: true });
            }
          }
        },
        abandon: () => rm(attemptDir, { recursive: true, force: true }),
        release: async () => {}, // its files are the visible ones
      };
    },
    openPageFile: (versionId, position, file) => openFile(pagePath(versionId, position, file)),
    readPageFile: (versionId, position, file) =>
      readFile(pagePath(versionId, position, file), 'utf8').catch(() => null),
    writePageFile: (versionId, position, file, content) =>
      writeFileAtomically(pagePath(versionId, position, file), content),
    readDocument: (versionId) => readFile(documentPath(versionId), 'utf8').catch(() => null),
    // A render may still be writing into it (it stops when told, a moment later): a file made
    // while rm walks the tree fails it with ENOTEMPTY, which a retry absorbs.
    removePages: (versionId) =>
      rm(versionDir(versionId), { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }),
    listTemporaries: () => listTemporaries(join(root, 'tmp')),
    listOriginals: () => listOriginals(join(root, 'originals')),
    listPageFolders: () => listPageFolders(join(root, 'pages')),
    removeListed: async (path) => {
      const bytes = await sizeOf(path);
      await rm(path, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
      return bytes;
    },
    sizeOfListed: (path) => sizeOf(path),
    entries: () => walkKeys(root),
    readKey: async (key) => createReadStream(keyPath(key)),
    writeKey: async (key, body) => {
      const path = keyPath(key);
      if (key.startsWith('pages/')) {
        // A copied-in version gets one attempt folder of its own, pointed at like a render's.
        const version = join(root, 'pages', key.split('/')[1] as string);
        if (!(await lstat(join(version, 'current')).catch(() => null))) {
          await mkdir(join(version, 'attempt-0-copied'), { recursive: true });
          await symlink('attempt-0-copied', join(version, 'current')).catch(() => {});
        }
      }
      await mkdir(dirname(path), { recursive: true });
      await writeAtomically(path, (to) => pipeline(body, createWriteStream(to, { flags: 'wx' })));
    },
    hasKey: async (key) => {
      const info = await stat(keyPath(key)).catch(() => null);
      return info?.isFile() ? info.size : null;
    },
    readMark: () => readFile(join(root, MARK), 'utf8').catch(() => null),
    writeMark: (content) => writeFileAtomically(join(root, MARK), content),
    check: () => access(root, constants.W_OK),
    close: async () => {},
  };
  return counted(store);
};

/** A file opened once: validators and bytes from one descriptor, whatever happens to the name. */
const openFile = async (path: string): Promise<OpenedBlob | null> => {
  const handle = await open(path, 'r').catch(() => null);
  if (!handle) return null;
  const info = await handle.stat().catch(() => null);
  if (!info?.isFile()) {
    await handle.close().catch(() => {});
    return null;
  }
  return {
    size: info.size,
    etag: `"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`,
    lastModified: info.mtime,
    // `end` bounds the read to the length announced; autoClose off: closed by `close`.
    read: async (start, end): Promise<Readable> =>
      handle.createReadStream({ start, end, autoClose: false }),
    close: () => handle.close().catch(() => {}),
  };
};

/** fsync on a file or a directory (a directory is opened read-only, as fsync(2) allows). */
const syncPath = async (path: string) => {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
};

/** The stored files under their keys: originals, and each version's current attempt's files. */
async function* walkKeys(root: string): AsyncIterable<{ key: string; size: number }> {
  for (const original of await listOriginals(join(root, 'originals'))) {
    yield { key: originalKey(original.sha256), size: original.size };
  }
  for (const folder of await listPageFolders(join(root, 'pages'))) {
    const current = await readlink(join(folder.ref, 'current')).catch(() => null);
    if (!current) continue; // never started, or its attempt was cut short: nothing visible
    const attempt = join(folder.ref, current);
    for (const path of await filesUnder(attempt)) {
      const key = `pages/${folder.versionId}/${relative(attempt, path).split('/').join('/')}`;
      if (!isStoreKey(key)) continue; // temporaries of a write in progress, anything foreign
      const info = await stat(path).catch(() => null);
      if (info?.isFile()) yield { key, size: info.size };
    }
  }
}

const filesUnder = async (dir: string): Promise<string[]> => {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await filesUnder(path)));
    else if (entry.isFile()) found.push(path);
  }
  return found;
};
