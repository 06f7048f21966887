// One logger for the daemon: JSON lines on stdout, level from LOG_LEVEL.
import pino from 'pino';

export const logger = pino({
  level: process.env.LOG_LEVEL ?? 'info',
  base: { pid: process.pid },
  redact: ['req.headers.authorization', 'req.headers["x-api-key"]'],
});
export type Logger = typeof logger;

type Destination = {
  on: (event: 'error', listener: (error: NodeJS.ErrnoException) => void) => unknown;
  write: (chunk: string) => boolean;
  end: () => void;
  flushSync: () => void;
  destroy: () => void;
};

/**
 * A daemon started in a terminal that then closed (it got SIGHUP, and goes on: src/signals.ts)
 * has nowhere to log: every write to the terminal fails with EIO. pino ends its logs quietly on a
 * closed pipe (EPIPE) but not then: each failed write became an uncaught error, which the last
 * resort logged, failing again, so the daemon spun a core (~1,400 failed writes a second) and
 * could no longer exit when told to stop. A gone terminal ends the logs the same way; any other
 * error goes on as before.
 */
const endLogsWhenTerminalGone = (destination: Destination) => {
  destination.on('error', (error) => {
    if (error.code === 'EPIPE') return; // pino's own listener has ended the logs
    if (error.code !== 'EIO') throw error; // as if this listener were not there
    destination.write = () => true;
    destination.end = () => {};
    destination.flushSync = () => {};
    destination.destroy = () => {};
  });
};

// pino writes to fd 1 through its own stream (sonic-boom), or to process.stdout when something
// (a test runner) has replaced it; only the former meets a gone terminal unguarded.
const destination = (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym];
if (destination !== process.stdout && destination instanceof Object && 'flushSync' in destination) {
  endLogsWhenTerminalGone(destination as Destination);
}
