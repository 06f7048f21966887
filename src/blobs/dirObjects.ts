// The object-store primitive as a directory: a key is a path under the root. Objects appear under
// their names only when complete (written beside, then renamed: atomic on one file system), and a
// render's scratch folder is under the root too, so publishing a rendered page is a rename.
import { createWriteStream } from 'node:fs';
import {
  access,
  constants,
  copyFile,
  lstat,
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  rm,
} from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { writeAtomically, writeFileAtomically } from '../atomicFile.ts';
import { BlobStoreUnavailable } from '../domain/errors.ts';
import { flattenAttemptFolders } from './attemptFolders.ts';
import type { ObjectStore, OpenedBlob, StoredObject } from './objectStore.ts';
import { makeScratch } from './scratch.ts';

export const openDirObjects = async (dir: string): Promise<ObjectStore> => {
  const root = resolve(dir);
  for (const top of ['tmp', 'originals', 'pages'])
    await mkdir(join(root, top), { recursive: true });
  await flattenAttemptFolders(join(root, 'pages'));
  const scratch = await makeScratch(join(root, 'scratch'));

  /** a key as a path under the root; keys are ours, but a slip must not reach outside it */
  const pathOf = (key: string) => {
    if (key.split('/').some((part) => part === '' || part === '.' || part === '..')) {
      throw new Error(`not an object key: ${key}`);
    }
    return join(root, key);
  };
  const folderOf = (prefix: string) => pathOf(prefix.replace(/\/$/, ''));
  /**
   * Makes a key's folder (true when it made one), and its parents under the root if someone
   * removed them, but never the root itself: a store that is gone (a volume unmounted, the folder
   * moved away) is unavailable, not a new empty store to fill on whatever disk is left beneath.
   */
  const folderFor = async (path: string): Promise<boolean> => {
    const folder = dirname(path);
    try {
      await mkdir(folder);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      if (code !== 'ENOENT') throw error;
    }
    const rootThere = await lstat(root).catch(() => null);
    if (!rootThere?.isDirectory()) {
      throw new BlobStoreUnavailable('write', new Error(`${root} is gone`));
    }
    return (await mkdir(folder, { recursive: true })) !== undefined;
  };

  return {
    describe: root,
    kind: 'dir',
    scratch,
    head: async (key) => {
      const info = await lstat(pathOf(key)).catch(() => null);
      return info?.isFile() ? { key, size: info.size, mtimeMs: info.mtimeMs } : null;
    },
    open: (key) => openFile(pathOf(key)),
    get: (key) => readFile(pathOf(key)).catch(nullIfMissing),
    put: async (key, body) => {
      const path = pathOf(key);
      await folderFor(path);
      await writeFileAtomically(path, body);
    },
    putFile: async (key, path) => {
      const target = pathOf(key);
      await folderFor(target);
      await rename(path, target).catch(async (error: NodeJS.ErrnoException) => {
        // pages/ mounted apart from the scratch folder: copied beside, then renamed in.
        if (error.code !== 'EXDEV') throw error;
        await writeAtomically(target, (to) => copyFile(path, to));
        await rm(path, { force: true });
      });
    },
    upload: async (key): Promise<Writable> => {
      const path = pathOf(key);
      // Made again if someone removed it: one stray `rm -rf` must not fail every upload after.
      await folderFor(path);
      return createWriteStream(path, { flags: 'wx' });
    },
    move: async (from, to) => {
      const target = pathOf(to);
      const made = await folderFor(target);
      // Acknowledged data: its bytes reach the disk before its name does, and the name itself is
      // made durable, so a power cut cannot leave an empty or missing file under its key.
      await syncPath(pathOf(from));
      await rename(pathOf(from), target);
      await syncPath(dirname(target));
      if (made) await syncPath(dirname(dirname(target))); // the new folder's own entry
    },
    list: (prefix) => walk(root, prefix),
    folders: async (prefix) =>
      (await readdir(folderOf(prefix), { withFileTypes: true }).catch(() => []))
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name),
    remove: (key) => rm(pathOf(key), { force: true }),
    removeAll: async (prefix) => {
      const folder = folderOf(prefix);
      const bytes = await sizeOf(folder);
      // A render may still be publishing into it (it stops when told, a moment later): a file
      // made while rm walks the tree fails it with ENOTEMPTY, which a retry absorbs.
      await rm(folder, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
      return bytes;
    },
    localPath: (key) => pathOf(key),
    check: () => access(root, constants.W_OK),
    close: () => rm(scratch, { recursive: true, force: true }).catch(() => {}),
  };
};

const nullIfMissing = (error: NodeJS.ErrnoException) => {
  if (error.code === 'ENOENT' || error.code === 'ENOTDIR' || error.code === 'EISDIR') return null;
  throw error;
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
    read: async (start, end) => handle.createReadStream({ start, end, autoClose: false }),
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

/** The files under a key prefix, as keys; links are not followed, vanished entries skipped. */
async function* walk(root: string, prefix: string): AsyncIterable<StoredObject> {
  const slash = prefix.lastIndexOf('/');
  const folder = prefix.slice(0, slash + 1);
  const start = prefix.slice(slash + 1);
  const entries = await readdir(join(root, folder), { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (!entry.name.startsWith(start)) continue;
    const key = `${folder}${entry.name}`;
    if (entry.isDirectory()) yield* walk(root, `${key}/`);
    else if (entry.isFile()) {
      const info = await lstat(join(root, key)).catch(() => null);
      if (info?.isFile()) yield { key, size: info.size, mtimeMs: info.mtimeMs };
    }
  }
}

/** Bytes under a path (a file, or a folder walked without following links). */
const sizeOf = async (path: string): Promise<number> => {
  const info = await lstat(path).catch(() => null);
  if (!info) return 0;
  if (!info.isDirectory()) return info.size;
  let total = 0;
  for (const name of await readdir(path).catch(() => [] as string[])) {
    total += await sizeOf(join(path, name));
  }
  return total;
};
