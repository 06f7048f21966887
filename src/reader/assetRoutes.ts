// The reader's routes that serve no book page: oEmbed (how a pasted link unfurls), the favicon's
// empty answer, a workspace's branding, and the reader's script and stylesheet. Declared as the
// book pages are (./readerRoutes.ts, src/http/pageRoute.ts), mounted with them.
import { brandByKey } from '../app/branding.ts';
import { enterByBook } from '../app/readerAccess.ts';
import { AppError, NotFound } from '../domain/errors.ts';
import { assetRoute, type PageRoute } from '../http/pageRoute.ts';
import { sendJson } from '../http/respond.ts';
import { sendBody } from '../http/sendBody.ts';
import { queryOf } from '../http/server.ts';
import { IMMUTABLE } from '../http/staticAssets.ts';
import { findAsset } from './assets.ts';
import { brandStylesheet } from './brandStyle.ts';
import type { HtmlSender } from './htmlSender.ts';
import { oembedOf, pixels, readerIdOf } from './oembed.ts';
import { loadReaderBook } from './readerData.ts';
import type { ReaderDeps } from './readerDeps.ts';
import { notFoundPage } from './readerPage.ts';

export const readerAssetRoutes = (deps: ReaderDeps, sendHtml: HtmlSender): PageRoute[] => {
  const declared: PageRoute[] = [];
  // oEmbed for public flipbooks (./oembed.ts): how a pasted link unfurls.
  declared.push({
    method: 'get',
    path: '/oembed',
    who: 'anyone',
    answers: 'data',
    body: 'none',
    handler: async (req, res) => {
      const query = queryOf(req);
      const format = query.get('format') ?? 'json';
      if (format !== 'json') throw new AppError(501, 'Only format=json is answered');
      const id = readerIdOf(query.get('url') ?? '', deps.urls.reader('').replace(/\/f\/$/, ''));
      const entry = id ? await enterByBook(deps.access, id, null) : null;
      const book =
        id && entry?.kind === 'public'
          ? await loadReaderBook(deps.db, deps.blobs, deps.urls, id, false)
          : null;
      if (!book || book === 'archived' || book.status === 'error' || !book.isPublic) {
        throw new NotFound('Not found');
      }
      const limits = {
        maxWidth: pixels(query.get('maxwidth')),
        maxHeight: pixels(query.get('maxheight')),
      };
      const provider = deps.urls.reader('').replace(/\/f\/$/, '/');
      await sendJson(res, 200, oembedOf(book, provider, limits), {
        req,
        cache: 'public, max-age=300',
      });
    },
  });

  // No icon of our own; answering stops browsers from logging a 404 on every visit.
  declared.push({
    method: 'get',
    path: '/favicon.ico',
    who: 'anyone',
    answers: 'data',
    body: 'none',
    handler: (_req, res) => {
      res.writeHead(204, { 'Cache-Control': 'public, max-age=86400' });
      res.end();
    },
  });

  // A workspace's branding (src/reader/brandStyle.ts): named by a hash of what it holds, so
  // immutable; a new branding is a new name.
  declared.push({
    method: 'get',
    path: '/reader/brand/:file',
    who: 'anyone',
    answers: 'data',
    body: 'none',
    handler: async (req, res) => {
      const [, key, kind] = /^([0-9a-f]{20})\.(css|webp)$/.exec(req.params.file ?? '') ?? [];
      const brand = key ? await brandByKey(deps.db, key) : null;
      const body = kind === 'css' ? brand && brandStylesheet(brand) : brand?.logo;
      if (!body) return sendHtml(req, res, 404, notFoundPage);
      await sendBody(
        req,
        res,
        200,
        {
          'Content-Type': kind === 'css' ? 'text/css; charset=utf-8' : 'image/webp',
          'Cache-Control': IMMUTABLE,
          'X-Content-Type-Options': 'nosniff',
        },
        body,
      );
    },
  });

  // reader.<hash>.js and .css are immutable; the plain names answer too, revalidated.
  declared.push(
    assetRoute('/reader/:file', findAsset, (req, res) => sendHtml(req, res, 404, notFoundPage)),
  );
  return declared;
};
