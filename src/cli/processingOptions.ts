// `serve` and `worker` both process documents: how many at once (--workers: `serve` may process
// none, it has the API to run; a worker is there to process) and how many renderer processes
// those share (--render-processes). One place, so the two commands word and check them alike.
import type { Command } from 'commander';
import { defaultLanes, defaultRenderProcesses } from '../worker/lanes.ts';
import { flagInteger } from './flagInteger.ts';

export type ProcessingFlags = { workers: string; renderProcesses: string };

/** The two options, --workers (worded by the command) then --render-processes. */
export const withProcessingOptions = (command: Command, workersWords: string) =>
  command
    .option('--workers <n>', workersWords, String(defaultLanes()))
    .option(
      '--render-processes <n>',
      'renderer processes at once, shared by those documents',
      String(defaultRenderProcesses()),
    );

/** The two counts, checked in that order (a bad one is exit 2, in words). */
export const processingOf = (flags: ProcessingFlags, leastWorkers: 0 | 1) => ({
  workers: flagInteger('--workers', flags.workers, leastWorkers, 256),
  renderProcesses: flagInteger('--render-processes', flags.renderProcesses, 1, 256),
});
