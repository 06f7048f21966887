import type { Command } from 'commander';
import { printJson, safe } from '../../../packages/cli/src/output.ts';
import { type JsonStoreFlags, withJsonStoreOptions } from '../jsonOption.ts';
import { withStore } from '../storeOptions.ts';

export const registerEvents = (program: Command) => {
  withJsonStoreOptions(
    program
      .command('events <flipbookId>')
      .description("print a flipbook's events in order: its full audit trail"),
  ).action(async (flipbookId: string, flags: JsonStoreFlags) => {
    const { flipbookEvents } = await import('../../app/eventLog.ts');
    const events = await withStore(flags, (store) => flipbookEvents(store, flipbookId), {
      long: true,
    });
    if (flags.json) {
      printJson(events);
      return;
    }
    for (const event of events) {
      const { flipbookId: _f, workspaceId: _w, occurredAt: _o, ...details } = event.data;
      const { actor } = event.metadata;
      const who = 'id' in actor ? `${actor.type}:${actor.id}` : actor.type;
      process.stdout.write(
        `${event.position}\t${event.at}\t${event.type}\t${safe(who)}\t${JSON.stringify(details)}\n`,
      );
    }
  });
};
