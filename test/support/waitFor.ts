// Waiting for a condition instead of sleeping: `check` runs until it returns a value (anything
// but undefined), which waitFor returns; past `timeoutMs` the test fails naming what it awaited.
export const waitFor = async <T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 60_000,
  intervalMs = 50,
): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
};

/** Waits until the service at `base` says it is ready: GET /readyz answers 200 (a refused or
 * failed connection, as while it starts, is not ready yet). */
export const waitReady = (what: string, base: string, timeoutMs = 30_000, intervalMs = 200) =>
  waitFor(
    what,
    async () => {
      const status = await fetch(`${base}/readyz`).then(
        async (reply) => {
          await reply.body?.cancel();
          return reply.status;
        },
        () => 0,
      );
      return status === 200 ? true : undefined;
    },
    timeoutMs,
    intervalMs,
  );
