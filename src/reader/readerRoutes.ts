// The public reader: GET /f/:id (the share link), GET /w/:workspace/:slug (a readable address
// that redirects to it) and the reader's two static assets.
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { findFlipbookBySlug } from '../../projections/flipbooks.ts';
import type { Db } from '../../projections/readTable.ts';
import { findWorkspaceByName } from '../../projections/workspaces.ts';
import type { BlobStore } from '../blobs/blobStore.ts';
import { isUuid } from '../domain/uuid.ts';
import type { Urls } from '../http/present.ts';
import type { Routes } from '../http/server.ts';
import { loadReaderBook } from './readerData.ts';
import { notFoundPage, READER_HEADERS, readerPage, unavailablePage } from './readerPage.ts';

const ASSETS = join(import.meta.dirname, 'assets');
const TYPES: Record<string, string> = {
  'reader.js': 'text/javascript; charset=utf-8',
  'reader.css': 'text/css; charset=utf-8',
};

export const mountReader = (routes: Routes, deps: { db: Db; blobs: BlobStore; urls: Urls }) => {
  routes.get('/f/:id', async (req, res) => {
    const id = (req.params.id ?? '').toLowerCase();
    const book = isUuid(id) ? await loadReaderBook(deps.db, deps.blobs, deps.urls, id) : null;
    if (!book) return sendHtml(res, 404, notFoundPage());
    // Gone for now, not unknown: 410 tells crawlers to drop it; the link works again on restore.
    if (book === 'archived') return sendHtml(res, 410, unavailablePage());
    sendHtml(res, 200, readerPage(book));
  });

  // The readable address of a flipbook: its workspace's name and its slug. It follows the slug
  // (which may change) to the share link (which never does), so it is a 302 and never cached.
  routes.get('/w/:workspace/:slug', async (req, res) => {
    const name = decodeParam(req.params.workspace);
    const slug = decodeParam(req.params.slug);
    const workspace = name ? await findWorkspaceByName(deps.db, name) : null;
    const book = workspace && slug ? await findFlipbookBySlug(deps.db, workspace.id, slug) : null;
    if (!book) return sendHtml(res, 404, notFoundPage());
    res.writeHead(302, {
      Location: deps.urls.reader(book.flipbook_id),
      'Cache-Control': 'no-cache',
      'Content-Length': 0,
    });
    res.end();
  });

  // No icon of our own; answering stops browsers from logging a 404 on every visit.
  routes.get('/favicon.ico', (_req, res) => {
    res.writeHead(204, { 'Cache-Control': 'public, max-age=86400' });
    res.end();
  });

  // Read once: the assets are part of the release, not data.
  const cache = new Map<string, Promise<Buffer>>();
  routes.get('/reader/:file', async (req, res) => {
    const file = req.params.file ?? '';
    const type = TYPES[file];
    if (!type) return sendHtml(res, 404, notFoundPage());
    const body = cache.get(file) ?? readFile(join(ASSETS, file));
    cache.set(file, body);
    res.writeHead(200, {
      'Content-Type': type,
      'Cache-Control': 'public, max-age=3600',
      'X-Content-Type-Options': 'nosniff',
    });
    res.end(await body);
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

const sendHtml = (res: ServerResponse, status: number, html: string) => {
  res.writeHead(status, {
    ...READER_HEADERS,
    'Content-Type': 'text/html; charset=utf-8',
    // Shows the active version: must be fetched again when another version is activated.
    'Cache-Control': 'no-cache',
  });
  res.end(html);
};
