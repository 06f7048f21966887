import type { Command } from 'commander';
import { rebuildReadTables } from '../../store/replay.ts';
import { printJson } from '../output.ts';
import { type StoreFlags, withStore, withStoreOptions } from '../storeOptions.ts';

export const registerReplay = (program: Command) => {
  withStoreOptions(
    program
      .command('replay')
      .description('drop every read table and rebuild it from the events')
      .option('--json', 'print JSON'),
  ).action(async (flags: StoreFlags & { json?: boolean }) => {
    const report = await withStore(flags, async (store) => {
      const client = await store.pool.connect();
      try {
        return await rebuildReadTables(client);
      } finally {
        client.release();
      }
    });
    if (flags.json) printJson(report);
    else process.stdout.write(`replayed ${report.events} events in ${report.milliseconds} ms\n`);
  });
};
