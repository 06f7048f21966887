// People of the dashboard, for the operator: invite (prints a single-use link), list, remove.
import type { Command } from 'commander';
import {
  type JsonStoreFlags,
  printResult,
  printRows,
  withJsonStoreOptions,
} from '../jsonOption.ts';
import { adminClock, adminOf, withStore } from '../storeOptions.ts';

export const registerUser = (program: Command) => {
  const user = program
    .command('user')
    .description('manage the people who sign in to the dashboard');

  withJsonStoreOptions(
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
      ),
    'print JSON: { "url", "expires_at", ... }',
  ).action(
    async (
      email: string,
      flags: JsonStoreFlags & { workspace: string; role: string; publicUrl?: string },
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
      printResult(
        flags,
        made,
        made.reset
          ? `${made.email} is already a member of ${made.workspace} (${made.role}): this link lets them choose a new password (valid until ${made.expires_at}, usable once):\n${made.url}`
          : `Invitation for ${made.email} to ${made.workspace} (valid until ${made.expires_at}, usable once):\n${made.url}`,
      );
    },
  );

  withJsonStoreOptions(
    user.command('list').description('list the people of every workspace'),
  ).action(async (flags: JsonStoreFlags) => {
    const { listAllUsers } = await import('../../app/accounts/people.ts');
    const rows = (await withStore(flags, listAllUsers)).map((u) => ({
      email: u.email,
      workspace: u.workspace,
      role: u.role,
      id: u.id,
      created_at: u.created_at,
      password: u.password_credential_id ? 'set' : 'none',
    }));
    printRows(flags, rows, ['email', 'workspace', 'role', 'password', 'id', 'created_at']);
  });

  withJsonStoreOptions(
    user
      .command('remove <email-or-id>')
      .description(
        'remove someone from their workspace (their sessions end at once; the last owner stays)',
      ),
  ).action(async (who: string, flags: JsonStoreFlags) => {
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
    printResult(flags, removed, `removed ${removed.email}`);
  });
};
