import type { Command } from 'commander';
import { issueApiKey, listApiKeys, revokeApiKey } from '../../app/apiKeys.ts';
import { printJson, printTable } from '../output.ts';
import { adminOf, type StoreFlags, withStore, withStoreOptions } from '../storeOptions.ts';

export const registerKey = (program: Command) => {
  const key = program.command('key').description('manage API keys (Team plan)');

  withStoreOptions(
    key
      .command('create')
      .description('issue an API key; it is printed once and only its SHA-256 is kept')
      .requiredOption('--workspace <name>', 'workspace name')
      .option('--expires <iso8601>', 'expiry date or date-time')
      .option('--name <label>', 'a label to recognise the key by')
      .option('--json', 'print JSON: {"id","key","workspace","expires_at"}'),
  ).action(
    async (
      flags: StoreFlags & { workspace: string; expires?: string; name?: string; json?: boolean },
    ) => {
      const issued = await withStore(flags, (store) =>
        issueApiKey(
          store,
          {
            workspace: flags.workspace,
            expires: flags.expires,
            label: flags.name,
          },
          adminOf(flags),
        ),
      );
      if (flags.json) {
        printJson(issued);
        return;
      }
      process.stdout.write(`${issued.key}\n`);
      process.stderr.write(
        `key ${issued.id} for workspace ${issued.workspace}` +
          (issued.expires_at ? `, expires ${issued.expires_at}` : '') +
          '\nStore it now: it cannot be shown again.\n',
      );
    },
  );

  withStoreOptions(
    key
      .command('list')
      .description("list a workspace's keys (never the keys themselves)")
      .requiredOption('--workspace <name>', 'workspace name')
      .option('--json', 'print JSON'),
  ).action(async (flags: StoreFlags & { workspace: string; json?: boolean }) => {
    const rows = await withStore(flags, (store) => listApiKeys(store, flags.workspace));
    if (flags.json) printJson(rows);
    else printTable(rows, ['id', 'label', 'created_at', 'expires_at', 'revoked_at']);
  });

  withStoreOptions(key.command('revoke <id>').description('revoke an API key by its id')).action(
    async (id: string, flags: StoreFlags) => {
      await withStore(flags, (store) => revokeApiKey(store, id, adminOf(flags)));
      process.stdout.write(`revoked key ${id}\n`);
    },
  );
};
