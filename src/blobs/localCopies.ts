// Local copies of a bucket's originals: poppler reads files, so a render (or a page rendered on
// demand) needs the original on this machine. Shared by whoever needs one at the same time and
// kept (up to CACHE_BYTES, least recently used first out) for the next.
import { randomUUID } from 'node:crypto';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** Local copies of originals kept for the next use (words.json, a retry), at most this many bytes. */
const CACHE_BYTES = 1024 * 1024 * 1024;

/**
 * Local copies of originals, shared by whoever needs one at the same time and kept (up to
 * CACHE_BYTES, least recently used first out) for the next.
 */
export const localCopies = (dir: string, fetch: (sha256: string, to: string) => Promise<void>) => {
  type Copy = { path: string; ready: Promise<number>; users: number; used: number };
  const copies = new Map<string, Copy>();
  const evict = async () => {
    let total = 0;
    for (const copy of copies.values()) total += await copy.ready.catch(() => 0);
    const idle = [...copies.entries()]
      .filter(([, copy]) => copy.users === 0)
      .sort((a, b) => a[1].used - b[1].used);
    for (const [sha256, copy] of idle) {
      if (total <= CACHE_BYTES) break;
      copies.delete(sha256);
      total -= await copy.ready.catch(() => 0);
      await rm(copy.path, { force: true });
    }
  };
  return {
    /** takes a local file of the original in (an upload's spool), or removes it if one is here */
    adopt: async (sha256: string, file: string) => {
      if (copies.has(sha256)) return void (await rm(file, { force: true }));
      const path = join(dir, `${sha256}.pdf`);
      const ready = (async () => {
        await mkdir(dir, { recursive: true });
        await rename(file, path);
        return (await stat(path)).size;
      })();
      copies.set(sha256, { path, ready, users: 0, used: performance.now() });
      await ready.catch(async () => {
        copies.delete(sha256);
        await rm(file, { force: true });
      });
      await evict();
    },
    get: async (sha256: string) => {
      let copy = copies.get(sha256);
      if (!copy) {
        const path = join(dir, `${sha256}.pdf`);
        const ready = (async () => {
          await mkdir(dir, { recursive: true });
          const part = `${path}.${randomUUID().slice(0, 8)}.part`;
          try {
            await fetch(sha256, part);
            await rename(part, path);
          } catch (error) {
            await rm(part, { force: true });
            throw error;
          }
          return (await stat(path)).size;
        })();
        copy = { path, ready, users: 0, used: performance.now() };
        copies.set(sha256, copy);
        ready.catch(() => copies.delete(sha256)); // the next asker tries again
      }
      const held = copy;
      held.users += 1;
      held.used = performance.now();
      try {
        await held.ready;
      } catch (error) {
        held.users -= 1;
        throw error;
      }
      let released = false;
      return {
        path: held.path,
        release: async () => {
          if (released) return;
          released = true;
          held.users -= 1;
          await evict();
        },
      };
    },
  };
};
