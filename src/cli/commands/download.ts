import type { Command } from 'commander';
import { CliError, EXIT } from '../../../packages/cli/src/client/cliErrors.ts';
import { printJson } from '../../../packages/cli/src/output.ts';
import {
  adminNow,
  adminOf,
  type StoreFlags,
  withStore,
  withStoreOptions,
} from '../storeOptions.ts';

export const registerDownload = (program: Command) => {
  withStoreOptions(
    program
      .command('download <flipbookId> <onOrOff>')
      .description("turn the reader's Download PDF button (and the original's link) on or off")
      .option('--json', 'print JSON'),
  ).action(async (flipbookId: string, onOrOff: string, flags: StoreFlags & { json?: boolean }) => {
    const { setDownload } = await import('../../app/downloads.ts');
    if (onOrOff !== 'on' && onOrOff !== 'off') throw new CliError(EXIT.usage, 'say "on" or "off"');
    const result = await withStore(flags, (store) =>
      setDownload(store, flipbookId, onOrOff === 'on', adminOf(flags), adminNow()),
    );
    if (flags.json) printJson(result);
    else process.stdout.write(`downloads ${onOrOff} for flipbook ${result.id}\n`);
  });
};
