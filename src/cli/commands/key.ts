import type { Command } from 'commander';
import { CliError, EXIT } from '../../../packages/cli/src/client/cliErrors.ts';
import { printJson, printTable } from '../../../packages/cli/src/output.ts';
import type { ApiKeyListing } from '../../app/apiKeys.ts';
import { flagDuration } from '../flagDuration.ts';
import { type JsonStoreFlags, withJsonStoreOptions } from '../jsonOption.ts';
import {
  actAsAdmin,
  adminNow,
  type StoreFlags,
  withStore,
  withStoreOptions,
} from '../storeOptions.ts';

type CreateFlags = JsonStoreFlags & {
  workspace: string;
  expires?: string;
  expiresIn?: string;
  name?: string;
};

export const registerKey = (program: Command) => {
  const key = program.command('key').description('manage API keys (Team plan)');

  withJsonStoreOptions(
    key
      .command('create')
      .description('issue an API key; it is printed once and only its SHA-256 is kept')
      .requiredOption('--workspace <name>', 'workspace name')
      .option('--expires <iso8601>', 'expiry date or date-time')
      .option('--expires-in <days>', 'or a lifetime: 30d, 90d, 365d, ...')
      .option('--name <label>', 'a label to recognise the key by'),
    'print JSON: {"id","key","workspace","expires_at"}',
  ).action(async (flags: CreateFlags) => {
    const { issueApiKey } = await import('../../app/apiKeys.ts');
    if (flags.expires !== undefined && flags.expiresIn !== undefined) {
      throw new CliError(EXIT.usage, 'give --expires or --expires-in, not both');
    }
    const expiresInMs =
      flags.expiresIn === undefined ? undefined : flagDuration('--expires-in', flags.expiresIn);
    if (expiresInMs === 0) throw new CliError(EXIT.usage, '--expires-in must be more than 0');
    const issued = await actAsAdmin(flags, (store, admin, now) =>
      issueApiKey(
        store,
        { workspace: flags.workspace, expires: flags.expires, expiresInMs, label: flags.name },
        admin,
        now,
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
  });

  withJsonStoreOptions(
    key
      .command('list')
      .description("list a workspace's keys (never the keys themselves)")
      .requiredOption('--workspace <name>', 'workspace name'),
  ).action(async (flags: JsonStoreFlags & { workspace: string }) => {
    const { listApiKeys } = await import('../../app/apiKeys.ts');
    const rows = await withStore(flags, (store) => listApiKeys(store, flags.workspace, adminNow()));
    if (flags.json) printJson(rows);
    else printTable(rows.map(tableRow), COLUMNS);
  });

  withJsonStoreOptions(
    key
      .command('roll <id>')
      .description('replace a key by a new one with the same name; the old one works for --grace')
      .requiredOption('--grace <duration>', 'how long the old key keeps working: 0, 1h, 24h, 7d'),
    'print JSON: {"id","key","workspace","expires_at","rolled_from",...}',
  ).action(async (id: string, flags: JsonStoreFlags & { grace: string }) => {
    const { rollApiKey } = await import('../../app/apiKeys.ts');
    const graceMs = flagDuration('--grace', flags.grace);
    const rolled = await actAsAdmin(flags, (store, admin, now) =>
      rollApiKey(store, { keyId: id, graceMs }, admin, now),
    );
    if (flags.json) {
      printJson(rolled);
      return;
    }
    process.stdout.write(`${rolled.key}\n`);
    process.stderr.write(
      `key ${rolled.id} replaces ${rolled.rolled_from} for workspace ${rolled.workspace}` +
        (rolled.expires_at ? `, expires ${rolled.expires_at}` : '') +
        `\nThe old key works until ${rolled.old_key_valid_until}.` +
        '\nStore the new one now: it cannot be shown again.\n',
    );
  });

  withStoreOptions(key.command('revoke <id>').description('revoke an API key by its id')).action(
    async (id: string, flags: StoreFlags) => {
      const { revokeApiKey } = await import('../../app/apiKeys.ts');
      await actAsAdmin(flags, (store, admin, now) =>
        revokeApiKey(store, { keyId: id }, admin, now),
      );
      process.stdout.write(`revoked key ${id}\n`);
    },
  );
};

const COLUMNS = [
  'id',
  'name',
  'fingerprint',
  'created by',
  'created at',
  'expires',
  'last used',
  'status',
];

const tableRow = (k: ApiKeyListing) => ({
  id: k.id,
  name: k.label,
  fingerprint: k.fingerprint,
  'created by':
    'id' in k.created_by ? `${k.created_by.type}:${k.created_by.id}` : k.created_by.type,
  'created at': k.created_at,
  expires: k.expires_at ?? 'never',
  'last used': k.last_used_at ?? 'never',
  status: k.status === 'rolled' ? `rolled until ${k.valid_until}` : k.status,
});
