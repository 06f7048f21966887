// The public reader: GET /f/:id (the share link), its status JSON (polled while processing) and
// its text page; a version's page text as JSON (fetched by the reader when search first needs it);
// GET /w/:workspace/:slug (a readable address that redirects to it); and the reader's two static
// assets. Every body here goes through sendBody: an ETag (304s), compressed as negotiated.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { servablePagesStatus } from '../../projections/files.ts';
import { findFlipbookBySlug } from '../../projections/flipbooks.ts';
import type { Db } from '../../projections/readTable.ts';
import { findWorkspaceByName } from '../../projections/workspaces.ts';
import type { BlobStore } from '../blobs/blobStore.ts';
import { NotFound } from '../domain/errors.ts';
import { isUuid } from '../domain/uuid.ts';
import type { Urls } from '../http/present.ts';
import { sendBody } from '../http/sendBody.ts';
import type { Request, Routes } from '../http/server.ts';
import { asUnavailable } from '../http/unavailable.ts';
import { findAsset } from './assets.ts';
import { loadPageTexts, loadReaderBook, readerStatus } from './readerData.ts';
import {
  notFoundPage,
  readerHeaders,
  readerPage,
  stalledPage,
  unavailablePage,
} from './readerPage.ts';
import { textPage } from './textPage.ts';

const IMMUTABLE = 'public, max-age=31536000, immutable';

export const mountReader = (routes: Routes, deps: { db: Db; blobs: BlobStore; urls: Urls }) => {
  const sendHtml = htmlSender(deps.urls.imageOrigin);
  const book = (id = '', withLeadTexts = true) =>
    isUuid(id)
      ? loadReaderBook(deps.db, deps.blobs, deps.urls, id.toLowerCase(), withLeadTexts)
      : Promise.resolve(null);

  /**
   * A page for people: when the service cannot answer (503), a browser gets a page in words with
   * the same status and Retry-After; any other client the JSON every route gives.
   */
  const page =
    (handler: (req: Request, res: ServerResponse) => Promise<void>) =>
    async (req: Request, res: ServerResponse) => {
      try {
        await handler(req, res);
      } catch (error) {
        const unavailable = asUnavailable(error);
        if (!unavailable || res.headersSent || !/\btext\/html\b/.test(req.headers.accept ?? '')) {
          throw error;
        }
        for (const [name, value] of Object.entries(unavailable.headers)) res.setHeader(name, value);
        await sendHtml(req, res, 503, stalledPage());
      }
    };

  routes.get(
    '/f/:id',
    page(async (req, res) => {
      const found = await book(req.params.id);
      if (!found) return sendHtml(req, res, 404, notFoundPage());
      // Gone for now, not unknown: 410 tells crawlers to drop it; the link works again on restore.
      if (found === 'archived') return sendHtml(req, res, 410, unavailablePage());
      // No version could be processed: nothing to read (a new version brings the link to life).
      if (found.status === 'error') return sendHtml(req, res, 404, notFoundPage());
      await sendHtml(req, res, 200, readerPage(found));
    }),
  );

  // The text of every page, as a document: for search engines, screen readers, no JavaScript.
  routes.get(
    '/f/:id/text',
    page(async (req, res) => {
      const found = await book(req.params.id, false);
      if (!found) return sendHtml(req, res, 404, notFoundPage());
      if (found === 'archived') return sendHtml(req, res, 410, unavailablePage());
      if (found.status === 'error') return sendHtml(req, res, 404, notFoundPage());
      const texts = found.versionId
        ? await loadPageTexts(deps.db, deps.blobs, found.versionId)
        : [];
      await sendHtml(req, res, 200, textPage(found, texts));
    }),
  );

  // Polled by the reader while its version is processing: a few hundred bytes, and a 304 when
  // nothing changed, instead of the whole page again.
  routes.get('/f/:id/status.json', async (req, res) => {
    const found = await book(req.params.id, false);
    if (!found || found === 'archived' || found.status === 'error') throw new NotFound('Not found');
    await sendJson(req, res, readerStatus(found), 'no-cache');
  });

  // A version's page text, built from each page's text.txt. Like the page files: a 404 once the
  // version is deleted or its flipbook archived; immutable once the version is done.
  routes.get('/files/pages/:versionId/text.json', async (req, res) => {
    const id = (req.params.versionId ?? '').toLowerCase();
    const status = isUuid(id) ? await servablePagesStatus(deps.db, id) : null;
    if (status === null) throw new NotFound('Not found');
    const pages = await loadPageTexts(deps.db, deps.blobs, id);
    await sendJson(req, res, { versionId: id, pages }, status === 'done' ? IMMUTABLE : 'no-cache');
  });

  // The readable address of a flipbook: its workspace's name and its slug. It follows the slug
  // (which may change) to the share link (which never does), so it is a 302 and never cached.
  routes.get(
    '/w/:workspace/:slug',
    page(async (req, res) => {
      const name = decodeParam(req.params.workspace);
      const slug = decodeParam(req.params.slug);
      const workspace = name ? await findWorkspaceByName(deps.db, name) : null;
      const found =
        workspace && slug ? await findFlipbookBySlug(deps.db, workspace.id, slug) : null;
      if (!found) return sendHtml(req, res, 404, notFoundPage());
      res.writeHead(302, {
        Location: deps.urls.reader(found.flipbook_id),
        'Cache-Control': 'no-cache',
        'Content-Length': 0,
      });
      res.end();
    }),
  );

  // No icon of our own; answering stops browsers from logging a 404 on every visit.
  routes.get('/favicon.ico', (_req, res) => {
    res.writeHead(204, { 'Cache-Control': 'public, max-age=86400' });
    res.end();
  });

  // reader.<hash>.js and .css are immutable; the plain names answer too, revalidated.
  routes.get('/reader/:file', async (req, res) => {
    const found = findAsset(req.params.file ?? '');
    if (!found) return sendHtml(req, res, 404, notFoundPage());
    await sendBody(
      req,
      res,
      200,
      {
        'Content-Type': found.asset.type,
        'Cache-Control': found.immutable ? IMMUTABLE : 'public, no-cache',
        'X-Content-Type-Options': 'nosniff',
      },
      found.asset.body,
    );
  });
};

/**
 * A path segment as the client meant it; null when it is not valid percent-encoding or holds a
 * NUL, which no name or slug can (and PostgreSQL would refuse as text).
 */
const decodeParam = (raw = '') => {
  try {
    const value = decodeURIComponent(raw);
    return value.includes('\u0000') ? null : value;
  } catch {
    return null;
  }
};

const htmlSender =
  (imageOrigin: string | null) =>
  (req: IncomingMessage, res: ServerResponse, status: number, html: string) =>
    sendBody(
      req,
      res,
      status,
      {
        ...readerHeaders(imageOrigin),
        'Content-Type': 'text/html; charset=utf-8',
        // Shows the active version: must be revalidated (its ETag) when another version is activated.
        'Cache-Control': 'no-cache',
      },
      html,
    );

const sendJson = (req: IncomingMessage, res: ServerResponse, body: unknown, cache: string) =>
  sendBody(
    req,
    res,
    200,
    {
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': cache,
      'X-Content-Type-Options': 'nosniff',
    },
    JSON.stringify(body),
  );
