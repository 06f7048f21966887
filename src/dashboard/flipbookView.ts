// What the flipbook routes share: the page of one flipbook (with a message, or a refused form's
// input), the caller a request acts as, and ids from the path (a malformed one is the same 404 as
// another workspace's).
import type { ServerResponse } from 'node:http';
import type { SignedIn } from '../app/accounts/sessions.ts';
import { flipbookActivity, flipbookOverview } from '../app/flipbookOverview.ts';
import { previewLines } from '../app/previews.ts';
import { AppError, NotFound } from '../domain/errors.ts';
import { isUuid } from '../domain/uuid.ts';
import { queryOf, type Request } from '../http/server.ts';
import type { Kit } from './kit.ts';
import { noticeOf } from './notices.ts';
import { ACTIVITY_PER_PAGE } from './pages/activity.ts';
import { type FlipbookPageState, flipbookPage } from './pages/flipbook.ts';
import { sendPage } from './request.ts';

export const flipbookView = ({ deps, context }: Kit) => {
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
    const params = queryOf(req);
    const page = Number(params.get('activity') ?? 1);
    const activity = await flipbookActivity(
      deps,
      who,
      id,
      Number.isSafeInteger(page) && page > 0 ? page : 1,
      ACTIVITY_PER_PAGE,
    );
    const previews = await previewLines(deps, who, overview.flipbook.slug);
    const notice = state.notice ?? noticeOf(params, 'flipbook');
    sendPage(
      res,
      status,
      flipbookPage(signedIn, overview, activity, previews, { ...state, notice }),
    );
  };

  /** The flipbook's page again, with why a button's work was refused, in words, above it. */
  const showRefusal = (
    req: Request,
    res: ServerResponse,
    signedIn: SignedIn,
    id: string,
    refused: { status: number; message: string },
  ) =>
    showFlipbook(req, res, signedIn, id, refused.status, {
      notice: { text: refused.message, kind: 'error' },
    });

  return { caller, showFlipbook, showRefusal };
};

/** A malformed id names nothing: the same 404 as another workspace's. */
export const idOf = (req: Request) => {
  const id = req.params.id ?? '';
  if (!isUuid(id)) throw new NotFound('Flipbook not found');
  return id.toLowerCase();
};

export const idsOf = (req: Request): [string, string] => {
  const vid = req.params.vid ?? '';
  if (!isUuid(vid)) throw new NotFound('Version not found');
  return [idOf(req), vid.toLowerCase()];
};

/** A refusal the person can act on (not a PDF, over the plan, too large, a bad field). */
export const refusal = (error: unknown): error is AppError =>
  error instanceof AppError && error.status < 500 && error.status !== 403;
