// One logger for the daemon: JSON lines on stdout, level from LOG_LEVEL.
import pino from 'pino';

export const logger = pino({
  level: process.env.LOG_LEVEL ?? 'info',
  base: { pid: process.pid },
  redact: ['req.headers.authorization', 'req.headers["x-api-key"]'],
});
export type Logger = typeof logger;
