import type { Command } from 'commander';
import {
  type JsonStoreFlags,
  printResult,
  printRows,
  withJsonStoreOptions,
} from '../jsonOption.ts';
import { actAsAdmin, withStore } from '../storeOptions.ts';

export const registerWorkspace = (program: Command) => {
  const workspace = program.command('workspace').description('manage workspaces');

  withJsonStoreOptions(
    workspace
      .command('create <name>')
      .description('create a workspace')
      .option('--plan <plan>', 'team or free', 'team'),
  ).action(async (name: string, flags: JsonStoreFlags & { plan: string }) => {
    const { createWorkspace } = await import('../../app/workspaces.ts');
    const created = await actAsAdmin(flags, (store, admin, now) =>
      createWorkspace(store, { name, plan: flags.plan }, admin, now),
    );
    printResult(
      flags,
      created,
      `created workspace ${created.name} (${created.plan} plan) ${created.id}`,
    );
  });

  withJsonStoreOptions(workspace.command('list').description('list workspaces')).action(
    async (flags: JsonStoreFlags) => {
      const { listWorkspaces } = await import('../../app/workspaces.ts');
      printRows(flags, await withStore(flags, listWorkspaces), [
        'name',
        'plan',
        'id',
        'created_at',
      ]);
    },
  );

  withJsonStoreOptions(
    workspace
      .command('set-plan <name> <plan>')
      .description('move a workspace to another plan (team or free); issued keys keep working'),
  ).action(async (name: string, plan: string, flags: JsonStoreFlags) => {
    const { changePlan } = await import('../../app/workspaces.ts');
    const changed = await actAsAdmin(flags, (store, admin, now) =>
      changePlan(store, { name, plan }, admin, now),
    );
    printResult(flags, changed, `workspace ${changed.name} is on the ${changed.plan} plan`);
  });
};
