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
