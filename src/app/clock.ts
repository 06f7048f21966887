// The time, as the use cases that depend on it see it. Sessions expire and invitations run out
// by this clock, so a test can move it forward instead of waiting: with FLIPBOOK_TEST_CLOCK_FILE
// set, the file holds a number of seconds added to the real time (read on each call; a missing
// or unreadable file adds nothing). Documented in docs/development.md; never set in production.
import { readFileSync } from 'node:fs';

export type Clock = { now: () => Date };

export const systemClock: Clock = { now: () => new Date() };

export const clockFromEnv = (env: NodeJS.ProcessEnv = process.env): Clock => {
  const file = env.FLIPBOOK_TEST_CLOCK_FILE;
  if (!file) return systemClock;
  return {
    now: () => {
      let offset = 0;
      try {
        offset = Number(readFileSync(file, 'utf8').trim()) || 0;
      } catch {
        offset = 0;
      }
      return new Date(Date.now() + offset * 1000);
    },
  };
};
