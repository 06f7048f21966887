// Page images, page text and originals. URLs are built from ids and positions we validate, never
// from a path a client sends, and they never change meaning (a version's pages are rendered once
// and a new upload is a new version), so they are cached for a year as immutable.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Db } from '../../projections/readTable.ts';
import type { BlobStore, PageFile } from '../blobs/blobStore.ts';
import { NotFound } from '../domain/errors.ts';
import { isUuid } from '../domain/uuid.ts';
import type { Routes } from './server.ts';

const TYPES: Record<PageFile, string> = {
  'max.jpg': 'image/jpeg',
  'mid.jpg': 'image/jpeg',
  'min.jpg': 'image/jpeg',
  'text.txt': 'text/plain; charset=utf-8',
};

export const mountFiles = (routes: Routes, deps: { db: Db; blobs: BlobStore }) => {
  routes.get('/files/pages/:versionId/:position/:file', async (req, res) => {
    const { versionId = '', position = '', file = '' } = req.params;
    if (!isUuid(versionId) || !/^[1-9]\d{0,5}$/.test(position) || !(file in TYPES)) {
      throw new NotFound('Not found');
    }
    const path = deps.blobs.pagePath(versionId.toLowerCase(), Number(position), file as PageFile);
    await sendFile(req, res, path, { 'Content-Type': TYPES[file as PageFile] });
  });

  routes.get('/files/originals/:versionId', async (req, res) => {
    const versionId = req.params.versionId ?? '';
    if (!isUuid(versionId)) throw new NotFound('Not found');
    // Only while the flipbook allows downloads: turning them off closes the link too.
    const { rows } = await deps.db.query<{ checksum: string; file_name: string }>(
      `SELECT v.checksum, v.file_name FROM versions v JOIN flipbooks f USING (flipbook_id)
       WHERE v.version_id = $1 AND f.download_allowed`,
      [versionId],
    );
    const version = rows[0];
    if (!version) throw new NotFound('Not found');
    await sendFile(req, res, deps.blobs.originalPath(version.checksum), {
      'Content-Type': 'application/pdf',
      'Content-Disposition': contentDisposition(version.file_name),
    });
  });
};

const sendFile = async (
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  headers: Record<string, string>,
) => {
  const info = await stat(path).catch(() => null);
  if (!info?.isFile()) throw new NotFound('Not found');
  const etag = `"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
  res.setHeader('ETag', etag);
  res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (req.headers['if-none-match'] === etag) {
    res.statusCode = 304;
    res.end();
    return;
  }
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Length', info.size);
  res.statusCode = 200;
  if (req.method === 'HEAD') return void res.end();
  await new Promise<void>((resolve, reject) => {
    const stream = createReadStream(path);
    stream.on('error', reject);
    res.on('close', resolve);
    stream.pipe(res);
  });
};

/** attachment; filename="ascii fallback"; filename*=UTF-8''percent-encoded (RFC 6266 / 5987) */
export const contentDisposition = (name: string) => {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
};
