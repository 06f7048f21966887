import type { Command } from 'commander';
import { printJson, printTable } from '../../../packages/cli/src/output.ts';
import {
  adminNow,
  adminOf,
  type StoreFlags,
  withStore,
  withStoreOptions,
} from '../storeOptions.ts';

export const registerWorkspace = (program: Command) => {
  const workspace = program.command('workspace').description('manage workspaces');

  withStoreOptions(
    workspace
      .command('create <name>')
      .description('create a workspace')
      .option('--plan <plan>', 'team or free', 'team')
      .option('--json', 'print JSON'),
  ).action(async (name: string, flags: StoreFlags & { plan: string; json?: boolean }) => {
    const { createWorkspace } = await import('../../app/workspaces.ts');
    const created = await withStore(flags, (store) =>
      createWorkspace(store, { name, plan: flags.plan }, adminOf(flags), adminNow()),
    );
    if (flags.json) printJson(created);
    else
      process.stdout.write(
        `created workspace ${created.name} (${created.plan} plan) ${created.id}\n`,
      );
  });

  withStoreOptions(
    workspace.command('list').description('list workspaces').option('--json', 'print JSON'),
  ).action(async (flags: StoreFlags & { json?: boolean }) => {
    const { listWorkspaces } = await import('../../app/workspaces.ts');
    const rows = await withStore(flags, listWorkspaces);
    if (flags.json) printJson(rows);
    else printTable(rows, ['name', 'plan', 'id', 'created_at']);
  });

  withStoreOptions(
    workspace
      .command('set-plan <name> <plan>')
      .description('move a workspace to another plan (team or free); issued keys keep working')
      .option('--json', 'print JSON'),
  ).action(async (name: string, plan: string, flags: StoreFlags & { json?: boolean }) => {
    const { changePlan } = await import('../../app/workspaces.ts');
    const changed = await withStore(flags, (store) =>
      changePlan(store, { name, plan }, adminOf(flags), adminNow()),
    );
    if (flags.json) printJson(changed);
    else process.stdout.write(`workspace ${changed.name} is on the ${changed.plan} plan\n`);
  });
};
