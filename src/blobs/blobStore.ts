// The blob store: a directory of content-addressed files. Originals are named by their SHA-256,
// so a key never changes meaning and an identical upload is stored once. Keys are made here,
// from hashes and ids we generate, never from anything a client sends.

import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, symlink } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { blobStoreErrors } from '../metrics.ts';
import { listOriginals, listPageFolders, listTemporaries, temporaryName } from './listing.ts';

export type BlobStore = {
  root: string;
  /**
   * A fresh temporary file inside the store (same file system, so `commit` is a rename), named
   * after its owner (`<host>.<pid>.<uuid>.part`) so the next start can tell a dead process's
   * leftovers from a live one's upload.
   */
  temporary: () => Promise<{
    path: string;
    stream: NodeJS.WritableStream & { close?: () => void };
  }>;
  /** moves a finished temporary file to the original's content address */
  commitOriginal: (temporaryPath: string, sha256: string) => Promise<string>;
  originalPath: (sha256: string) => string;
  discard: (path: string) => Promise<void>;
  /** the directory a version's pages are rendered into and served from */
  /**
   * A private directory for one processing attempt. Attempts never share a directory: a worker
   * that lost its lease (or was killed, leaving poppler running) cannot touch the new attempt's
   * files. The version's `current` link points at the attempt that holds the lease.
   */
  attemptDir: (versionId: string, attempt: number) => string;
  /** points the version's page URLs at this attempt's directory (atomically) */
  makeCurrent: (versionId: string, attemptDir: string) => Promise<void>;
  /** removes the version's other attempts, once this one has finished */
  pruneAttempts: (versionId: string, keep: string) => Promise<void>;
  pagePath: (versionId: string, position: number, file: PageFile) => string;
  /** the version's document.json (title, direction, outline, page labels, links) */
  documentPath: (versionId: string) => string;
  removePages: (versionId: string) => Promise<void>;
  removeOriginal: (sha256: string) => Promise<void>;
  /** what the sweep looks at (see sweep.ts): temporaries, originals, page folders */
  listTemporaries: () => ReturnType<typeof listTemporaries>;
  listOriginals: () => ReturnType<typeof listOriginals>;
  listPageFolders: () => ReturnType<typeof listPageFolders>;
};

export type PageFile = 'max.jpg' | 'mid.jpg' | 'min.jpg' | 'text.txt' | 'words.json';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const SHA256 = /^[0-9a-f]{64}$/;

export const openBlobStore = async (dir: string): Promise<BlobStore> => {
  const root = resolve(dir);
  await mkdir(join(root, 'tmp'), { recursive: true });
  await mkdir(join(root, 'originals'), { recursive: true });
  await mkdir(join(root, 'pages'), { recursive: true });

  const versionDir = (versionId: string) => {
    if (!UUID.test(versionId)) throw new Error(`not a version id: ${versionId}`);
    return join(root, 'pages', versionId);
  };

  const originalPath = (sha256: string) => {
    if (!SHA256.test(sha256)) throw new Error(`not a SHA-256: ${sha256}`);
    return join(root, 'originals', sha256.slice(0, 2), `${sha256}.pdf`);
  };

  return counted({
    root,
    temporary: async () => {
      // Made again if someone removed it: one stray `rm -rf` must not fail every upload after.
      await mkdir(join(root, 'tmp'), { recursive: true });
      const path = join(root, 'tmp', temporaryName());
      return { path, stream: createWriteStream(path, { flags: 'wx' }) };
    },
    commitOriginal: async (temporaryPath, sha256) => {
      const target = originalPath(sha256);
      const made = await mkdir(join(target, '..'), { recursive: true });
      const existing = await stat(target).catch(() => null);
      if (existing) {
        await rm(temporaryPath, { force: true }); // same bytes already stored
        return target;
      }
      // The original is acknowledged data: its bytes reach the disk before its name does, and
      // the name itself is made durable, so a power cut cannot leave an empty or missing file
      // under an accepted checksum.
      await syncPath(temporaryPath);
      await rename(temporaryPath, target);
      await syncPath(join(target, '..'));
      if (made) await syncPath(join(root, 'originals')); // the new folder's own entry
      return target;
    },
    originalPath,
    discard: (path) => rm(path, { force: true }),
    attemptDir: (versionId, attempt) =>
      join(versionDir(versionId), `attempt-${attempt}-${randomUUID().slice(0, 8)}`),
    makeCurrent: async (versionId, attemptDir) => {
      const link = join(versionDir(versionId), 'current');
      const temporary = `${link}.${randomUUID().slice(0, 8)}`;
      await mkdir(attemptDir, { recursive: true });
      await symlink(basename(attemptDir), temporary);
      await rename(temporary, link); // rename over the old link: readers never see none
    },
    pruneAttempts: async (versionId, keep) => {
      const dir = versionDir(versionId);
      for (const entry of await readdir(dir).catch(() => [])) {
        if (entry.startsWith('attempt-') && entry !== basename(keep)) {
          await rm(join(dir, entry), { recursive: true, force: true });
        }
      }
    },
    pagePath: (versionId, position, file) => {
      if (!Number.isInteger(position) || position < 1) throw new Error(`not a page: ${position}`);
      return join(versionDir(versionId), 'current', String(position), file);
    },
    documentPath: (versionId) => join(versionDir(versionId), 'current', 'document.json'),
    // A render may still be writing into it (it stops when told, a moment later): a file made
    // while rm walks the tree fails it with ENOTEMPTY, which a retry absorbs.
    removePages: (versionId) =>
      rm(versionDir(versionId), { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }),
    removeOriginal: (sha256) => rm(originalPath(sha256), { force: true }),
    listTemporaries: () => listTemporaries(join(root, 'tmp')),
    listOriginals: () => listOriginals(join(root, 'originals')),
    listPageFolders: () => listPageFolders(join(root, 'pages')),
  });
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

/**
 * The store with its failures counted by operation (`flipbook_blob_store_errors_total`): a disk
 * filling up or a store going away shows in the metrics before anyone reads the logs.
 */
const counted = (store: BlobStore): BlobStore =>
  Object.fromEntries(
    Object.entries(store).map(([operation, value]) => [
      operation,
      typeof value !== 'function'
        ? value
        : (...args: unknown[]) => {
            try {
              const result = (value as (...a: unknown[]) => unknown)(...args);
              if (result instanceof Promise) {
                return result.catch((error: unknown) => {
                  blobStoreErrors.inc({ operation });
                  throw error;
                });
              }
              return result;
            } catch (error) {
              blobStoreErrors.inc({ operation });
              throw error;
            }
          },
    ]),
  ) as BlobStore;
