// How long the daemon and `flipbook worker` wait at start for their database and bucket
// (src/waitAtStart.ts), and how they say so: one log line a try.
import type { Logger } from './log.ts';
import { secondsLeft, type Waiting } from './waitAtStart.ts';

/** docs/deploy.md, "What it stands on": 30 s, for compose's containers and a booting machine. */
export const STARTUP_PATIENCE_MS = 30_000;

export const logWaiting = (log: Logger) => (waiting: Waiting) =>
  log.warn(
    {
      waitingFor: waiting.what,
      reason: waiting.reason,
      try: waiting.tries,
      secondsLeft: secondsLeft(waiting.leftMs), // as the line says it
    },
    waiting.line,
  );
