// A file appears under its final name only when complete: it is written beside it under a
// temporary name and renamed (atomic on one file system). Readers (the page URLs, a poller) see
// the whole file or none, and a failed write leaves nothing behind.
import { randomUUID } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import { extname } from 'node:path';

/** Runs `write` into a temporary path beside `target`, then renames it into place. */
export const writeAtomically = async (target: string, write: (to: string) => Promise<unknown>) => {
  // The extension stays last: sharp picks its output format from it.
  const temporary = `${target}.${randomUUID().slice(0, 8)}.part${extname(target)}`;
  try {
    await write(temporary);
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
};

export const writeFileAtomically = (target: string, data: string | Uint8Array, mode = 0o644) =>
  writeAtomically(target, (to) => writeFile(to, data, { mode, flag: 'wx' }));
