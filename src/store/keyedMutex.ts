// An in-process mutex per key: callers with the same key run one at a time, in arrival order;
// different keys never wait for each other. Used so that writers of one event stream (and holders
// of one workspace's lock) inside a process queue here instead of colliding in PostgreSQL: the
// only version conflicts left are with other processes.
//
// A failure that would fail everyone behind it (`sharedFailure`: the database not answering) is
// passed on at once to the callers that were already waiting when it happened: without that, a
// queue of N callers on a frozen database would take N database timeouts to drain, and the last
// caller would wait N times the bound. Callers who arrive after it try for themselves.

export type KeyedMutex = {
  run: <T>(key: string, fn: () => Promise<T>) => Promise<T>;
  /** keys with a holder or waiters (for tests: an idle mutex keeps nothing) */
  size: () => number;
};

export const createKeyedMutex = (
  options: { sharedFailure?: (error: unknown) => boolean } = {},
): KeyedMutex => {
  // The tail of each key's queue: the promise the next caller must wait for. Deleted when the
  // last caller leaves, so the map holds only keys in use.
  const tails = new Map<string, Promise<void>>();
  // The last shared failure of each key in use, and when (in arrivals) it happened.
  const failures = new Map<string, { error: unknown; at: number }>();
  let arrivals = 0;
  return {
    run: async (key, fn) => {
      const arrived = ++arrivals;
      const previous = tails.get(key) ?? Promise.resolve();
      let release = () => {};
      const mine = new Promise<void>((r) => {
        release = r;
      });
      const tail = previous.then(() => mine);
      tails.set(key, tail);
      await previous;
      try {
        const failure = failures.get(key);
        if (failure && failure.at > arrived) throw failure.error;
        try {
          return await fn();
        } catch (error) {
          if (options.sharedFailure?.(error)) failures.set(key, { error, at: ++arrivals });
          throw error;
        }
      } finally {
        release();
        if (tails.get(key) === tail) {
          tails.delete(key);
          failures.delete(key);
        }
      }
    },
    size: () => tails.size,
  };
};
