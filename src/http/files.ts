// Page images, page text and originals. URLs are built from ids and positions we validate, never
// from a path a client sends. Every file here appears under its name only when complete (written
// beside it and renamed, or a bucket's object, whole or absent), and is sent as opened: exactly
// the size announced, whatever happens to the name meanwhile. Files that can no longer change are cached for a year
// as immutable: originals (named by their hash) and the pages of a finished version. A page of a
// version still processing may yet be replaced by a new attempt, so it is revalidated instead.
// Range, If-Range, ETag/Last-Modified revalidation and HEAD are answered by ./conditional.ts.
// A deleted version's files, and every file of an archived flipbook, are a 404 at once.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { servableOriginal, servablePagesStatus } from '../../projections/files.ts';
import type { Db } from '../../projections/readTable.ts';
import { demandRendition } from '../app/laterRenditions.ts';
import { pageWordsJson } from '../app/pageWords.ts';
import type { BlobStore, OpenedBlob, PageFile } from '../blobs/blobStore.ts';
import { AppError, NotFound } from '../domain/errors.ts';
import { isUuid } from '../domain/uuid.ts';
import type { RenderOptions } from '../pdf/renderPdf.ts';
import type { RenditionName } from '../pdf/renditions.ts';
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
  deps: { db: Db; blobs: BlobStore; render: RenderOptions },
) => {
  const words = { ...deps, limits: deps.render.limits };
  routes.get('/files/pages/:versionId/:position/:file', async (req, res) => {
    const { versionId = '', position = '', file = '' } = req.params;
    if (file === 'words.json' && isUuid(versionId) && /^[1-9]\d{0,5}$/.test(position)) {
      // A finished page's words and their boxes, for the reader's search highlights.
      const json = await pageWordsJson(words, versionId.toLowerCase(), Number(position));
      return sendBody(req, res, 200, FINISHED_JSON, json);
    }
    if (!isUuid(versionId) || !/^[1-9]\d{0,5}$/.test(position) || !(file in TYPES)) {
      throw new NotFound('Not found');
    }
    const id = versionId.toLowerCase();
    // Checked before the file is opened: gone for the web at once, even before (or if never) removed.
    const status = await servablePagesStatus(deps.db, id);
    if (status === null) throw new NotFound('Not found');
    const kind = file as keyof typeof TYPES;
    let blob = await deps.blobs.openPageFile(id, Number(position), kind);
    const rendition = kind.replace('.jpg', '') as RenditionName;
    let standIn = false;
    if (!blob && kind.endsWith('.jpg') && !deps.render.renditions.includes(rendition)) {
      // A rendition left out of processing (processing.md, "The largest rendition"): rendered
      // now, for this page and the ones asked for with it, then sent like any other. A page
      // poppler cannot render that large gets its 1000 px image, never kept as this one.
      const outcome = await demandRendition(deps, id, Number(position), rendition);
      standIn = outcome === 'unrenderable';
      blob = await deps.blobs.openPageFile(id, Number(position), standIn ? 'mid.jpg' : kind);
    }
    await sendFile(req, res, blob, {
      'Content-Type': TYPES[kind],
      'Cache-Control': status === 'done' && !standIn ? IMMUTABLE : REVALIDATE,
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
    const content = await deps.blobs.readDocument(id);
    if (!content) throw new NotFound('Not found');
    await sendBody(req, res, 200, FINISHED_JSON, content);
  });

  routes.get('/files/originals/:versionId', async (req, res) => {
    const versionId = req.params.versionId ?? '';
    if (!isUuid(versionId)) throw new NotFound('Not found');
    // Only while the flipbook allows downloads: turning them off closes the link too.
    const version = await servableOriginal(deps.db, versionId.toLowerCase());
    if (!version) throw new NotFound('Not found');
    await sendFile(req, res, await deps.blobs.openOriginal(version.checksum), {
      'Content-Type': 'application/pdf',
      'Content-Disposition': contentDisposition(version.file_name),
      'Cache-Control': IMMUTABLE,
    });
  });
};

const IMMUTABLE = 'public, max-age=31536000, immutable';
/** A finished version's JSON files (a page's words, the document's structure): never change. */
const FINISHED_JSON = {
  'Content-Type': 'application/json; charset=utf-8',
  'Cache-Control': IMMUTABLE,
  'X-Content-Type-Options': 'nosniff',
};
const REVALIDATE = 'public, no-cache';

const sendFile = async (
  req: IncomingMessage,
  res: ServerResponse,
  blob: OpenedBlob | null,
  headers: Record<string, string>,
) => {
  if (!blob) throw new NotFound('Not found');
  try {
    // Size and validators of the file as opened: the bytes we send are this file's (a directory's
    // descriptor, a bucket's object under If-Match), even if it is replaced while they go out.
    const etag = blob.etag;
    const lastModified = blob.lastModified.toUTCString();
    const answer = answerFor(req.headers, blob.size, { etag, lastModified });
    if (answer.status === 412) throw new AppError(412, 'Precondition failed');
    if (answer.status === 416) {
      throw new AppError(416, 'Range not satisfiable', { 'Content-Range': `bytes */${blob.size}` });
    }
    // Opened before any header goes out: a store failing here is still a JSON error.
    const body =
      answer.status === 304 || isHead(req) || answer.end < answer.start
        ? null
        : await blob.read(answer.start, answer.end);
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
    if (answer.status === 206) res.setHeader('Content-Range', `bytes ${start}-${end}/${blob.size}`);
    res.setHeader('Content-Length', end - start + 1);
    res.statusCode = answer.status;
    if (!body) return void res.end();
    await new Promise<void>((resolve) => {
      // A read failing midway (a disk error, the bucket going away) cuts the response short:
      // the client sees fewer bytes than announced, never other bytes.
      body.on('error', () => res.destroy());
      res.on('close', () => {
        body.destroy();
        resolve();
      });
      body.pipe(res);
    });
  } finally {
    await blob.close();
  }
};

/** attachment; filename="ascii fallback"; filename*=UTF-8''percent-encoded (RFC 6266 / 5987) */
export const contentDisposition = (name: string) => {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
};
