// The public reader: GET /f/:id (the share link) and its two static assets.
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { Db } from '../../projections/readTable.ts';
import type { BlobStore } from '../blobs/blobStore.ts';
import { isUuid } from '../domain/uuid.ts';
import type { Urls } from '../http/present.ts';
import type { Routes } from '../http/server.ts';
import { loadReaderBook } from './readerData.ts';
import { notFoundPage, READER_HEADERS, readerPage } from './readerPage.ts';

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
    sendHtml(res, 200, readerPage(book));
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

const sendHtml = (res: ServerResponse, status: number, html: string) => {
  res.writeHead(status, {
    ...READER_HEADERS,
    'Content-Type': 'text/html; charset=utf-8',
    // Shows the active version: must be fetched again when another version is activated.
    'Cache-Control': 'no-cache',
  });
  res.end(html);
};
