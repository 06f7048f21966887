import type { Command } from 'commander';
import { printJson } from '../../../packages/cli/src/output.ts';
import { type StoreFlags, withStore, withStoreOptions } from '../storeOptions.ts';

export const registerReplay = (program: Command) => {
  withStoreOptions(
    program
      .command('replay')
      .description('drop every read table and rebuild it from the events')
      .option('--json', 'print JSON'),
  ).action(async (flags: StoreFlags & { json?: boolean }) => {
    const { longWork } = await import('../../store/databaseLimits.ts');
    const { rebuildReadTables } = await import('../../store/replay.ts');
    const report = await withStore(flags, (store) => longWork(store.pool, rebuildReadTables), {
      long: true,
    });
    if (flags.json) printJson(report);
    else process.stdout.write(`replayed ${report.events} events in ${report.milliseconds} ms\n`);
  });
};
