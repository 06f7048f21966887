// Uploads from the dashboard: the upload page, a new flipbook, a new version of one, and the
// status a script polls while a version is processing. Read by the API's own reader (same
// limits) and made by the API's use cases. The CSRF token comes as a header (the script) or as a
// field before the file, checked before a byte of the file is stored. A script asking for JSON
// (Accept) gets JSON answers; a plain form gets pages.
import type { SignedIn } from '../app/accounts/sessions.ts';
import { flipbookOverview, versionProgress } from '../app/flipbookOverview.ts';
import type { ReceivedUpload } from '../app/received.ts';
import type { UploadTarget } from '../app/uploadLimits.ts';
import { addVersion, createFlipbook } from '../app/uploads.ts';
import { AppError } from '../domain/errors.ts';
import { refuseBeforeBody } from '../http/endpoints/uploads.ts';
import { redirect } from '../http/respond.ts';
import { checkSameOrigin } from '../http/sameOrigin.ts';
import type { Request } from '../http/server.ts';
import { receiveUpload } from '../http/upload.ts';
import { flipbookView, idOf, idsOf, refusal } from './flipbookView.ts';
import { sendJsonBody } from './json.ts';
import { type DashboardRoute, type Kit, signedInRoute } from './kit.ts';
import { noticeAt } from './notices.ts';
import { uploadPage } from './pages/upload.ts';
import { checkCsrf, sendPage } from './request.ts';

export const uploadRoutes = (kit: Kit): DashboardRoute[] => {
  const declared: DashboardRoute[] = [];
  const { deps, origin } = kit;
  const { caller, showFlipbook } = flipbookView(kit);

  /** Reads an upload for a signed-in person: same origin, CSRF before the file, API limits. */
  const takeUpload = async <T>(
    req: Request,
    signedIn: SignedIn,
    target: UploadTarget,
    work: (upload: ReceivedUpload) => Promise<T>,
    fields: Record<string, string>,
  ) => {
    checkSameOrigin(req, origin());
    // The plan's limits the headers tell, before the body is read (as the API does).
    await refuseBeforeBody(deps.store.db, req, caller(req, signedIn), target);
    const header = req.headers['x-csrf-token'];
    const byHeader = typeof header === 'string';
    if (byHeader) checkCsrf(header, signedIn.csrfToken);
    const byField = (sent: Record<string, string>) => checkCsrf(sent._csrf, signedIn.csrfToken);
    const upload = await receiveUpload(req, deps.blobs, byHeader ? {} : { beforeFile: byField });
    try {
      if (!byHeader) byField(upload.fields); // a body with no file part at all
      const { _csrf, ...rest } = upload.fields;
      Object.assign(fields, rest);
      return await work({ ...upload, fields: rest });
    } finally {
      // (best effort: a failed removal must not turn a stored upload into an error)
      if (upload.file) await deps.blobs.discard(upload.file.ref).catch(() => undefined);
    }
  };

  declared.push(
    signedInRoute.page('/dashboard/upload', async (_req, res, signedIn) =>
      sendPage(res, 200, uploadPage(signedIn)),
    ),
  );

  declared.push(
    signedInRoute.upload('/dashboard/upload', async (req, res, signedIn) => {
      const fields: Record<string, string> = {};
      try {
        const made = await takeUpload(
          req,
          signedIn,
          { adds: 'flipbook' },
          (upload) => createFlipbook(deps, caller(req, signedIn), upload),
          fields,
        );
        const answer = uploaded(
          deps.urls.reader(made.flipbook_id),
          made.flipbook_id,
          made.version_id,
        );
        if (wantsJson(req)) return sendJsonBody(res, 201, answer);
        redirect(res, `${answer.flipbook_url}?notice=uploaded`);
      } catch (error) {
        // The script hears every refusal in JSON (a 403 too); a page shows those it can act on.
        if (error instanceof AppError && wantsJson(req)) {
          return sendJsonBody(res, error.status, { error: error.message }, error.headers);
        }
        if (!refusal(error)) throw error;
        sendPage(
          res,
          error.status,
          uploadPage(signedIn, {
            title: fields.title,
            visibility: fields.visibility,
            error: error.message,
          }),
          error.headers,
        );
      }
    }),
  );

  declared.push(
    signedInRoute.upload('/dashboard/flipbooks/:id/versions', async (req, res, signedIn) => {
      const id = idOf(req);
      // Whose it is, before a byte of the upload is read.
      await flipbookOverview(deps, caller(req, signedIn), id);
      try {
        const made = await takeUpload(
          req,
          signedIn,
          { adds: 'version', flipbookId: id },
          (upload) => addVersion(deps, caller(req, signedIn), id, upload),
          {},
        );
        const answer = uploaded(deps.urls.reader(id), id, made.version_id);
        if (wantsJson(req)) return sendJsonBody(res, 201, answer);
        redirect(res, `${answer.flipbook_url}${noticeAt('uploaded')}`);
      } catch (error) {
        // The script hears every refusal in JSON (a 403 too); a page shows those it can act on.
        if (error instanceof AppError && wantsJson(req)) {
          return sendJsonBody(res, error.status, { error: error.message }, error.headers);
        }
        if (!refusal(error)) throw error;
        await showFlipbook(req, res, signedIn, id, error.status, { versionError: error.message });
      }
    }),
  );

  // Polled by the script while a version is processing: pages ready of the total.
  declared.push({
    method: 'get',
    path: '/dashboard/flipbooks/:id/versions/:vid/status.json',
    who: 'anyone',
    body: 'none',
    answers: 'page',
    handler: async (req, res) => {
      const signedIn = await kit.session(req);
      if (!signedIn)
        return sendJsonBody(res, 401, { error: 'Sign in again to follow this upload' });
      try {
        const [id, vid] = idsOf(req);
        sendJsonBody(res, 200, await versionProgress(deps, caller(req, signedIn), id, vid));
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        sendJsonBody(res, error.status, { error: error.message });
      }
    },
  });
  return declared;
};

/** What an accepted upload answers the script: where to follow it, where it will be read. */
const uploaded = (readerUrl: string, flipbookId: string, versionId: string) => ({
  flipbook_id: flipbookId,
  version_id: versionId,
  reader_url: readerUrl,
  flipbook_url: `/dashboard/flipbooks/${flipbookId}`,
  status_url: `/dashboard/flipbooks/${flipbookId}/versions/${versionId}/status.json`,
});

const wantsJson = (req: Request) => (req.headers.accept ?? '').includes('application/json');
