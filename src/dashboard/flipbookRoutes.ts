// Upload and one flipbook: the pages and forms of /dashboard/upload and /dashboard/flipbooks/:id,
// each parse → use case (the API's own, src/app) → page or redirect. Uploads are read by the
// API's reader (same limits); their CSRF token comes as a header (the script) or as a field
// before the file, checked before the file is stored. A script asking for JSON (Accept) gets
// JSON answers; a plain form gets pages. Another workspace's ids are a 404 everywhere.
import type { ServerResponse } from 'node:http';
import type { SignedIn } from '../app/accounts/sessions.ts';
import { flipbookActivity, flipbookOverview, versionProgress } from '../app/flipbookOverview.ts';
import { activateVersion, addVersion, createFlipbook, deleteVersion } from '../app/flipbooks.ts';
import { deleteFlipbook, editFlipbook } from '../app/manageFlipbooks.ts';
import type { ReceivedUpload } from '../app/received.ts';
import type { FlipbookEdits } from '../contract/flipbooks.ts';
import { AppError, NotFound } from '../domain/errors.ts';
import { isUuid } from '../domain/uuid.ts';
import { editsFrom } from '../http/editBody.ts';
import type { Request, Routes } from '../http/server.ts';
import { receiveUpload } from '../http/upload.ts';
import type { Kit } from './kit.ts';
import { ACTIVITY_PER_PAGE } from './pages/activity.ts';
import { confirmPage } from './pages/confirm.ts';
import { type FlipbookPageState, flipbookPage } from './pages/flipbook.ts';
import { uploadPage } from './pages/upload.ts';
import { checkCsrf, checkSameOrigin, PAGE_HEADERS, redirect, sendPage } from './request.ts';

export const mountFlipbookPages = (routes: Routes, kit: Kit) => {
  const { deps, context, origin, signedInPage, signedInForm } = kit;
  const caller = (req: Request, signedIn: SignedIn) => signedIn.caller(context(req));

  /** The page of one flipbook, with a message or a refused form's input. */
  const showFlipbook = async (
    req: Request,
    res: ServerResponse,
    signedIn: SignedIn,
    id: string,
    status = 200,
    state: FlipbookPageState = {},
  ) => {
    const who = caller(req, signedIn);
    const overview = await flipbookOverview(deps, who, id);
    const params = new URL(req.url ?? '/', 'http://x').searchParams;
    const page = Number(params.get('activity') ?? 1);
    const activity = await flipbookActivity(
      deps,
      who,
      id,
      Number.isSafeInteger(page) && page > 0 ? page : 1,
      ACTIVITY_PER_PAGE,
    );
    const notice = state.notice ?? noticeOf(params);
    sendPage(res, status, flipbookPage(signedIn, overview, activity, { ...state, notice }));
  };

  /** Reads an upload for a signed-in person: same origin, CSRF before the file, API limits. */
  const takeUpload = async <T>(
    req: Request,
    signedIn: SignedIn,
    work: (upload: ReceivedUpload) => Promise<T>,
    fields: Record<string, string>,
  ) => {
    checkSameOrigin(req, origin());
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
      if (upload.file) await deps.blobs.discard(upload.file.path);
    }
  };

  routes.get(
    '/dashboard/upload',
    signedInPage(async (_req, res, signedIn) => sendPage(res, 200, uploadPage(signedIn))),
  );

  routes.post(
    '/dashboard/upload',
    signedInPage(async (req, res, signedIn) => {
      const fields: Record<string, string> = {};
      try {
        const made = await takeUpload(
          req,
          signedIn,
          (upload) => createFlipbook(deps, caller(req, signedIn), upload),
          fields,
        );
        const answer = uploaded(
          deps.urls.reader(made.flipbook_id),
          made.flipbook_id,
          made.version_id,
        );
        if (wantsJson(req)) return sendData(res, 201, answer);
        redirect(res, `${answer.flipbook_url}?notice=uploaded`);
      } catch (error) {
        if (!refusal(error)) throw error;
        if (wantsJson(req)) return sendData(res, error.status, { error: error.message });
        sendPage(
          res,
          error.status,
          uploadPage(signedIn, { title: fields.title, error: error.message }),
          error.headers,
        );
      }
    }),
  );

  routes.get(
    '/dashboard/flipbooks/:id',
    signedInPage(async (req, res, signedIn) => showFlipbook(req, res, signedIn, idOf(req))),
  );

  routes.post(
    '/dashboard/flipbooks/:id/versions',
    signedInPage(async (req, res, signedIn) => {
      const id = idOf(req);
      // Whose it is, before a byte of the upload is read.
      await flipbookOverview(deps, caller(req, signedIn), id);
      try {
        const made = await takeUpload(
          req,
          signedIn,
          (upload) => addVersion(deps, caller(req, signedIn), id, upload),
          {},
        );
        const answer = uploaded(deps.urls.reader(id), id, made.version_id);
        if (wantsJson(req)) return sendData(res, 201, answer);
        redirect(res, `${answer.flipbook_url}?notice=uploaded#versions`);
      } catch (error) {
        if (!refusal(error)) throw error;
        if (wantsJson(req)) return sendData(res, error.status, { error: error.message });
        await showFlipbook(req, res, signedIn, id, error.status, { versionError: error.message });
      }
    }),
  );

  // Polled by the script while a version is processing: pages ready of the total.
  routes.get(
    '/dashboard/flipbooks/:id/versions/:vid/status.json',
    kit.page(async (req, res) => {
      const signedIn = await kit.session(req);
      if (!signedIn) return sendData(res, 401, { error: 'Sign in again to follow this upload' });
      try {
        const [id, vid] = idsOf(req);
        sendData(res, 200, await versionProgress(deps, caller(req, signedIn), id, vid));
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        sendData(res, error.status, { error: error.message });
      }
    }),
  );

  routes.post(
    '/dashboard/flipbooks/:id/versions/:vid/activate',
    signedInForm(async (req, res, signedIn) => {
      const [id, vid] = idsOf(req);
      try {
        await activateVersion(deps, caller(req, signedIn), id, vid);
      } catch (error) {
        if (!(error instanceof AppError) || error.status !== 422) throw error;
        return showFlipbook(req, res, signedIn, id, 422, {
          notice: { text: error.message, kind: 'error' },
        });
      }
      redirect(res, `/dashboard/flipbooks/${id}?notice=activated#versions`);
    }),
  );

  routes.get(
    '/dashboard/flipbooks/:id/versions/:vid/delete',
    signedInPage(async (req, res, signedIn) => {
      const [id, vid] = idsOf(req);
      const version = await versionProgress(deps, caller(req, signedIn), id, vid);
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
    }),
  );

  routes.post(
    '/dashboard/flipbooks/:id/versions/:vid/delete',
    signedInForm(async (req, res, signedIn) => {
      const [id, vid] = idsOf(req);
      try {
        await deleteVersion(deps, caller(req, signedIn), id, vid);
      } catch (error) {
        if (!(error instanceof AppError) || error.status !== 422) throw error;
        return showFlipbook(req, res, signedIn, id, 422, {
          notice: { text: error.message, kind: 'error' },
        });
      }
      redirect(res, `/dashboard/flipbooks/${id}?notice=version-deleted#versions`);
    }),
  );

  routes.post(
    '/dashboard/flipbooks/:id',
    signedInForm(async (req, res, signedIn, form) => {
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
      redirect(res, `/dashboard/flipbooks/${id}?notice=saved#details`);
    }),
  );

  const edit = (path: string, edits: (form: URLSearchParams) => FlipbookEdits, notice: string) =>
    routes.post(
      `/dashboard/flipbooks/:id/${path}`,
      signedInForm(async (req, res, signedIn, form) => {
        const id = idOf(req);
        const change = edits(form);
        await editFlipbook(deps, caller(req, signedIn), id, change);
        const done = change.allow_download === false ? 'downloads-off' : notice;
        redirect(res, `/dashboard/flipbooks/${id}?notice=${done}#availability`);
      }),
    );
  edit('archive', () => ({ status: 'archived' }), 'archived');
  edit('unarchive', () => ({ status: 'published' }), 'unarchived');
  edit('download', (form) => ({ allow_download: form.get('allow') === 'true' }), 'downloads-on');

  routes.get(
    '/dashboard/flipbooks/:id/delete',
    signedInPage(async (req, res, signedIn) => {
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

  routes.post(
    '/dashboard/flipbooks/:id/delete',
    signedInForm(async (req, res, signedIn) => {
      await deleteFlipbook(deps, caller(req, signedIn), idOf(req));
      redirect(res, '/dashboard');
    }),
  );
};

/** What an accepted upload answers the script: where to follow it, where it will be read. */
const uploaded = (readerUrl: string, flipbookId: string, versionId: string) => ({
  flipbook_id: flipbookId,
  version_id: versionId,
  reader_url: readerUrl,
  flipbook_url: `/dashboard/flipbooks/${flipbookId}`,
  status_url: `/dashboard/flipbooks/${flipbookId}/versions/${versionId}/status.json`,
});

/** A refusal the person can act on (not a PDF, over the plan, too large, a bad field). */
const refusal = (error: unknown): error is AppError =>
  error instanceof AppError && error.status < 500 && error.status !== 403;

const wantsJson = (req: Request) => (req.headers.accept ?? '').includes('application/json');

const sendData = (res: ServerResponse, status: number, body: unknown) => {
  const bytes = Buffer.from(JSON.stringify(body));
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': bytes.length,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': PAGE_HEADERS['X-Content-Type-Options'],
  });
  res.end(bytes);
};

/** A malformed id names nothing: the same 404 as another workspace's. */
const idOf = (req: Request) => {
  const id = req.params.id ?? '';
  if (!isUuid(id)) throw new NotFound('Flipbook not found');
  return id.toLowerCase();
};

const idsOf = (req: Request): [string, string] => {
  const vid = req.params.vid ?? '';
  if (!isUuid(vid)) throw new NotFound('Version not found');
  return [idOf(req), vid.toLowerCase()];
};

/** The words after a form (post/redirect/get): fixed messages, never text from the URL. */
const NOTICES: Record<string, string> = {
  uploaded: 'Uploaded. Processing starts in a moment; this page follows it.',
  activated: 'The version is now active: the reader link shows it.',
  'version-deleted': 'The version was deleted.',
  saved: 'Changes saved.',
  archived: 'Archived: the reader link now answers “not available”.',
  unarchived: 'Unarchived: the reader link works again.',
  'downloads-on': 'Downloads are on: readers can download the original PDF.',
  'downloads-off': 'Downloads are off.',
};

const noticeOf = (params: URLSearchParams) => {
  const text = NOTICES[params.get('notice') ?? ''];
  return text ? { text, kind: 'ok' as const } : null;
};
