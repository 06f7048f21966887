// Whether the bucket still answers, asked while uploads are receiving their bodies. An upload
// sends nothing to the bucket until a whole part (5 MiB) has come from its client, so a slow
// client on a bucket that stopped answering, or was down before the upload began, heard of it
// only then (measured: a 503 39.6 s after the freeze at 150 KB/s, 6,488,064 of 6,648,423 bytes
// read; frozen before the request, the whole body read first). One question at a time for all of
// a process's uploads: the first at once when an upload begins with none under way, then one
// every `everyMs` after the last answer while any upload is watching. A question that fails
// (after its retries, within one operation's bound) fails every upload watching then.

export type Heartbeat = {
  /** `down` is called with the failure if the bucket fails a question while watched; unwatch */
  watch: (down: (error: unknown) => void) => () => void;
};

export const heartbeat = (ask: () => Promise<unknown>, everyMs: number): Heartbeat => {
  const watchers = new Set<(error: unknown) => void>();
  let asking = false;
  let timer: NodeJS.Timeout | undefined;
  const beat = async () => {
    timer = undefined;
    asking = true;
    try {
      await ask();
    } catch (error) {
      for (const down of [...watchers]) down(error);
    } finally {
      asking = false;
      if (watchers.size > 0) {
        timer = setTimeout(beat, everyMs);
        timer.unref();
      }
    }
  };
  return {
    watch: (down) => {
      watchers.add(down);
      if (!asking && !timer) void beat();
      return () => {
        watchers.delete(down);
        if (watchers.size === 0 && timer) {
          clearTimeout(timer);
          timer = undefined;
        }
      };
    },
  };
};
