// The waits an operator (or a test that cannot wait a minute) may set in the environment rather
// than by a flag: FLIPBOOK_LEASE_MS and the retries (src/worker/workerPool.ts), the small bodies'
// FLIPBOOK_BODY_TIMEOUT_MS (src/http/bodyLimit.ts). One reading, so each refuses the same values.

/**
 * The milliseconds in `process.env[name]`, or `fallback` where it is unset or out of range: under
 * a second, or over an hour (a timer past 2^31 ms fires at once).
 */
export const durationFromEnv = (name: string, fallback: number): number => {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value >= 1000 && value <= 3_600_000 ? value : fallback;
};
