// An in-process mutex per key: callers with the same key run one at a time, in arrival order;
// different keys never wait for each other. Used so that writers of one event stream (and holders
// of one workspace's lock) inside a process queue here instead of colliding in PostgreSQL: the
// only version conflicts left are with other processes.

export type KeyedMutex = {
  run: <T>(key: string, fn: () => Promise<T>) => Promise<T>;
  /** keys with a holder or waiters (for tests: an idle mutex keeps nothing) */
  size: () => number;
};

export const createKeyedMutex = (): KeyedMutex => {
  // The tail of each key's queue: the promise the next caller must wait for. Deleted when the
  // last caller leaves, so the map holds only keys in use.
  const tails = new Map<string, Promise<void>>();
  return {
    run: async (key, fn) => {
      const previous = tails.get(key) ?? Promise.resolve();
      let release = () => {};
      const mine = new Promise<void>((r) => {
        release = r;
      });
      const tail = previous.then(() => mine);
      tails.set(key, tail);
      await previous;
      try {
        return await fn();
      } finally {
        release();
        if (tails.get(key) === tail) tails.delete(key);
      }
    },
    size: () => tails.size,
  };
};
