import type { Command } from 'commander';
import { CliError, EXIT } from '../../../packages/cli/src/client/cliErrors.ts';
import { type JsonStoreFlags, printResult, withJsonStoreOptions } from '../jsonOption.ts';
import { actAsAdmin } from '../storeOptions.ts';

export const registerDownload = (program: Command) => {
  withJsonStoreOptions(
    program
      .command('download <flipbookId> <onOrOff>')
      .description("turn the reader's Download PDF button (and the original's link) on or off"),
  ).action(async (flipbookId: string, onOrOff: string, flags: JsonStoreFlags) => {
    const { setDownload } = await import('../../app/downloads.ts');
    if (onOrOff !== 'on' && onOrOff !== 'off') throw new CliError(EXIT.usage, 'say "on" or "off"');
    const result = await actAsAdmin(flags, (store, admin, now) =>
      setDownload(store, flipbookId, onOrOff === 'on', admin, now),
    );
    printResult(flags, result, `downloads ${onOrOff} for flipbook ${result.id}`);
  });
};
