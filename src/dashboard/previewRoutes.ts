// A flipbook's previews in the dashboard (/dashboard/flipbooks/:id/previews/:name/...): Promote
// and Delete, each a page asking first (a GET, changing nothing) whose form posts to the API's own
// use case (src/app/previews.ts) → redirect, or the flipbook's page again with the refusal in
// the use case's words (a preview not processed yet, or failed: 409). The list itself is on the
// flipbook's page (./pages/previews.ts). Another workspace's flipbook, and a name no preview
// could have, are a 404.
import type { SignedIn } from '../app/accounts/sessions.ts';
import { getFlipbook } from '../app/flipbooks.ts';
import { deletePreview, promotePreview, showPreview } from '../app/previews.ts';
import { AppError, InvalidInput, NotFound } from '../domain/errors.ts';
import { checkPreviewName } from '../domain/flipbook/previews.ts';
import { redirect } from '../http/respond.ts';
import type { Request } from '../http/server.ts';
import { flipbookView, idOf } from './flipbookView.ts';
import { type DashboardRoute, type Kit, signedInRoute } from './kit.ts';
import { noticeAt } from './notices.ts';
import { confirmPage } from './pages/confirm.ts';
import { pages } from './pages/format.ts';
import { sendPage } from './request.ts';

/** A name no preview could have names nothing: the same 404 as one that is gone. */
const nameOf = (req: Request) => {
  try {
    return checkPreviewName(req.params.name ?? '');
  } catch (error) {
    if (error instanceof InvalidInput) throw new NotFound('Preview not found');
    throw error;
  }
};

export const previewRoutes = (kit: Kit): DashboardRoute[] => {
  const declared: DashboardRoute[] = [];
  const { deps } = kit;
  const { caller, showRefusal } = flipbookView(kit);

  /** The flipbook (its slug names it to the use cases) and the preview's name, both checked. */
  const target = async (req: Request, signedIn: SignedIn) => {
    const id = idOf(req);
    const name = nameOf(req);
    const book = await getFlipbook(deps, caller(req, signedIn), id);
    return { id, name, book, base: `/dashboard/flipbooks/${id}` };
  };

  const confirmation = (
    action: 'promote' | 'delete',
    words: (o: Awaited<ReturnType<typeof target>> & { pageCount: number }) => {
      question: string;
      explanation: string;
      button: string;
    },
  ) =>
    declared.push(
      signedInRoute.page(
        `/dashboard/flipbooks/:id/previews/:name/${action}`,
        async (req, res, signedIn) => {
          const found = await target(req, signedIn);
          const preview = await showPreview(
            deps,
            caller(req, signedIn),
            found.book.slug,
            found.name,
          );
          const said = words({ ...found, pageCount: preview.pages });
          sendPage(
            res,
            200,
            confirmPage(signedIn, {
              title: said.button,
              ...said,
              action: `${found.base}/previews/${found.name}/${action}`,
              back: `${found.base}#previews`,
              ...(action === 'promote' ? { tone: 'primary' as const } : {}),
            }),
          );
        },
      ),
    );
  confirmation('promote', ({ name, book, pageCount }) => ({
    question: `Promote ${name}?`,
    explanation: `Its version (${pages(pageCount)}, exactly as reviewed: nothing is uploaded or processed again) becomes the active one: readers of “${book.title}” get it at once, at the same link. The version active now stays in the list and can be activated again. The preview’s own address stops working.`,
    button: `Promote ${name}`,
  }));
  confirmation('delete', ({ name }) => ({
    question: `Delete ${name}?`,
    explanation: `The preview, its version and its pages are deleted for good, and its address stops working. The active version is not touched; a new push to ${name} makes a new preview.`,
    button: `Delete ${name}`,
  }));

  const act = (
    action: 'promote' | 'delete',
    run: typeof promotePreview | typeof deletePreview,
    notice: string,
  ) =>
    declared.push(
      signedInRoute.form(
        `/dashboard/flipbooks/:id/previews/:name/${action}`,
        async (req, res, signedIn) => {
          const { id, name, book, base } = await target(req, signedIn);
          try {
            await run(deps, caller(req, signedIn), book.slug, name);
          } catch (error) {
            // Not processed yet, or failed (a push since the page was read can make it so).
            if (!(error instanceof AppError) || error.status !== 409) throw error;
            return showRefusal(req, res, signedIn, id, error);
          }
          redirect(res, `${base}${noticeAt(notice)}`);
        },
      ),
    );
  act('promote', promotePreview, 'promoted');
  act('delete', deletePreview, 'preview-deleted');
  return declared;
};
