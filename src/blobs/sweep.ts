// What a killed or crashed process leaves in the blob store, removed at the next start and by
// `flipbook blobs gc` (which can only report, with --dry-run):
// - upload temporaries (tmp/<host>.<pid>.<uuid>.part) of a dead process on this host, and any
//   temporary untouched for a day (uploads time out after an hour, so none is still arriving);
// - originals no version uses (a crash between commit and append, deleted versions whose file
//   removal was cut short), once an hour old;
// - page folders of versions that do not exist or were deleted (a crash between the deletion
//   event and the files' removal).
// Several daemons and workers share the blob store (a bucket, or a directory over NFS): a live
// process's files are never touched, which is what the owner in the name and the age thresholds
// are for.

import { isAlive } from '../isAlive.ts';
import type { Logger } from '../log.ts';
import { checksumsInUse, liveVersionIds } from '../readTables/versions.ts';
import { installationId } from '../state/meta.ts';
import type { Store } from '../store/store.ts';
import type { BlobStore } from './blobStore.ts';
import { type Temporary, thisOwner } from './listing.ts';

const HOUR = 60 * 60 * 1000;
/** No upload lives this long (the server gives up on a request after an hour). */
export const TEMPORARY_MAX_AGE_MS = 24 * HOUR;
/**
 * An original this young may belong to an upload between committing it and appending its
 * version. The originals lock already keeps the sweep out of that window; the age is the second
 * guard (a process of an older release takes no such lock).
 */
export const ORIGINAL_MIN_AGE_MS = HOUR;

export type Removed = { count: number; bytes: number };
export type SweepReport = {
  temporaries: Removed;
  originals: Removed;
  pageFolders: Removed;
  /** why originals and page folders were left alone: the store is another installation's */
  refused?: string;
};

/**
 * Whether the blob store's files belong to this database. The store is marked with the
 * installation's id the first time; a database that is not the one the mark names (a typo in
 * --database-url, a staging daemon on the production bucket, an empty database) would take every
 * page folder for a deleted version's: its sweep removes nothing but temporaries.
 */
export const storeBelongsHere = async (
  store: Store,
  blobs: BlobStore,
  /** mark an unmarked store (a dry run writes nothing) */
  mark = true,
): Promise<string | null> => {
  const id = await installationId(store.db);
  const found = await blobs.readMark();
  if (found === null) {
    // Unmarked: a store from before marks, a copy, or one whose mark was removed. It is claimed
    // only if it is empty or this database knows some of what it holds; a store full of files
    // this database has never heard of is someone else's.
    if (!(await knowsSomeOf(store, blobs))) {
      return `the blob store ${blobs.describe} is unmarked and holds files this database does not know (is --database-url right?): only upload temporaries are swept`;
    }
    if (mark) await blobs.writeMark(markOf(id));
    return null;
  }
  let marked: unknown = null;
  try {
    marked = (JSON.parse(found) as { installation?: unknown }).installation;
  } catch {
    // an unreadable mark is not ours either
  }
  if (typeof marked !== 'string') {
    return `the blob store ${blobs.describe} has an unreadable mark (flipbook-store.json): only upload temporaries are swept; if the store is this installation's, remove the file`;
  }
  return marked === id
    ? null
    : `the blob store ${blobs.describe} belongs to another installation (${marked}, this database is ${id}): only upload temporaries are swept`;
};

export const markOf = (installation: string) => `${JSON.stringify({ installation }, null, 2)}\n`;

/** Whether the store is empty, or this database uses one of its first page folders or originals. */
const knowsSomeOf = async (store: Store, blobs: BlobStore) => {
  const folders = (await blobs.listPageFolders()).slice(0, 500).map((f) => f.versionId);
  if (folders.length > 0 && (await liveVersionIds(store.db, folders)).size > 0) return true;
  const originals = (await blobs.listOriginals()).slice(0, 500).map((o) => o.sha256);
  if (originals.length > 0 && (await checksumsInUse(store.db, originals)).size > 0) return true;
  return folders.length === 0 && originals.length === 0;
};

export const sweepBlobs = async (
  store: Store,
  blobs: BlobStore,
  log: Logger,
  now: Date,
  signal?: AbortSignal,
  /** only count what would go */
  dryRun = false,
): Promise<SweepReport> => {
  const report: SweepReport = {
    temporaries: { count: 0, bytes: 0 },
    originals: { count: 0, bytes: 0 },
    pageFolders: { count: 0, bytes: 0 },
  };
  const remove = async (ref: string, into: Removed) => {
    const bytes = dryRun ? await blobs.sizeOfListed(ref) : await blobs.removeListed(ref);
    into.count++;
    into.bytes += bytes;
  };

  for (const temporary of await blobs.listTemporaries()) {
    if (signal?.aborted) return report;
    if (isLeftover(temporary, now)) await remove(temporary.ref, report.temporaries);
  }

  const refused = await storeBelongsHere(store, blobs, !dryRun);
  if (refused) {
    log.error({ blobs: blobs.describe }, refused);
    return { ...report, refused };
  }

  const old = (await blobs.listOriginals()).filter(
    (o) => now.getTime() - o.mtimeMs > ORIGINAL_MIN_AGE_MS,
  );
  for (const batch of chunks(old, 500)) {
    if (signal?.aborted) return report;
    // Exclusively: no upload is between committing an original and appending its version, so
    // "no version uses it" cannot change while we look and remove.
    await store.locks.originals(async () => {
      const used = await checksumsInUse(
        store.db,
        batch.map((o) => o.sha256),
      );
      for (const original of batch) {
        if (!used.has(original.sha256)) await remove(original.ref, report.originals);
      }
    });
  }

  // A version's folder is made by the worker that claimed its job, after the version's row
  // exists; so a folder without a row belongs to a version that was deleted or never committed.
  const folders = await blobs.listPageFolders();
  for (const batch of chunks(folders, 500)) {
    if (signal?.aborted) return report;
    const live = await liveVersionIds(
      store.db,
      batch.map((f) => f.versionId),
    );
    for (const folder of batch) {
      if (!live.has(folder.versionId)) await remove(folder.ref, report.pageFolders);
    }
  }

  log.info(
    {
      temporaries: report.temporaries,
      originals: report.originals,
      pageFolders: report.pageFolders,
      bytes: report.temporaries.bytes + report.originals.bytes + report.pageFolders.bytes,
    },
    dryRun
      ? 'blob sweep (dry run): what would be removed'
      : 'blob sweep: removed what earlier processes left behind',
  );
  return report;
};

/** Whether an upload temporary can no longer belong to a live upload. */
const isLeftover = (temporary: Temporary, now: Date) => {
  if (now.getTime() - temporary.mtimeMs > TEMPORARY_MAX_AGE_MS) return true;
  const me = thisOwner();
  const owner = temporary.owner;
  // Another host's (or another container's) pids mean nothing here: only the age decides.
  if (!owner || owner.host !== me.host) return false;
  // Our own pid: an earlier process that had it (pid 1 in a container, say) wrote the file
  // before we started; our own uploads write after.
  if (owner.pid === me.pid) return temporary.mtimeMs < performance.timeOrigin;
  return !isAlive(owner.pid);
};

const chunks = <T>(items: T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) =>
    items.slice(i * size, i * size + size),
  );

/**
 * Sweeps in the background, so readiness never waits for it; a failure is logged and never
 * ends the process. `stop` cuts it short and waits, before the store closes under it.
 */
export const startBlobSweep = (
  store: Store,
  blobs: BlobStore,
  log: Logger,
  /** the process's clock at its start: leftovers are aged by it */
  now: Date,
) => {
  const abort = new AbortController();
  const done = sweepBlobs(store, blobs, log, now, abort.signal).then(
    () => {},
    (error: unknown) => log.warn({ err: error }, 'blob sweep failed; it runs again at next start'),
  );
  return {
    stop: async () => {
      abort.abort();
      await done;
    },
  };
};
