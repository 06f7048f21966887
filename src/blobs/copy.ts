// Copies every stored file from one blob store to another under the same keys: how a deployment
// grows from a directory on one machine to a bucket (`flipbook blobs copy --to s3://...`), or
// brings a bucket back into a directory. Files already there with the same size are skipped, so
// a second run (after the daemons are stopped) copies only what arrived meanwhile.
import type { BlobStore } from './blobStore.ts';

export type CopyReport = { copied: number; skipped: number; bytes: number; failed: number };

const AT_ONCE = 4;

export const copyBlobs = async (
  from: BlobStore,
  to: BlobStore,
  options: {
    onProgress?: (report: CopyReport) => void;
    onError?: (key: string, error: unknown) => void;
  } = {},
): Promise<CopyReport> => {
  const report: CopyReport = { copied: 0, skipped: 0, bytes: 0, failed: 0 };
  const running = new Set<Promise<void>>();
  const copyOne = async (key: string, size: number) => {
    try {
      if ((await to.hasKey(key)) === size) {
        report.skipped += 1;
        return;
      }
      await to.writeKey(key, await from.readKey(key), size);
      report.copied += 1;
      report.bytes += size;
    } catch (error) {
      report.failed += 1;
      options.onError?.(key, error);
    }
    options.onProgress?.(report);
  };
  for await (const { key, size } of from.entries()) {
    const work = copyOne(key, size);
    running.add(work);
    void work.finally(() => running.delete(work));
    if (running.size >= AT_ONCE) await Promise.race(running);
  }
  await Promise.all(running);
  // The store's mark goes along: a copy is the same installation's files (a move, a backup).
  const mark = await from.readMark();
  if (mark !== null && (await to.readMark()) === null) await to.writeMark(mark);
  return report;
};
