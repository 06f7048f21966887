// Readiness (/readyz): whether the service can do its work now, the database and the blob store
// both answering. The daemon's and the tests' harness's (test/support/appSpec.ts) one definition.
import type { BlobStore } from './blobs/blobStore.ts';
import type { Store } from './store/store.ts';

/** Why the service cannot do its work now, or null. */
export const readiness = (store: Store, blobs: BlobStore) => {
  // A new connection each time (the pool's open ones may still work while the server refuses
  // new ones), within the connect and statement limits; one probe at a time, its answer kept for
  // a second, so a flood of /readyz cannot use up the database's connections.
  const databaseUp = shared(1000, () =>
    store.probe().then(
      () => true,
      () => false,
    ),
  );
  return async (): Promise<string | null> => {
    if (!(await databaseUp())) return 'The database is unavailable';
    const blobStore = await withTimeout(blobs.check(), 10_000).then(
      () => true,
      () => false,
    );
    return blobStore ? null : 'The blob store is unavailable';
  };
};

/** `probe` run at most once at a time, its answer reused for `keepMs` after it came. */
const shared = <T>(keepMs: number, probe: () => Promise<T>) => {
  let last: { at: number; answer: Promise<T> } | null = null;
  return () => {
    const now = performance.now();
    if (!last || (last.at > 0 && now - last.at > keepMs)) {
      const entry = { at: 0, answer: probe() };
      const settled = () => {
        entry.at = performance.now();
      };
      entry.answer.then(settled, settled);
      last = entry;
    }
    return last.answer;
  };
};

export const withTimeout = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      setTimeout(() => reject(new Error('timed out')), ms).unref();
    }),
  ]);
