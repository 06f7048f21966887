// `flipbook share`: a flipbook's share links over the API (docs/access.md): create (its URL is
// printed once), list (how often each was opened; never a token), revoke.
import type { Command } from 'commander';
import { apiClient } from '../client/apiClient.ts';
import { ApiError } from '../client/cliErrors.ts';
import { type ClientFlags, connectionFrom, withClientOptions } from '../clientOptions.ts';
import { printJson, printTable, safe } from '../output.ts';
import { flagExpires, flagLabel, flagPassword, inShareFlagWords } from '../shareFlags.ts';

export const registerShare = (program: Command) => {
  const share = program
    .command('share')
    .description("a flipbook's share links: one URL per recipient (docs/access.md)");

  withClientOptions(
    share
      .command('create <flipbookId> <label>')
      .description('create a share link for a recipient (the label); prints its URL, once')
      .option('--expires <when>', 'when it stops working: a date-time, or days from now (30d)')
      .option(
        '--password-stdin',
        'read a password the reader must give from standard input (its first line)',
      )
      .option('--no-download', 'no download of the PDF through this link'),
  ).action(
    async (
      flipbookId: string,
      label: string,
      flags: ClientFlags & { expires?: string; passwordStdin?: boolean; download: boolean },
    ) => {
      const name = flagLabel(label);
      const expires = flagExpires(flags.expires, new Date());
      let password: string | undefined;
      if (flags.passwordStdin) {
        const chunks: Buffer[] = [];
        for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
        password = flagPassword(Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '');
      }
      const made = await apiClient(await connectionFrom(flags))
        .links.create(flipbookId, {
          label: name,
          ...(expires ? { expires_at: expires } : {}),
          ...(password !== undefined ? { password } : {}),
          ...(flags.download === false ? { allow_download: false } : {}),
        })
        .catch((error: unknown) => {
          // What the server still refuses (its clock ahead of ours, a newer rule), in our words.
          if (error instanceof ApiError && error.status === 400) {
            throw new ApiError(400, inShareFlagWords(error.message));
          }
          throw error;
        });
      if (flags.json) return printJson(made);
      process.stdout.write(
        `Share link ${made.id} for ${safe(made.label)}${made.expires_at ? `, until ${made.expires_at}` : ''}${made.has_password ? ', with a password' : ''}.\n` +
          `Its URL, shown this once:\n${made.url}\n`,
      );
    },
  );

  withClientOptions(
    share.command('list <flipbookId>').description("list a flipbook's share links"),
  ).action(async (flipbookId: string, flags: ClientFlags) => {
    const listed = await apiClient(await connectionFrom(flags)).links.list(flipbookId);
    if (flags.json) return printJson(listed);
    printTable(
      listed.links.map((l) => ({
        id: l.id,
        label: l.label,
        expires: l.expired ? 'expired' : (l.expires_at ?? 'never'),
        password: l.has_password ? 'yes' : 'no',
        download: l.allow_download ? 'yes' : 'no',
        opens: l.opens,
      })),
      ['id', 'label', 'expires', 'password', 'download', 'opens'],
    );
  });

  withClientOptions(
    share
      .command('revoke <flipbookId> <linkId>')
      .description('revoke a share link: it stops working at once, also for pages already open'),
  ).action(async (flipbookId: string, linkId: string, flags: ClientFlags) => {
    const done = await apiClient(await connectionFrom(flags)).links.revoke(flipbookId, linkId);
    if (flags.json) return printJson(done);
    process.stdout.write(`revoked share link ${linkId}\n`);
  });
};
