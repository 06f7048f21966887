// What an outbox's sender (mail, webhooks) runs on: its heartbeat and its attempts under way.
//
// The heartbeat: `tick` now, then again `everyMs` after each one ends, so two ticks never overlap
// however slow the database is; a tick that fails (the database away) is reported and the next
// one comes all the same. stop() ends it at once.
export const pollLoop = (
  tick: () => Promise<void>,
  everyMs: number,
  onError: (error: unknown) => void,
) => {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const loop = () => {
    if (stopped) return;
    tick()
      .catch(onError)
      .finally(() => {
        if (!stopped) timer = setTimeout(loop, everyMs);
      });
  };
  loop();
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
};

/**
 * The attempts a sender has under way, beside its loop: counted while they run (its free slots),
 * and awaited when it stops, for at most `waitMs` when given (leases cover what is cut short).
 */
export const attemptsUnderWay = () => {
  const running = new Set<Promise<unknown>>();
  return {
    get size() {
      return running.size;
    },
    add: (attempt: Promise<unknown>) => {
      // The sender logs its attempts' failures; one it did not must still not end the process.
      const settled: Promise<unknown> = attempt
        .catch(() => {})
        .finally(() => running.delete(settled));
      running.add(settled);
    },
    settled: async (waitMs?: number) => {
      const all = Promise.allSettled([...running]);
      if (waitMs === undefined) return void (await all);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([all, new Promise((resolve) => (timer = setTimeout(resolve, waitMs)))]);
      clearTimeout(timer);
    },
  };
};
