// When each API key last authenticated a request ("last used"), kept off the request's path: a
// request only notes the use; the write runs on its own, at most once per interval per key and
// per daemon (in memory), and a failed write is logged and forgotten, never the request's error.
// Not an event (docs/architecture.md): it is the one fact about keys a replay cannot rebuild.

import type { Db } from '../readTables/readTable.ts';
import { recordKeyUse } from '../state/keyUsage.ts';
import type { Clock } from './clock.ts';

/** Five minutes: "last used" is to within that, and a busy key costs one write per interval. */
export const DEFAULT_KEY_USAGE_INTERVAL_MS = 5 * 60_000;

export type KeyUsage = {
  /** Notes that a key authenticated a request; returns at once and never throws. */
  used: (keyId: string, at?: Date) => void;
  /** Waits for the writes under way (the daemon, before it closes the store). */
  settle: () => Promise<void>;
};

// Beyond this many keys remembered, those whose interval has passed are forgotten.
const PRUNE_ABOVE = 10_000;

export const keyUsageRecorder = (
  db: Db,
  options: {
    intervalMs: number;
    onError: (error: unknown, keyId: string) => void;
    clock: Clock;
  },
): KeyUsage => {
  const lastWrite = new Map<string, number>();
  const pending = new Set<Promise<void>>();
  const prune = (now: number) => {
    for (const [keyId, at] of lastWrite) {
      if (now - at >= options.intervalMs) lastWrite.delete(keyId);
    }
  };
  return {
    used: (keyId, at = options.clock.now()) => {
      const now = at.getTime();
      const last = lastWrite.get(keyId);
      if (last !== undefined && now - last < options.intervalMs) return;
      if (lastWrite.size > PRUNE_ABOVE) prune(now);
      lastWrite.set(keyId, now);
      const write: Promise<void> = recordKeyUse(db, keyId, at)
        .catch((error: unknown) => {
          // The next use tries again rather than waiting out the interval.
          if (lastWrite.get(keyId) === now) lastWrite.delete(keyId);
          try {
            options.onError(error, keyId);
          } catch {
            // a logger that fails must not turn a lost timestamp into a crash
          }
        })
        .finally(() => pending.delete(write));
      pending.add(write);
    },
    settle: async () => {
      await Promise.all(pending);
    },
  };
};
