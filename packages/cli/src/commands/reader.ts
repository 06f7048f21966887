// `flipbook reader forget EMAIL`: erases what the workspace keeps of an identified reader (issue
// 44; docs/privacy.md): their address goes from every link's readers and allow lists, their
// figures stay without a name. The address is checked by the server's own rule first (exit 2).
import type { Command } from 'commander';
import { readerEmail } from '../../../../src/domain/readerEmail.ts';
import { apiClient } from '../client/apiClient.ts';
import { CliError, EXIT } from '../client/cliErrors.ts';
import { type ClientFlags, connectionFrom, withClientOptions } from '../clientOptions.ts';
import { erasedWords } from '../linkWords.ts';
import { printJson, safe } from '../output.ts';

export const registerReader = (program: Command) => {
  const reader = program
    .command('reader')
    .description('the readers who gave their address at share links (docs/privacy.md)');

  withClientOptions(
    reader
      .command('forget <email>')
      .description(
        "erase a reader: their address goes from every share link's readers and allow lists",
      ),
  ).action(async (email: string, flags: ClientFlags) => {
    try {
      readerEmail(email, `"${safe(email)}"`);
    } catch (error) {
      throw new CliError(EXIT.usage, (error as Error).message);
    }
    const done = await apiClient(await connectionFrom(flags)).forgetReader(email.trim());
    if (flags.json) return printJson(done);
    process.stdout.write(erasedWords(done.erased));
  });
};
