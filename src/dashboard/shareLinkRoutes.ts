// A flipbook's share links in the dashboard (/dashboard/flipbooks/:id/links): each form → the
// API's own use case (src/app/shareLinks.ts) → redirect, or the page again with the refusal in
// words. A new link's URL waits sealed for this session (flash) and is shown once after the
// redirect. Who may read the flipbook (the visibility form on its page) is ./flipbookRoutes.ts's;
// one link's page (its rules, its readers) is ./linkPageRoutes.ts's.
import type { ServerResponse } from 'node:http';
import { popFlash, putFlash } from '../app/accounts/flash.ts';
import type { SignedIn } from '../app/accounts/sessions.ts';
import { getFlipbook } from '../app/flipbooks.ts';
import { type MailState, mailState } from '../app/mailStatus.ts';
import { shareLinksOf } from '../app/shareLinks.ts';
import { AppError, NotFound } from '../domain/errors.ts';
import { isUuid } from '../domain/uuid.ts';
import { redirect } from '../http/respond.ts';
import { queryOf, type Request } from '../http/server.ts';
import { flipbookView, idOf } from './flipbookView.ts';
import { type DashboardRoute, type Kit, signedInRoute } from './kit.ts';
import { linkPageRoutes } from './linkPageRoutes.ts';
import { inFormWords, NO_RULES, readRules } from './linkRulesForm.ts';
import { type LinkDraft, type ShareLinksState, shareLinksPage } from './pages/shareLinks.ts';
import { sendPage } from './request.ts';

export const shareLinkRoutes = (kit: Kit): DashboardRoute[] => {
  const declared: DashboardRoute[] = [];
  const { deps } = kit;
  const mailConfigured = deps.mailConfigured === true;
  const { caller } = flipbookView(kit);
  const linksOf = (req: Request, signedIn: SignedIn) =>
    shareLinksOf(deps, caller(req, signedIn), idOf(req));

  const show = async (
    req: Request,
    res: ServerResponse,
    signedIn: SignedIn,
    status: number,
    state: Omit<ShareLinksState, keyof MailState>,
  ) => {
    const flipbook = await getFlipbook(deps, caller(req, signedIn), idOf(req));
    const { links } = await linksOf(req, signedIn).list();
    const mail = await mailState(deps);
    sendPage(res, status, shareLinksPage(signedIn, flipbook, links, { ...state, ...mail }));
  };

  declared.push(
    signedInRoute.page('/dashboard/flipbooks/:id/links', async (req, res, signedIn) => {
      const flash = (await popFlash(deps.store, signedIn)) as {
        newLink?: { label: string; url: string; flipbookId: string };
      } | null;
      const created = flash?.newLink?.flipbookId === idOf(req) ? flash.newLink : undefined;
      const revoked = queryOf(req).get('revoked') === '1';
      await show(req, res, signedIn, 200, {
        ...(created ? { created: { label: created.label, url: created.url } } : {}),
        ...(revoked ? { notice: 'The link is revoked: it no longer opens the flipbook.' } : {}),
      });
    }),
  );

  declared.push(
    signedInRoute.form('/dashboard/flipbooks/:id/links', async (req, res, signedIn, form) => {
      const id = idOf(req);
      const { draft: rules, rules: rulesBody } = readRules(form, NO_RULES, mailConfigured);
      const draft: LinkDraft = {
        label: form.get('label') ?? '',
        expires: form.get('expires') ?? '',
        allowDownload: form.get('allow_download') === 'true',
        rules,
        error: '',
      };
      const password = form.get('password') ?? '';
      try {
        if (draft.expires !== '' && !/^\d{4}-\d{2}-\d{2}$/.test(draft.expires)) {
          throw new AppError(400, 'Give the expiry as a date, or leave it empty');
        }
        const made = await linksOf(req, signedIn).create({
          label: draft.label,
          ...(draft.expires ? { expires_at: `${draft.expires}T00:00:00Z` } : {}),
          ...(password ? { password } : {}),
          allow_download: draft.allowDownload,
          ...rulesBody(),
        });
        await putFlash(deps.store, signedIn, {
          newLink: { label: made.label, url: made.url, flipbookId: id },
        });
      } catch (error) {
        if (!(error instanceof AppError) || error.status === 404 || error.status >= 500)
          throw error;
        return show(req, res, signedIn, error.status, {
          draft: { ...draft, error: inFormWords(error.message) },
        });
      }
      redirect(res, `/dashboard/flipbooks/${id}/links`);
    }),
  );

  declared.push(
    signedInRoute.form(
      '/dashboard/flipbooks/:id/links/:linkId/revoke',
      async (req, res, signedIn) => {
        const id = idOf(req);
        const linkId = req.params.linkId ?? '';
        if (!isUuid(linkId)) throw new NotFound('Share link not found');
        await linksOf(req, signedIn).revoke(linkId);
        redirect(res, `/dashboard/flipbooks/${id}/links?revoked=1`);
      },
    ),
  );
  declared.push(...linkPageRoutes(kit));
  return declared;
};
