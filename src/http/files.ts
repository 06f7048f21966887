// Page images, page text and originals. URLs are built from ids and positions we validate, never
// from a path a client sends. Every file here appears under its name only when complete (written
// beside it, then renamed), and is sent from one open descriptor: exactly the size announced,
// whatever happens to the name meanwhile. Files that can no longer change are cached for a year
// as immutable: originals (named by their hash) and the pages of a finished version. A page of a
// version still processing may yet be replaced by a new attempt, so it is revalidated instead.
// Range, If-Range, ETag/Last-Modified revalidation and HEAD are answered by ./conditional.ts.
// A deleted version's files, and every file of an archived flipbook, are a 404 at once.
import { open, readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { servableOriginal, servablePagesStatus } from '../../projections/files.ts';
import type { Db } from '../../projections/readTable.ts';
import { pageWordsJson } from '../app/pageWords.ts';
import type { BlobStore, PageFile } from '../blobs/blobStore.ts';
import { AppError, NotFound } from '../domain/errors.ts';
import { isUuid } from '../domain/uuid.ts';
import type { ProcessLimits } from '../pdf/poppler.ts';
import { answerFor } from './conditional.ts';
import { sendBody } from './sendBody.ts';
import { isHead, type Routes } from './server.ts';

// words.json is answered on its own (made on first request): see below.
const TYPES: Record<Exclude<PageFile, 'words.json'>, string> = {
  'max.jpg': 'image/jpeg',
  'mid.jpg': 'image/jpeg',
  'min.jpg': 'image/jpeg',
  'text.txt': 'text/plain; charset=utf-8',
};

export const mountFiles = (
  routes: Routes,
  deps: { db: Db; blobs: BlobStore; limits: ProcessLimits },
) => {
  routes.get('/files/pages/:versionId/:position/:file', async (req, res) => {
    const { versionId = '', position = '', file = '' } = req.params;
    if (file === 'words.json' && isUuid(versionId) && /^[1-9]\d{0,5}$/.test(position)) {
      // A finished page's words and their boxes, for the reader's search highlights.
      const json = await pageWordsJson(deps, versionId.toLowerCase(), Number(position));
      return sendBody(
        req,
        res,
        200,
        {
          'Content-Type': 'application/json; charset=utf-8',
          'Cache-Control': IMMUTABLE,
          'X-Content-Type-Options': 'nosniff',
        },
        json,
      );
    }
    if (!isUuid(versionId) || !/^[1-9]\d{0,5}$/.test(position) || !(file in TYPES)) {
      throw new NotFound('Not found');
    }
    const id = versionId.toLowerCase();
    // Checked before the file is opened: gone for the web at once, even before (or if never) removed.
    const status = await servablePagesStatus(deps.db, id);
    if (status === null) throw new NotFound('Not found');
    const kind = file as keyof typeof TYPES;
    await sendFile(req, res, deps.blobs.pagePath(id, Number(position), kind), {
      'Content-Type': TYPES[kind],
      'Cache-Control': status === 'done' ? IMMUTABLE : REVALIDATE,
    });
  });

  // A processed version's structure (docs/processing.md, "Document structure"): title,
  // direction, outline, page labels and links, for the reader. Written once the version is done
  // (versions processed before it have none: 404), so it is immutable, and compressed (it is
  // mostly JSON text).
  routes.get('/files/pages/:versionId/document.json', async (req, res) => {
    const id = (req.params.versionId ?? '').toLowerCase();
    const status = isUuid(id) ? await servablePagesStatus(deps.db, id) : null;
    if (status !== 'done') throw new NotFound('Not found');
    const content = await readFile(deps.blobs.documentPath(id)).catch(() => null);
    if (!content) throw new NotFound('Not found');
    await sendBody(
      req,
      res,
      200,
      {
        'Content-Type': 'application/json; charset=utf-8',
        'Cache-Control': IMMUTABLE,
        'X-Content-Type-Options': 'nosniff',
      },
      content,
    );
  });

  routes.get('/files/originals/:versionId', async (req, res) => {
    const versionId = req.params.versionId ?? '';
    if (!isUuid(versionId)) throw new NotFound('Not found');
    // Only while the flipbook allows downloads: turning them off closes the link too.
    const version = await servableOriginal(deps.db, versionId.toLowerCase());
    if (!version) throw new NotFound('Not found');
    await sendFile(req, res, deps.blobs.originalPath(version.checksum), {
      'Content-Type': 'application/pdf',
      'Content-Disposition': contentDisposition(version.file_name),
      'Cache-Control': IMMUTABLE,
    });
  });
};

const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'public, no-cache';

const sendFile = async (
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  headers: Record<string, string>,
) => {
  const handle = await open(path, 'r').catch(() => null);
  if (!handle) throw new NotFound('Not found');
  try {
    // Size and validators from the open descriptor: the bytes we send are this file's, even if the
    // name is renamed over or removed while they go out.
    const info = await handle.stat();
    if (!info.isFile()) throw new NotFound('Not found');
    const etag = `"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
    const lastModified = info.mtime.toUTCString();
    const answer = answerFor(req.headers, info.size, { etag, lastModified });
    if (answer.status === 412) throw new AppError(412, 'Precondition failed');
    if (answer.status === 416) {
      throw new AppError(416, 'Range not satisfiable', { 'Content-Range': `bytes */${info.size}` });
    }
    res.setHeader('ETag', etag);
    res.setHeader('Last-Modified', lastModified);
    res.setHeader('Cache-Control', headers['Cache-Control'] ?? REVALIDATE);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (answer.status === 304) {
      res.statusCode = 304;
      res.end();
      return;
    }
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.setHeader('Accept-Ranges', 'bytes');
    const { start, end } = answer;
    if (answer.status === 206) res.setHeader('Content-Range', `bytes ${start}-${end}/${info.size}`);
    res.setHeader('Content-Length', end - start + 1);
    res.statusCode = answer.status;
    if (isHead(req) || end < start) return void res.end();
    await new Promise<void>((resolve, reject) => {
      // `end` bounds the read to the length announced; autoClose off: the handle is closed below.
      const stream = handle.createReadStream({ start, end, autoClose: false });
      stream.on('error', reject);
      res.on('close', resolve);
      stream.pipe(res);
    });
  } finally {
    await handle.close().catch(() => {});
  }
};

/** attachment; filename="ascii fallback"; filename*=UTF-8''percent-encoded (RFC 6266 / 5987) */
export const contentDisposition = (name: string) => {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
};
