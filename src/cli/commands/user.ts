// People of the dashboard, for the operator: invite (prints a single-use link), list, remove.
import type { Command } from 'commander';
import { printJson, printTable } from '../../../packages/cli/src/output.ts';
import {
  adminClock,
  adminOf,
  type StoreFlags,
  withStore,
  withStoreOptions,
} from '../storeOptions.ts';

export const registerUser = (program: Command) => {
  const user = program
    .command('user')
    .description('manage the people who sign in to the dashboard');

  withStoreOptions(
    user
      .command('invite <email>')
      .description(
        'print a single-use link (valid 24 h) with which EMAIL joins the workspace and chooses a password; for someone already a member, a link to choose a new one',
      )
      .requiredOption('--workspace <name>', 'the workspace to join')
      .option('--role <role>', 'owner or member', 'member')
      .option(
        '--public-url <url>',
        'base of the link (default: the URL the daemon last served under)',
      )
      .option('--json', 'print JSON: { "url", "expires_at", ... }'),
  ).action(
    async (
      email: string,
      flags: StoreFlags & { workspace: string; role: string; publicUrl?: string; json?: boolean },
    ) => {
      const { invitationUrl, inviteUser } = await import('../../app/accounts/people.ts');
      const { requireWorkspace } = await import('../../app/workspaces.ts');
      const made = await withStore(flags, async (store) => {
        const workspace = await requireWorkspace(store, flags.workspace);
        const invitation = await inviteUser(
          store,
          { workspaceId: workspace.id, email, role: flags.role },
          adminOf(flags),
          adminClock(),
        );
        return {
          url: await invitationUrl(store, invitation.token, flags.publicUrl),
          expires_at: invitation.expiresAt,
          invitation_id: invitation.invitationId,
          workspace: workspace.name,
          email: email.trim().toLowerCase(),
          role: invitation.role,
          reset: invitation.reset,
        };
      });
      if (flags.json) printJson(made);
      else
        process.stdout.write(
          made.reset
            ? `${made.email} is already a member of ${made.workspace} (${made.role}): this link lets them choose a new password (valid until ${made.expires_at}, usable once):\n${made.url}\n`
            : `Invitation for ${made.email} to ${made.workspace} (valid until ${made.expires_at}, usable once):\n${made.url}\n`,
        );
    },
  );

  withStoreOptions(
    user
      .command('list')
      .description('list the people of every workspace')
      .option('--json', 'print JSON'),
  ).action(async (flags: StoreFlags & { json?: boolean }) => {
    const { listAllUsers } = await import('../../app/accounts/people.ts');
    const rows = (await withStore(flags, listAllUsers)).map((u) => ({
      email: u.email,
      workspace: u.workspace,
      role: u.role,
      id: u.id,
      created_at: u.created_at,
      password: u.password_credential_id ? 'set' : 'none',
    }));
    if (flags.json) printJson(rows);
    else printTable(rows, ['email', 'workspace', 'role', 'password', 'id', 'created_at']);
  });

  withStoreOptions(
    user
      .command('remove <email-or-id>')
      .description(
        'remove someone from their workspace (their sessions end at once; the last owner stays)',
      )
      .option('--json', 'print JSON'),
  ).action(async (who: string, flags: StoreFlags & { json?: boolean }) => {
    const { findPerson, removeMember } = await import('../../app/accounts/people.ts');
    const removed = await withStore(flags, async (store) => {
      const person = await findPerson(store, who);
      await removeMember(
        store,
        { workspaceId: person.workspace_id, userId: person.id },
        adminOf(flags),
        adminClock(),
      );
      return { id: person.id, email: person.email, removed: true };
    });
    if (flags.json) printJson(removed);
    else process.stdout.write(`removed ${removed.email}\n`);
  });
};
