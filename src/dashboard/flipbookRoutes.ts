// One flipbook (/dashboard/flipbooks/:id): its page and its forms, each parse → use case (the
// API's own, src/app) → redirect (post/redirect/get), or the page again with the refusal in
// words. Uploads (a new flipbook, a new version) are in ./uploadRoutes.ts. Another workspace's
// flipbook or version is a 404 for every page and action.
import { flipbookOverview, versionProgress } from '../app/flipbookOverview.ts';
import { activateVersion, deleteVersion } from '../app/flipbooks.ts';
import { deleteFlipbook, editFlipbook } from '../app/manageFlipbooks.ts';
import type { FlipbookEdits } from '../contract/flipbooks.ts';
import { AppError, InvalidInput } from '../domain/errors.ts';
import { visibility } from '../domain/flipbook/access.ts';
import { ACTIVE_NOT_DELETABLE } from '../domain/flipbook/decide.ts';
import { editsFrom } from '../http/editBody.ts';
import { redirect } from '../http/respond.ts';
import { flipbookView, idOf, idsOf, refusal } from './flipbookView.ts';
import { type DashboardRoute, type Kit, signedInRoute } from './kit.ts';
import { noticeAt } from './notices.ts';
import { confirmPage } from './pages/confirm.ts';
import { previewRoutes } from './previewRoutes.ts';
import { sendPage } from './request.ts';
import { shareLinkRoutes } from './shareLinkRoutes.ts';
import { statsRoutes } from './statsRoutes.ts';
import { uploadRoutes } from './uploadRoutes.ts';

export const flipbookRoutes = (kit: Kit): DashboardRoute[] => {
  const declared: DashboardRoute[] = [];
  declared.push(...uploadRoutes(kit));
  declared.push(...shareLinkRoutes(kit));
  declared.push(...previewRoutes(kit));
  declared.push(...statsRoutes(kit));
  const { deps } = kit;
  const { caller, showFlipbook, showRefusal } = flipbookView(kit);

  declared.push(
    signedInRoute.page('/dashboard/flipbooks/:id', async (req, res, signedIn) =>
      showFlipbook(req, res, signedIn, idOf(req)),
    ),
  );

  /** A version's button: done, back to the versions; a rule refused it, the page says why. */
  const versionAction = (
    action: 'activate' | 'delete',
    run: (...args: Parameters<typeof activateVersion>) => Promise<unknown>,
    notice: string,
  ) =>
    declared.push(
      signedInRoute.form(
        `/dashboard/flipbooks/:id/versions/:vid/${action}`,
        async (req, res, signedIn) => {
          const [id, vid] = idsOf(req);
          try {
            await run(deps, caller(req, signedIn), id, vid);
          } catch (error) {
            if (!(error instanceof AppError) || error.status !== 422) throw error;
            return showRefusal(req, res, signedIn, id, error);
          }
          redirect(res, `/dashboard/flipbooks/${id}${noticeAt(notice)}`);
        },
      ),
    );
  versionAction('activate', activateVersion, 'activated');
  versionAction('delete', deleteVersion, 'version-deleted');

  declared.push(
    signedInRoute.page(
      '/dashboard/flipbooks/:id/versions/:vid/delete',
      async (req, res, signedIn) => {
        const [id, vid] = idsOf(req);
        const version = await versionProgress(deps, caller(req, signedIn), id, vid);
        // The active version is never offered for deletion; a typed address says why at once,
        // rather than asking first and refusing after.
        if (version.isActive) {
          return showRefusal(req, res, signedIn, id, {
            status: 422,
            message: ACTIVE_NOT_DELETABLE,
          });
        }
        sendPage(
          res,
          200,
          confirmPage(signedIn, {
            title: `Delete version ${version.number}`,
            question: `Delete version ${version.number}?`,
            explanation: `Version ${version.number} (${version.fileName}) and its pages are deleted for good. Its number is never used again.`,
            action: `/dashboard/flipbooks/${id}/versions/${vid}/delete`,
            button: `Delete version ${version.number}`,
            back: `/dashboard/flipbooks/${id}#versions`,
          }),
        );
      },
    ),
  );

  declared.push(
    signedInRoute.form('/dashboard/flipbooks/:id', async (req, res, signedIn, form) => {
      const id = idOf(req);
      const typed = {
        title: form.get('title') ?? '',
        slug: form.get('slug') ?? '',
        description: form.get('description') ?? '',
      };
      try {
        await editFlipbook(deps, caller(req, signedIn), id, editsFrom(typed));
      } catch (error) {
        if (!refusal(error) || error.status === 404) throw error;
        return showFlipbook(req, res, signedIn, id, error.status, {
          details: { ...typed, error: error.message },
        });
      }
      redirect(res, `/dashboard/flipbooks/${id}${noticeAt('saved')}`);
    }),
  );

  /** A form on the flipbook's page that changes one setting, then the page at its section. */
  const edit = (path: string, edits: (form: URLSearchParams) => FlipbookEdits, notice: string) =>
    declared.push(
      signedInRoute.form(`/dashboard/flipbooks/:id/${path}`, async (req, res, signedIn, form) => {
        const id = idOf(req);
        const change = edits(form);
        await editFlipbook(deps, caller(req, signedIn), id, change);
        const done = change.allow_download === false ? 'downloads-off' : notice;
        redirect(res, `/dashboard/flipbooks/${id}${noticeAt(done)}`);
      }),
    );
  edit('archive', () => ({ status: 'archived' }), 'archived');
  edit('unarchive', () => ({ status: 'published' }), 'unarchived');
  edit('download', (form) => ({ allow_download: allowOf(form.get('allow')) }), 'downloads-on');
  edit(
    'visibility',
    (form) => ({ visibility: visibility(form.get('visibility') ?? '') }),
    'visibility',
  );

  declared.push(
    signedInRoute.page('/dashboard/flipbooks/:id/delete', async (req, res, signedIn) => {
      const id = idOf(req);
      const { flipbook } = await flipbookOverview(deps, caller(req, signedIn), id);
      sendPage(
        res,
        200,
        confirmPage(signedIn, {
          title: `Delete ${flipbook.title}`,
          question: `Delete “${flipbook.title}”?`,
          explanation: `The flipbook, its ${flipbook.versions.length === 1 ? 'version' : `${flipbook.versions.length} versions`} and every page are deleted for good, and its link stops working. This cannot be undone.`,
          action: `/dashboard/flipbooks/${id}/delete`,
          button: 'Delete the flipbook',
          back: `/dashboard/flipbooks/${id}`,
        }),
      );
    }),
  );

  declared.push(
    signedInRoute.form('/dashboard/flipbooks/:id/delete', async (req, res, signedIn) => {
      await deleteFlipbook(deps, caller(req, signedIn), idOf(req));
      redirect(res, '/dashboard?notice=flipbook-deleted');
    }),
  );
  return declared;
};

/** The download form's one field: its buttons send true or false, and nothing else is taken. */
const allowOf = (value: string | null) => {
  if (value === 'true' || value === 'false') return value === 'true';
  throw new InvalidInput('Invalid allow: must be true or false');
};
