// The signals a long-running process (the daemon, `flipbook worker`) answers. Node's default for
// any signal without a listener is to end the process at once, running none of our code: uploads
// and renders cut, and an embedded PostgreSQL left for its watchdog to stop.
import type { Logger } from './log.ts';

/**
 * Signals that stop the process cleanly: SIGTERM (systemd, docker stop) and SIGINT (Ctrl-C) with
 * the grace period, SIGQUIT at once (no grace; still a clean stop).
 */
export const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGQUIT'] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/**
 * SIGHUP: the terminal the process ran in has closed, or an operator asks, by habit, for log
 * files to be reopened. Logs go to stdout, so there is nothing to reopen: it is said, and the
 * process goes on.
 */
export const ignoreHangup = (log: Logger) => {
  process.on('SIGHUP', () => {
    log.info(
      { signal: 'SIGHUP' },
      'got SIGHUP: going on (logs go to stdout, there are no files to reopen)',
    );
  });
};
