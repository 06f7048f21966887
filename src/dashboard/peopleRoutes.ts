// Members and Profile: the people of the workspace (owners manage them) and one's own account.
// The rules are the use cases' (src/app/accounts/): owners only, a workspace keeps an owner.
// One file (over 300 lines): the Members and Profile pages share the invitation and session helpers
// they declare their routes with.
import type { ServerResponse } from 'node:http';
import { popFlash, putFlash } from '../app/accounts/flash.ts';
import {
  changeMemberRole,
  changePassword,
  findPerson,
  invitationUrl,
  inviteUser,
  listMembers,
  removeMember,
  renewInvitation,
  requireOwner,
  revokeInvitation,
} from '../app/accounts/people.ts';
import { mySessions, revokeSession, type SignedIn } from '../app/accounts/sessions.ts';
import { AppError, NotFound } from '../domain/errors.ts';
import { isUuid } from '../domain/uuid.ts';
import { clientAddress } from '../http/rateLimit.ts';
import { redirect } from '../http/respond.ts';
import { queryOf, type Request } from '../http/server.ts';
import { type DashboardRoute, type Kit, signedInRoute } from './kit.ts';
import { noticeOf, noticeQuery } from './notices.ts';
import { type InvitationLink, membersPage, removeMemberPage } from './pages/members.ts';
import { profilePage } from './pages/profile.ts';
import { sendPage } from './request.ts';

export const peopleRoutes = (kit: Kit): DashboardRoute[] => {
  const declared: DashboardRoute[] = [];
  const { deps, context } = kit;
  const { store, clock } = deps;

  const showMembers = async (
    res: ServerResponse,
    signedIn: SignedIn,
    status = 200,
    notice: Parameters<typeof membersPage>[2] = {},
  ) =>
    sendPage(
      res,
      status,
      membersPage(signedIn, await listMembers(store, signedIn.workspace.id), notice),
    );

  /** A refusal the page shows in words (the last owner, a clash); anything else is an error page. */
  const shown = async (res: ServerResponse, signedIn: SignedIn, work: () => Promise<void>) => {
    try {
      await work();
    } catch (error) {
      if (
        !(error instanceof AppError) ||
        error.status === 404 ||
        error.status === 403 ||
        error.status >= 500
      )
        throw error;
      await showMembers(res, signedIn, error.status, { error: error.message });
    }
  };

  /** A member of this workspace by id; anyone else is unknown (isolation). */
  const memberOf = async (signedIn: SignedIn, id = '') => {
    const person = isUuid(id) ? await findPerson(store, id).catch(() => null) : null;
    if (!person || person.workspace_id !== signedIn.workspace.id)
      throw new NotFound('Member not found');
    return person;
  };

  declared.push(
    signedInRoute.page('/dashboard/members', async (req, res, signedIn) => {
      // A link just made (POST, redirect, here): shown on this page once.
      const link = (await popFlash(store, signedIn)) as InvitationLink | null;
      const ok = noticeOf(queryOf(req), 'members')?.text;
      await showMembers(res, signedIn, 200, {
        ...(link?.url ? { link } : {}),
        ...(ok ? { ok } : {}),
      });
    }),
  );

  const inviteAndShow = async (
    req: Request,
    res: ServerResponse,
    signedIn: SignedIn,
    invite: () => ReturnType<typeof inviteUser>,
    email: string,
  ) => {
    await shown(res, signedIn, async () => {
      const invitation = await invite();
      const url = await invitationUrl(store, invitation.token, deps.publicUrl());
      // Shown on the next page, once (the link is not kept, only its hash; a reload of this
      // answer must not invite again): sealed for this session until then.
      const link: InvitationLink = { email, url, reset: invitation.reset, role: invitation.role };
      await putFlash(store, signedIn, link);
      redirect(res, '/dashboard/members');
    });
    void req;
  };

  declared.push(
    signedInRoute.form('/dashboard/members/invite', async (req, res, signedIn, form) => {
      requireOwner(signedIn.person);
      const email = (form.get('email') ?? '').trim().toLowerCase();
      await inviteAndShow(
        req,
        res,
        signedIn,
        () =>
          inviteUser(
            store,
            { workspaceId: signedIn.workspace.id, email, role: form.get('role') ?? 'member' },
            signedIn.caller(context(req)).metadata,
            clock,
          ),
        email,
      );
    }),
  );

  declared.push(
    signedInRoute.form('/dashboard/invitations/:id/renew', async (req, res, signedIn) => {
      requireOwner(signedIn.person);
      const id = req.params.id ?? '';
      const pending = (await listMembers(store, signedIn.workspace.id)).invitations.find(
        (i) => i.id === id,
      );
      if (!pending) throw new NotFound('Invitation not found');
      await inviteAndShow(
        req,
        res,
        signedIn,
        () =>
          renewInvitation(
            store,
            { workspaceId: signedIn.workspace.id, invitationId: id },
            signedIn.caller(context(req)).metadata,
            clock,
          ),
        pending.email,
      );
    }),
  );

  declared.push(
    signedInRoute.form('/dashboard/invitations/:id/revoke', async (req, res, signedIn) => {
      requireOwner(signedIn.person);
      await revokeInvitation(
        store,
        { workspaceId: signedIn.workspace.id, invitationId: req.params.id ?? '' },
        signedIn.caller(context(req)).metadata,
        clock,
      );
      redirect(res, `/dashboard/members?${noticeQuery('invitation-revoked')}`);
    }),
  );

  declared.push(
    signedInRoute.form('/dashboard/members/:id/role', async (req, res, signedIn, form) => {
      requireOwner(signedIn.person);
      const member = await memberOf(signedIn, req.params.id);
      await shown(res, signedIn, async () => {
        await changeMemberRole(
          store,
          { workspaceId: signedIn.workspace.id, userId: member.id, role: form.get('role') ?? '' },
          signedIn.caller(context(req)).metadata,
          clock,
        );
        redirect(res, `/dashboard/members?${noticeQuery('role-changed')}`);
      });
    }),
  );

  declared.push(
    signedInRoute.page('/dashboard/members/:id/remove', async (req, res, signedIn) => {
      requireOwner(signedIn.person);
      sendPage(res, 200, removeMemberPage(signedIn, await memberOf(signedIn, req.params.id)));
    }),
  );

  declared.push(
    signedInRoute.form('/dashboard/members/:id/remove', async (req, res, signedIn) => {
      requireOwner(signedIn.person);
      const member = await memberOf(signedIn, req.params.id);
      try {
        await removeMember(
          store,
          { workspaceId: signedIn.workspace.id, userId: member.id },
          signedIn.caller(context(req)).metadata,
          clock,
        );
      } catch (error) {
        if (!(error instanceof AppError) || error.status !== 422) throw error;
        return sendPage(res, 422, removeMemberPage(signedIn, member, error.message));
      }
      redirect(
        res,
        member.id === signedIn.person.id
          ? '/login'
          : `/dashboard/members?${noticeQuery('member-removed')}`,
      );
    }),
  );

  const showProfile = async (
    res: ServerResponse,
    signedIn: SignedIn,
    status = 200,
    notice: Parameters<typeof profilePage>[2] = {},
  ) =>
    sendPage(
      res,
      status,
      profilePage(
        signedIn,
        await mySessions(store, signedIn, clock),
        notice,
        await kit.profileExtras(signedIn),
      ),
    );

  declared.push(
    signedInRoute.page('/dashboard/profile', async (req, res, signedIn) =>
      showProfile(res, signedIn, 200, {
        ok: noticeOf(queryOf(req), 'profile')?.text ?? null,
      }),
    ),
  );

  declared.push(
    signedInRoute.form('/dashboard/profile/password', async (req, res, signedIn, form) => {
      try {
        await changePassword(
          store,
          {
            userId: signedIn.person.id,
            sessionId: signedIn.sessionId,
            current: form.get('current') ?? '',
            next: form.get('next') ?? '',
            address: clientAddress(req, kit.deps.trustProxy),
          },
          signedIn.caller(context(req)).metadata,
          clock,
        );
      } catch (error) {
        if (!(error instanceof AppError) || (error.status !== 400 && error.status !== 429)) {
          throw error;
        }
        return showProfile(res, signedIn, error.status, { error: error.message });
      }
      // post/redirect/get: a reload shows the page again, it does not send the form again
      redirect(res, `/dashboard/profile?${noticeQuery('password-changed')}`);
    }),
  );

  // Registered before `:id/revoke`'s pattern could take it: every session but this one, each
  // revoked as one would be by hand (an event each, in the person's trail).
  declared.push(
    signedInRoute.form('/dashboard/profile/sessions/revoke-others', async (req, res, signedIn) => {
      for (const session of await mySessions(store, signedIn, clock)) {
        if (session.session_id === signedIn.sessionId) continue;
        await revokeSession(store, signedIn, session.session_id, context(req), clock).catch(
          (error: unknown) => {
            // ended meanwhile (expired, signed out): nothing left to do for it
            if (!(error instanceof NotFound)) throw error;
          },
        );
      }
      redirect(res, `/dashboard/profile?${noticeQuery('sessions-revoked')}`);
    }),
  );

  declared.push(
    signedInRoute.form('/dashboard/profile/sessions/:id/revoke', async (req, res, signedIn) => {
      await revokeSession(store, signedIn, req.params.id ?? '', context(req), clock);
      redirect(res, `/dashboard/profile?${noticeQuery('session-revoked')}`);
    }),
  );
  return declared;
};
