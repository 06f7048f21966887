// `flipbook share`: a flipbook's share links over the API (docs/access.md): create (its URL is
// printed once), edit, list (how often each was opened; never a token), revoke, and readers
// (./shareReaders.ts). What a link asks of its readers: ../readerFlags.ts.
import type { Command } from 'commander';
import { apiClient } from '../client/apiClient.ts';
import { ApiError, CliError, EXIT } from '../client/cliErrors.ts';
import { type ClientFlags, connectionFrom, withClientOptions } from '../clientOptions.ts';
import { linkAsksColumn, linkSummary } from '../linkWords.ts';
import { printJson, printTable } from '../output.ts';
import { type ReaderFlags, readerRules, withReaderOptions } from '../readerFlags.ts';
import { flagExpires, flagLabel, flagPassword, inShareFlagWords } from '../shareFlags.ts';
import { registerShareReaders } from './shareReaders.ts';

/** What the server still refuses (its clock ahead of ours, a newer rule, no mail), in our words. */
const inOurWords = (error: unknown): never => {
  if (error instanceof ApiError && (error.status === 400 || error.status === 422)) {
    throw new ApiError(error.status, inShareFlagWords(error.message));
  }
  throw error;
};

export const registerShare = (program: Command) => {
  const share = program
    .command('share')
    .description("a flipbook's share links: one URL per recipient (docs/access.md)");

  withClientOptions(
    withReaderOptions(
      share
        .command('create <flipbookId> <label>')
        .description('create a share link for a recipient (the label); prints its URL, once')
        .option('--expires <when>', 'when it stops working: a date-time, or days from now (30d)')
        .option(
          '--password-stdin',
          'read a password the reader must give from standard input (its first line)',
        )
        .option('--no-download', 'no download of the PDF through this link'),
      false,
    ),
  ).action(
    async (
      flipbookId: string,
      label: string,
      flags: ClientFlags &
        ReaderFlags & { expires?: string; passwordStdin?: boolean; download: boolean },
    ) => {
      const name = flagLabel(label);
      const expires = flagExpires(flags.expires, new Date());
      if (flags.passwordStdin && flags.termsFile === '-') {
        throw new CliError(
          EXIT.usage,
          '--password-stdin and --terms-file - both read standard input: give the terms in a file',
        );
      }
      const rules = await readerRules(flags, true);
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
          ...rules,
        })
        .catch(inOurWords);
      if (flags.json) return printJson(made);
      process.stdout.write(`${linkSummary(made)}Its URL, shown this once:\n${made.url}\n`);
    },
  );

  withClientOptions(
    withReaderOptions(
      share
        .command('edit <flipbookId> <linkId>')
        .description(
          'change a share link: its label, expiry, downloads and what it asks of readers (same URL)',
        )
        .option('--label <label>', 'who it is for')
        .option('--expires <when>', 'when it stops working: a date-time, or days from now (30d)')
        .option('--no-expires', 'it never stops working')
        .option('--download', 'downloads of the PDF as the flipbook allows')
        .option('--no-download', 'no download of the PDF through this link'),
      true,
    ),
  ).action(
    async (
      flipbookId: string,
      linkId: string,
      flags: ClientFlags &
        ReaderFlags & { label?: string; expires?: string | false; download?: boolean },
    ) => {
      const edits = {
        ...(flags.label !== undefined ? { label: flagLabel(flags.label) } : {}),
        ...(flags.expires === false ? { expires_at: null } : {}),
        ...(typeof flags.expires === 'string'
          ? { expires_at: flagExpires(flags.expires, new Date()) }
          : {}),
        ...(flags.download !== undefined ? { allow_download: flags.download } : {}),
        ...(await readerRules(flags, false)),
      };
      if (Object.keys(edits).length === 0) {
        throw new CliError(
          EXIT.usage,
          'Nothing to change: give --label, --expires, --download, --identify, --terms-file, --allow, --watermark or --notify (or their --no- forms)',
        );
      }
      const link = await apiClient(await connectionFrom(flags))
        .links.edit(flipbookId, linkId, edits)
        .catch(inOurWords);
      if (flags.json) return printJson(link);
      process.stdout.write(linkSummary(link));
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
        asks: linkAsksColumn(l),
        opens: l.opens,
        readers: l.readers,
      })),
      ['id', 'label', 'expires', 'password', 'download', 'asks', 'opens', 'readers'],
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

  registerShareReaders(share);
};
