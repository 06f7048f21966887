// Naming and listing the blob directory's files for the sweep (sweep.ts). Only names this
// service makes are listed; anything else in the directory is left alone. A listed item's `ref`
// is what its store removes it by: a path here, a key (or a key prefix) in a bucket.
import { randomUUID } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';

/**
 * Who owns temporaries made by this process: the host name, plus the PID namespace where Linux
 * tells it, so two containers sharing a host name (and a blob directory) never read each
 * other's pids as their own.
 */
const ownerHost = (() => {
  const host = hostname().replace(/[^A-Za-z0-9.-]/g, '_') || 'host';
  try {
    const ns = readlinkSync('/proc/self/ns/pid').match(/\d+/)?.[0];
    return ns ? `${host}-ns${ns}` : host;
  } catch {
    return host;
  }
})();

/** This process as the owner of a temporary file. */
export const thisOwner = () => ({ host: ownerHost, pid: process.pid });

export const temporaryName = () => `${ownerHost}.${process.pid}.${randomUUID()}.part`;

export const TEMPORARY =
  /^(.+)\.(\d+)\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.part$/;
export const OLD_TEMPORARY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.part$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const ORIGINAL = /^([0-9a-f]{64})\.pdf$/;

export type Temporary = {
  ref: string;
  size: number;
  mtimeMs: number;
  /** null for a name from before owners were recorded: only its age can condemn it */
  owner: { host: string; pid: number } | null;
};

export type Original = { sha256: string; ref: string; size: number; mtimeMs: number };

export type PageFolder = { versionId: string; ref: string };

/** The upload temporaries in `dir` (<blob dir>/tmp). */
export const listTemporaries = async (dir: string): Promise<Temporary[]> => {
  const found: Temporary[] = [];
  for (const name of await names(dir)) {
    const owned = TEMPORARY.exec(name);
    if (!owned && !OLD_TEMPORARY.test(name)) continue;
    const info = await fileInfo(join(dir, name));
    if (!info) continue;
    found.push({
      ref: join(dir, name),
      ...info,
      owner: owned ? { host: owned[1] as string, pid: Number(owned[2]) } : null,
    });
  }
  return found;
};

/** The stored originals under `dir` (<blob dir>/originals/xx/<sha256>.pdf). */
export const listOriginals = async (dir: string): Promise<Original[]> => {
  const found: Original[] = [];
  for (const prefix of await names(dir)) {
    if (!/^[0-9a-f]{2}$/.test(prefix)) continue;
    for (const name of await names(join(dir, prefix))) {
      const sha256 = ORIGINAL.exec(name)?.[1];
      if (!sha256?.startsWith(prefix)) continue;
      const info = await fileInfo(join(dir, prefix, name));
      if (info) found.push({ sha256, ref: join(dir, prefix, name), ...info });
    }
  }
  return found;
};

/** The per-version page folders in `dir` (<blob dir>/pages/<versionId>). */
export const listPageFolders = async (dir: string): Promise<PageFolder[]> =>
  (await names(dir))
    .filter((name) => UUID.test(name))
    .map((versionId) => ({ versionId, ref: join(dir, versionId) }));

/** Bytes under a path (a file, or a folder walked without following links). */
export const sizeOf = async (path: string): Promise<number> => {
  const info = await lstat(path).catch(() => null);
  if (!info) return 0;
  if (!info.isDirectory()) return info.size;
  let total = 0;
  for (const name of await names(path)) total += await sizeOf(join(path, name));
  return total;
};

// Entries vanish under us (another process sweeping or committing): a missing one is skipped.
const names = (dir: string) => readdir(dir).catch(() => [] as string[]);

const fileInfo = async (path: string) => {
  const info = await lstat(path).catch(() => null);
  return info?.isFile() ? { size: info.size, mtimeMs: info.mtimeMs } : null;
};
