// One route of a front for people (the reader, the dashboard), declared as the API's
// endpoints are (./endpoint.ts): its method and path, who may call it, what body it takes, what
// it answers (which decides how its failures are answered), and its handler. A front builds its
// list and mounts it once (`mountPageRoutes`) with one wrapper per kind of answer, so every route
// of a kind fails the same way.
import type { ServerResponse } from 'node:http';
import type { Handler, Request, Routes } from './server.ts';
import { type Asset, sendAsset } from './staticAssets.ts';

/** What every front's route declares; each front adds who may call it and its handler. */
export type RouteBase = {
  method: 'get' | 'post';
  path: string;
  /**
   * `none`: no body read; `form`: a small urlencoded form (./formBody.ts); `json`: a small JSON
   * body; `stream`: the handler reads a body of its own kind (an upload's multipart)
   */
  body: 'none' | 'form' | 'json' | 'stream';
  /**
   * `page`: a page for people (its failures are pages in words); `data`: JSON, images, assets
   * (its failures are JSON)
   */
  answers: 'page' | 'data';
};

/** A reader's route: anyone may ask; what they may see is the handler's to decide (a book's
 * visibility, a grant, a share link's password). */
export type PageRoute = RouteBase & { who: 'anyone'; handler: Handler };

/** What makes a handler of each kind answer its failures the way its kind does. */
export type Wrappers = Record<PageRoute['answers'], (handler: Handler) => Handler>;

export const mountPageRoutes = (routes: Routes, declared: PageRoute[], wrappers: Wrappers) => {
  for (const route of declared) {
    routes[route.method](route.path, wrappers[route.answers](route.handler));
  }
};

/**
 * The route of a front's scripts and stylesheets (./staticAssets.ts), `/<prefix>/:file`: the
 * asset `find` names, or the front's own 404.
 */
export const assetRoute = (
  path: string,
  find: (file: string) => { asset: Asset; immutable: boolean } | null,
  notFound: (req: Request, res: ServerResponse) => unknown,
) =>
  ({
    method: 'get',
    path,
    who: 'anyone',
    body: 'none',
    answers: 'data',
    handler: async (req: Request, res: ServerResponse) => {
      const found = find(req.params.file ?? '');
      if (!found) return void (await notFound(req, res));
      await sendAsset(req, res, found);
    },
  }) as const;
