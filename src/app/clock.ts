// The time, as the use cases that depend on it see it. In a daemon, a worker and the admin
// commands it is the database's time (src/store/databaseTime.ts: every process decides by one
// clock, whatever its machine's says). Sessions expire and invitations run out by this clock, so
// a test can move it forward instead of waiting: with FLIPBOOK_TEST_CLOCK_FILE set, the file
// holds a number of seconds added to that time in this process alone (read on each call; a
// missing or unreadable file adds nothing). Documented in docs/development.md; never set in
// production.
import { readFileSync } from 'node:fs';

export type Clock = { now: () => Date };

export const systemClock: Clock = { now: () => new Date() };

/** `baseMs`: the time followed (the database's, src/store/databaseTime.ts), else this machine's. */
export const clockFromEnv = (
  env: NodeJS.ProcessEnv = process.env,
  baseMs: () => number = Date.now,
): Clock => {
  const file = env.FLIPBOOK_TEST_CLOCK_FILE;
  if (!file) return baseMs === Date.now ? systemClock : { now: () => new Date(baseMs()) };
  return {
    now: () => {
      let offset = 0;
      try {
        offset = Number(readFileSync(file, 'utf8').trim()) || 0;
      } catch {
        offset = 0;
      }
      return new Date(baseMs() + offset * 1000);
    },
  };
};
