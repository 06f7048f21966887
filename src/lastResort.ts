// The last line of defence of a long-running process (the daemon, a worker). Every promise and
// child process has an owner that awaits or cancels it; should one still slip through (a bug, a
// library's stray rejection), Node would end the process, and with it every upload in flight and
// every render. Instead: log it loudly and stop only the job the error came from (its
// AsyncLocalStorage context says which); that job is then tried again like one whose worker died.
import type { Logger } from './log.ts';
import { stopJobOf } from './worker/workerPool.ts';

let installed = false;

export const installLastResort = (log: Logger) => {
  if (installed) return;
  installed = true;
  const contain = (kind: string) => (error: unknown) => {
    const versionId = stopJobOf(error);
    log.error(
      { err: error, versionId },
      `${kind}: contained; ${versionId ? 'its job stopped' : 'no job affected'}`,
    );
  };
  process.on('unhandledRejection', contain('unhandled rejection'));
  process.on('uncaughtException', contain('uncaught exception'));
};
