import type { Command } from 'commander';
import { type JsonStoreFlags, printResult, withJsonStoreOptions } from '../jsonOption.ts';
import { withStore } from '../storeOptions.ts';

export const registerReplay = (program: Command) => {
  withJsonStoreOptions(
    program.command('replay').description('drop every read table and rebuild it from the events'),
  ).action(async (flags: JsonStoreFlags) => {
    const { longWork } = await import('../../store/databaseLimits.ts');
    const { rebuildReadTables } = await import('../../store/replay.ts');
    const report = await withStore(flags, (store) => longWork(store.pool, rebuildReadTables), {
      long: true,
    });
    printResult(flags, report, `replayed ${report.events} events in ${report.milliseconds} ms`);
  });
};
