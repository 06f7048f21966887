// Publishing commands that manage a flipbook after publishing: edit, archive, unarchive, delete
// (over the API's PATCH and DELETE /flipbooks/:id; docs/cli.md).
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { apiClient, type FlipbookEdits } from '../client/apiClient.ts';
import { CliError, EXIT } from '../client/cliErrors.ts';
import { type ClientFlags, connectionFrom, withClientOptions } from '../clientOptions.ts';
import { flagDirection, flagVisibility } from '../fieldFlags.ts';
import { safe } from '../output.ts';
import { printReader } from '../printReader.ts';
import { stateWord } from '../readerWords.ts';

const edit = async (flipbookId: string, edits: FlipbookEdits, flags: ClientFlags) => {
  const client = apiClient(await connectionFrom(flags));
  const book = await client.edit(flipbookId, edits);
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(book)}\n`);
    return;
  }
  process.stdout.write(
    `${safe(book.title)} (${stateWord(book)}, ${book.visibility}, slug ${safe(book.slug)})\n`,
  );
  await printReader(client, book);
};

export const registerManage = (program: Command) => {
  withClientOptions(
    program
      .command('edit <flipbookId>')
      .description(
        "change a flipbook's title, slug, description, reading direction, downloads or who may read it",
      )
      .option('--title <title>', 'the new title')
      .option('--slug <slug>', 'the new slug (lowercase words joined by hyphens)')
      .option('--description <text>', 'the new description ("" clears it)')
      .option('--download <onOrOff>', 'let readers download the PDF: on or off')
      .option('--direction <direction>', 'reading direction: ltr, rtl or auto (as the PDF says)')
      .option(
        '--visibility <who>',
        'who may read it: public, workspace (members, signed in) or links (share links only)',
      )
      .option(
        '--embed-origins <sites>',
        'the sites that may frame its reader, comma-separated (https://example.com); "" for the default',
      ),
  ).action(
    async (
      flipbookId: string,
      flags: ClientFlags & {
        title?: string;
        slug?: string;
        description?: string;
        download?: string;
        direction?: string;
        visibility?: string;
        embedOrigins?: string;
      },
    ) => {
      const edits: FlipbookEdits = {};
      if (flags.title !== undefined) edits.title = flags.title;
      if (flags.slug !== undefined) edits.slug = flags.slug;
      if (flags.description !== undefined) edits.description = flags.description;
      if (flags.download !== undefined) {
        if (flags.download !== 'on' && flags.download !== 'off') {
          throw new CliError(
            EXIT.usage,
            `--download must be "on" or "off", got "${flags.download}"`,
          );
        }
        edits.allow_download = flags.download === 'on';
      }
      if (flags.direction !== undefined) edits.direction = flagDirection(flags.direction);
      if (flags.visibility !== undefined) edits.visibility = flagVisibility(flags.visibility);
      if (flags.embedOrigins !== undefined) {
        edits.embed_origins = flags.embedOrigins
          .split(',')
          .map((o) => o.trim())
          .filter(Boolean);
      }
      if (Object.keys(edits).length === 0) {
        throw new CliError(
          EXIT.usage,
          'nothing to change: give --title, --slug, --description, --direction, --download, --visibility or --embed-origins',
        );
      }
      await edit(flipbookId, edits, flags);
    },
  );

  withClientOptions(
    program
      .command('archive <flipbookId>')
      .description(
        'take a flipbook off the web (its link says it is not available) without deleting it',
      ),
  ).action((flipbookId: string, flags: ClientFlags) =>
    edit(flipbookId, { status: 'archived' }, flags),
  );

  withClientOptions(
    program
      .command('unarchive <flipbookId>')
      .description('put an archived flipbook back on the web, at the same link'),
  ).action((flipbookId: string, flags: ClientFlags) =>
    edit(flipbookId, { status: 'published' }, flags),
  );

  withClientOptions(
    program
      .command('delete <flipbookId>')
      .description('delete a flipbook for good: its versions and files (its audit trail stays)')
      .option('--yes', 'do not ask (required when not on a terminal)'),
  ).action(async (flipbookId: string, flags: ClientFlags & { yes?: boolean }) => {
    if (!flags.yes) {
      if (!process.stdin.isTTY || !process.stderr.isTTY) {
        throw new CliError(EXIT.usage, 'refusing to delete without --yes when not on a terminal');
      }
      const prompt = createInterface({ input: process.stdin, output: process.stderr });
      // Ctrl-C at the prompt is an interruption (exit 130), Ctrl-D a "no"; neither deletes.
      const interrupted = new CliError(EXIT.interrupted, 'Interrupted');
      const answer = await new Promise<string>((resolve, reject) => {
        prompt.once('SIGINT', () => reject(interrupted));
        prompt.once('close', () => resolve(''));
        prompt
          .question(`Delete flipbook ${flipbookId} and all its versions for good? [y/N] `)
          .then(resolve, (error: Error) =>
            reject(error.name === 'AbortError' ? interrupted : error),
          );
      }).finally(() => prompt.close());
      if (!/^y(es)?$/i.test(answer.trim())) {
        throw new CliError(EXIT.failure, 'not deleted');
      }
    }
    const result = await apiClient(await connectionFrom(flags)).deleteFlipbook(flipbookId);
    if (flags.json) process.stdout.write(`${JSON.stringify(result)}\n`);
    else process.stdout.write(`deleted flipbook ${flipbookId}\n`);
  });
};
