// The Client API v1 route table, top to bottom. Each route: validate path and input, call the
// use case, send the result. Rate limiting and the body limit run before routing (in server.ts);
// authentication runs first in every route.
import type { ServerResponse } from 'node:http';
import { findIdempotentUpload } from '../../projections/idempotentUploads.ts';
import type { Db } from '../../projections/readTable.ts';
import type { Caller } from '../app/caller.ts';
import type { Clock } from '../app/clock.ts';
import { flipbookTrail } from '../app/eventLog.ts';
import {
  type ApiDeps,
  activateVersion,
  addVersion,
  createFlipbook,
  deleteVersion,
  getFlipbook,
  listFlipbooks,
  publishToSlug,
  versionStatus,
} from '../app/flipbooks.ts';
import { getFlipbookAsOf } from '../app/history.ts';
import type { UploadOptions } from '../app/idempotentUploads.ts';
import type { KeyUsage } from '../app/keyUsage.ts';
import { deleteFlipbook, editFlipbook } from '../app/manageFlipbooks.ts';
import { refuseEarly, type UploadTarget } from '../app/uploadLimits.ts';
import { AppError, InvalidInput } from '../domain/errors.ts';
import * as fields from '../domain/flipbookFields.ts';
import { IDEMPOTENCY_WINDOW_MS, parseIdempotencyKey } from '../domain/idempotency.ts';
import { isUuid } from '../domain/uuid.ts';
import type { Logger } from '../log.ts';
import { authenticate } from './auth.ts';
import { readEdits } from './editBody.ts';
import { parseAt, parseListQuery, parsePaging } from './listQuery.ts';
import { openApiDocument } from './openapi.ts';
import { sendJson } from './respond.ts';
import type { Request, Routes } from './server.ts';
import { asUnavailable } from './unavailable.ts';
import {
  declaredFileBytes,
  dropBodyAfterRefusal,
  MAX_UPLOAD_BYTES,
  receiveUpload,
  uploadTooLarge,
} from './upload.ts';
import { mountWebhookRoutes } from './webhookRoutes.ts';

type Authed = (req: Request, res: ServerResponse, caller: Caller) => Promise<void>;

export const mountApi = (
  routes: Routes,
  deps: ApiDeps & {
    log: Logger;
    keyUsage: KeyUsage;
    clock: Clock;
    /** webhooks may reach private addresses (flipbook serve --webhook-allow-private) */
    webhookAllowPrivate: boolean;
  },
) => {
  const authed = (handler: Authed) => async (req: Request, res: ServerResponse) => {
    const caller = await authenticate(deps.store.db, req);
    deps.keyUsage.used(caller.keyId); // noted, not awaited: "last used" is written off the path
    return handler(req, res, caller);
  };

  // Uploads: the temporary file goes whatever happens; a committed original was moved already.
  const withUpload =
    <T>(
      work: (
        req: Request,
        caller: Caller,
        upload: Awaited<ReturnType<typeof receiveUpload>>,
      ) => Promise<T>,
    ) =>
    async (req: Request, caller: Caller) => {
      const upload = await receiveUpload(req, deps.blobs);
      try {
        return await work(req, caller, upload);
      } finally {
        // (best effort: a failed removal must not turn a stored upload into an error)
        if (upload.file) await deps.blobs.discard(upload.file.ref).catch(() => undefined);
      }
    };

  routes.get('/api/v1/openapi.json', (_req, res) => sendJson(res, 200, openApiDocument));
  mountWebhookRoutes(routes, authed, {
    store: deps.store,
    clock: deps.clock,
    allowPrivate: deps.webhookAllowPrivate,
  });

  routes.get(
    '/api/v1/flipbooks',
    authed(async (req, res, caller) => {
      const query = parseListQuery(new URL(req.url ?? '/', 'http://x').searchParams);
      const list = await listFlipbooks(deps, caller, query).catch((error: unknown) => {
        // The spec's own text for this endpoint's 500; the cause goes to the log. A database
        // that is unavailable is a 503, as on every endpoint (docs/api.md).
        if (error instanceof AppError || asUnavailable(error)) throw error;
        deps.log.error({ err: error }, 'listing flipbooks failed');
        throw new AppError(500, 'Failed to list flipbooks');
      });
      sendJson(res, 200, list);
    }),
  );

  routes.get(
    '/api/v1/flipbooks/:id',
    authed(async (req, res, caller) => {
      const id = flipbookId(req);
      // ?at=<RFC 3339>: the flipbook as it was then (beyond the spec; docs/api.md)
      const at = parseAt(new URL(req.url ?? '/', 'http://x').searchParams);
      sendJson(
        res,
        200,
        at ? await getFlipbookAsOf(deps, caller, id, at) : await getFlipbook(deps, caller, id),
      );
    }),
  );

  // Beyond the spec (docs/api.md): edit and delete a flipbook.
  routes.patch(
    '/api/v1/flipbooks/:id',
    authed(async (req, res, caller) => {
      const id = flipbookId(req);
      sendJson(res, 200, await editFlipbook(deps, caller, id, await readEdits(req)));
    }),
  );

  routes.delete(
    '/api/v1/flipbooks/:id',
    authed(async (req, res, caller) => {
      sendJson(res, 200, await deleteFlipbook(deps, caller, flipbookId(req)));
    }),
  );

  routes.get(
    '/api/v1/flipbooks/:id/events',
    authed(async (req, res, caller) => {
      const id = flipbookId(req);
      const { page, perPage } = parsePaging(new URL(req.url ?? '/', 'http://x').searchParams);
      sendJson(res, 200, await flipbookTrail(deps.store, caller.workspaceId, id, page, perPage));
    }),
  );

  const early = (req: Request, caller: Caller, target: UploadTarget) =>
    refuseBeforeBody(deps.store.db, req, caller, target);

  /**
   * An upload's Idempotency-Key, read before its body: a malformed key is refused at once. A key
   * the workspace used already skips the early quota checks: its request may be a retry of one
   * that was counted (the use case answers it, or refuses a different request with that key).
   */
  const uploadOptions = async (
    req: Request,
    res: ServerResponse,
    caller: Caller,
    target: UploadTarget,
  ): Promise<UploadOptions> => {
    let key: string | null;
    try {
      key = parseIdempotencyKey(req.headers['idempotency-key']);
    } catch (error) {
      dropBodyAfterRefusal(req);
      throw error;
    }
    const now = deps.clock.now();
    const known =
      key !== null &&
      (await findIdempotentUpload(
        deps.store.db,
        caller.workspaceId,
        key,
        new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS),
      )) !== null;
    if (!known) await early(req, caller, target);
    return {
      clock: deps.clock,
      ...(key === null ? {} : { idempotencyKey: key }),
      replayed: () => res.setHeader('Idempotent-Replayed', 'true'),
    };
  };

  routes.post(
    '/api/v1/flipbooks',
    authed(async (req, res, caller) => {
      const options = await uploadOptions(req, res, caller, { adds: 'flipbook' });
      const create = withUpload((_req, c, upload) => createFlipbook(deps, c, upload, options));
      sendJson(res, 201, await create(req, caller));
    }),
  );

  routes.post(
    '/api/v1/flipbooks/:id/versions',
    authed(async (req, res, caller) => {
      const id = flipbookId(req); // a bad id is refused before a byte of the upload is read
      const options = await uploadOptions(req, res, caller, { adds: 'version', flipbookId: id });
      const upload = withUpload((_req, c, body) => addVersion(deps, c, id, body, options));
      sendJson(res, 201, await upload(req, caller));
    }),
  );

  // Beyond the spec (docs/api.md): a new version of the flipbook with this slug, or a new
  // flipbook with it when there is none. One URL per document, however often it is published.
  routes.post(
    '/api/v1/flipbooks/by-slug/:slug/versions',
    authed(async (req, res, caller) => {
      let slug: string;
      try {
        slug = fields.slug(decodeURIComponent(req.params.slug ?? ''));
      } catch (error) {
        dropBodyAfterRefusal(req);
        throw error;
      }
      const options = await uploadOptions(req, res, caller, { adds: 'any', slug });
      const publish = withUpload((_req, c, body) => publishToSlug(deps, c, slug, body, options));
      sendJson(res, 201, await publish(req, caller));
    }),
  );

  routes.post(
    '/api/v1/flipbooks/:id/versions/:vid/activate',
    authed(async (req, res, caller) => {
      const [id, vid] = ids(req);
      sendJson(res, 200, await activateVersion(deps, caller, id, vid));
    }),
  );

  routes.get(
    '/api/v1/flipbooks/:id/versions/:vid/status',
    authed(async (req, res, caller) => {
      const [id, vid] = ids(req);
      sendJson(res, 200, await versionStatus(deps, caller, id, vid));
    }),
  );

  routes.delete(
    '/api/v1/flipbooks/:id/versions/:vid',
    authed(async (req, res, caller) => {
      const [id, vid] = ids(req);
      sendJson(res, 200, await deleteVersion(deps, caller, id, vid));
    }),
  );
};

const flipbookId = (req: Request) => {
  const id = req.params.id ?? '';
  if (!isUuid(id)) throw new InvalidInput('Invalid flipbook ID');
  return id.toLowerCase();
};

const ids = (req: Request): [string, string] => {
  const id = req.params.id ?? '';
  const vid = req.params.vid ?? '';
  if (!isUuid(id) || !isUuid(vid)) throw new InvalidInput('Invalid IDs');
  return [id.toLowerCase(), vid.toLowerCase()];
};

/** Upload routes take big multipart bodies; every other route is held to 10 MB. */
export const isUploadRoute = (method: string | undefined, path: string) =>
  method === 'POST' &&
  /^\/api\/v1\/flipbooks(\/[^/]+\/versions|\/by-slug\/[^/]+\/versions)?\/?$/.test(path);

/** Routes that read their own body (uploads, an edit's JSON); the rest have theirs discarded. */
/**
 * The plan's limits that the request's headers already tell (its declared size, the number of
 * flipbooks or versions), checked before a byte of the body is read: the API's uploads and the
 * dashboard's.
 */
export const refuseBeforeBody = async (
  db: Db,
  req: Request,
  caller: Caller,
  target: UploadTarget,
) => {
  const declared = declaredFileBytes(req);
  try {
    // Past the service's own limit the spec's answer is 413, whatever the plan allows.
    if (declared !== null && declared > MAX_UPLOAD_BYTES) throw uploadTooLarge();
    await refuseEarly(db, caller, declared, target);
  } catch (error) {
    dropBodyAfterRefusal(req);
    throw error;
  }
};

export const readsBody = (method: string | undefined, path: string) =>
  isUploadRoute(method, path) ||
  (method === 'PATCH' && /^\/api\/v1\/flipbooks\/[^/]+\/?$/.test(path)) ||
  (method === 'POST' && /^\/api\/v1\/webhooks\/?$/.test(path));
