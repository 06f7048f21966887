// Downloads marked with their reader (issue 44, a link's `watermark`): the PDF with the reader's
// address and the day on every page (src/pdf/stampPdf.ts, a qpdf overlay: 0.2 s for 300 pages),
// made on the first download and kept for the next one of the same reader, version and day.
//
// Kept on this machine's temporary disk only, in a folder of this process's (mode 0700, removed
// at exit), at most MAX_KEPT files and MAX_BYTES, least recently used first out; a file of another
// day is never served (its stamp names that day). A kept file is only ever sent after the file
// gate let its reader in (src/http/fileGates.ts): a reader erased is let in nowhere, and their
// files here are deleted at once on the daemon that erased them (`forget`), and on any other
// daemon when it next needs the room, at the latest when its process ends.
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BlobStore } from '../blobs/blobStore.ts';
import { AppError } from '../domain/errors.ts';
import { StampFailure, stampPdf } from '../pdf/stampPdf.ts';

const MAX_KEPT = 200;
const MAX_BYTES = 2 * 1024 ** 3;

type Kept = { path: string; ready: Promise<number>; used: number; readerId: string };

export type StampedFile = { path: string; size: number };

export const stampedDownloads = (blobs: Pick<BlobStore, 'localOriginal'>) => {
  const kept = new Map<string, Kept>();
  let folder: Promise<string> | null = null;
  const folderOf = () => {
    // Named after this process: a start after a kill removes it (sweepWrapperDirs), with the
    // readers' marked copies (their addresses are on them: erasing a reader must reach them).
    folder ??= mkdtemp(join(tmpdir(), `flipbook-stamps-${process.pid}-`)).then((dir) => {
      process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
      return dir;
    });
    return folder;
  };
  const drop = async (key: string) => {
    const entry = kept.get(key);
    kept.delete(key);
    if (entry) await rm(entry.path, { force: true });
  };
  const evict = async () => {
    let total = 0;
    for (const entry of kept.values()) total += await entry.ready.catch(() => 0);
    const oldest = [...kept.entries()].sort((a, b) => a[1].used - b[1].used);
    for (const [key, entry] of oldest) {
      if (kept.size <= MAX_KEPT && total <= MAX_BYTES) break;
      total -= await entry.ready.catch(() => 0);
      await drop(key);
    }
  };
  const make = async (checksum: string, stamp: string, path: string) => {
    const local = await blobs.localOriginal(checksum);
    try {
      await stampPdf(local.path, path, stamp);
    } catch (error) {
      throw refusal(error);
    } finally {
      await local.release();
    }
    return (await stat(path)).size;
  };
  return {
    /** The original of `checksum` stamped with `stamp` for this reader and version, made once. */
    file: async (
      who: { readerId: string; versionId: string; checksum: string },
      stamp: string,
    ): Promise<StampedFile> => {
      const key = `${who.readerId} ${who.versionId} ${stamp}`;
      let entry = kept.get(key);
      if (!entry) {
        const path = join(await folderOf(), `${randomUUID()}.pdf`);
        entry = { path, ready: make(who.checksum, stamp, path), used: 0, readerId: who.readerId };
        kept.set(key, entry);
        entry.ready.then(evict, () => drop(key));
      }
      entry.used = Date.now();
      return { path: entry.path, size: await entry.ready };
    },
    /** Deletes what was kept for these readers (erased). */
    forget: async (readerIds: readonly string[]) => {
      const gone = new Set(readerIds);
      for (const [key, entry] of [...kept.entries()]) {
        if (gone.has(entry.readerId)) await drop(key);
      }
    },
  };
};

export type StampedDownloads = ReturnType<typeof stampedDownloads>;

/** A stamp that could not be made, as the download's answer says it. */
const refusal = (error: unknown) => {
  if (!(error instanceof StampFailure)) return error;
  if (error.reason === 'password' || error.reason === 'damaged') {
    return new AppError(
      409,
      'This PDF cannot be marked with your address (it is protected by a password or damaged), so it cannot be downloaded through this link',
    );
  }
  return new AppError(503, 'The marked copy could not be made now: try again in a minute', {
    'Retry-After': '60',
  });
};
