// One share link's page (./pages/shareLink.ts; issue 44): its readers (listLinkReaders, the same
// use case as the API's GET …/readers), their CSV, and the form that changes its reader rules
// (the API's own edit use case) → redirect, or the page again with the refusal in words. Another
// workspace's link, a revoked one, a malformed id: the same 404.
import type { ServerResponse } from 'node:http';
import type { SignedIn } from '../app/accounts/sessions.ts';
import { getFlipbook } from '../app/flipbooks.ts';
import { type MailState, mailState } from '../app/mailStatus.ts';
import { listLinkReaders, readersCsv } from '../app/readerFigures.ts';
import { shareLinksOf } from '../app/shareLinks.ts';
import type { ShareLink } from '../contract/shareLinks.ts';
import { AppError, NotFound } from '../domain/errors.ts';
import { isUuid } from '../domain/uuid.ts';
import { redirect } from '../http/respond.ts';
import { queryOf, type Request } from '../http/server.ts';
import { flipbookView, idOf } from './flipbookView.ts';
import { type DashboardRoute, type Kit, signedInRoute } from './kit.ts';
import { inFormWords, readRules, rulesOfLink } from './linkRulesForm.ts';
import { type ShareLinkState, shareLinkPage } from './pages/shareLink.ts';
import { sendCsv, sendPage } from './request.ts';

const linkIdOf = (req: Request) => {
  const linkId = req.params.linkId ?? '';
  if (!isUuid(linkId)) throw new NotFound('Share link not found');
  return linkId.toLowerCase();
};

export const linkPageRoutes = (kit: Kit): DashboardRoute[] => {
  const declared: DashboardRoute[] = [];
  const { deps } = kit;
  const mailConfigured = deps.mailConfigured === true;
  const { caller } = flipbookView(kit);
  const path = '/dashboard/flipbooks/:id/links/:linkId';

  const show = async (
    req: Request,
    res: ServerResponse,
    signedIn: SignedIn,
    status: number,
    state: Omit<ShareLinkState, keyof MailState>,
    link?: ShareLink,
  ) => {
    const who = caller(req, signedIn);
    const [id, linkId] = [idOf(req), linkIdOf(req)];
    const flipbook = await getFlipbook(deps, who, id);
    const shown = link ?? (await shareLinksOf(deps, who, id).get(linkId));
    const { readers } = await listLinkReaders(deps, who, id, linkId);
    const mail = await mailState(deps);
    const draft = state.draft ?? rulesOfLink(shown);
    sendPage(
      res,
      status,
      shareLinkPage(
        signedIn,
        flipbook,
        shown,
        readers,
        draft,
        { ...state, ...mail },
        Number(queryOf(req).get('readers') ?? 1),
      ),
    );
  };

  declared.push(
    signedInRoute.page(path, async (req, res, signedIn) => {
      const saved = queryOf(req).get('saved') === '1';
      await show(req, res, signedIn, 200, {
        ...(saved ? { notice: 'Saved: the link’s next readers meet the new rules.' } : {}),
      });
    }),
  );

  declared.push(
    signedInRoute.form(path, async (req, res, signedIn, form) => {
      const [id, linkId] = [idOf(req), linkIdOf(req)];
      const links = shareLinksOf(deps, caller(req, signedIn), id);
      const link = await links.get(linkId);
      const { draft, rules } = readRules(form, rulesOfLink(link), mailConfigured);
      try {
        await links.edit(linkId, rules());
      } catch (error) {
        if (!(error instanceof AppError) || error.status === 404 || error.status >= 500)
          throw error;
        return show(
          req,
          res,
          signedIn,
          error.status,
          { draft, error: inFormWords(error.message) },
          link,
        );
      }
      redirect(res, `/dashboard/flipbooks/${id}/links/${linkId}?saved=1`);
    }),
  );

  declared.push(
    signedInRoute.page(`${path}/readers.csv`, async (req, res, signedIn) => {
      const [id, linkId] = [idOf(req), linkIdOf(req)];
      const list = await listLinkReaders(deps, caller(req, signedIn), id, linkId);
      const { text } = readersCsv(list);
      sendCsv(res, `link-${linkId}-readers.csv`, text);
    }),
  );
  return declared;
};
