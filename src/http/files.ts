// Page images, page text and originals. URLs are built from ids and positions we validate, never
// from a path a client sends. Every file here appears under its name only when complete (written
// beside it and renamed, or a bucket's object, whole or absent), and is sent as opened: exactly
// the size announced, whatever happens to the name meanwhile. Files that can no longer change are cached for a year
// as immutable: originals (named by their hash) and the pages of a finished version. A page of a
// version still processing may yet be replaced by a new attempt, so it is revalidated instead.
// Range, If-Range, ETag/Last-Modified revalidation and HEAD are answered by ./conditional.ts.
// A deleted version's files, and every file of an archived flipbook, are a 404 at once.
// A link that marks its reader's pages (issue 44) has them stamped on the way (./stampedFiles.ts).
// One file (over 300 lines): every route of a version's files, behind the same gate.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { demandRendition, RenditionBusy } from '../app/laterRenditions.ts';
import { ANSWER_MS, pageTile } from '../app/pageTiles.ts';
import { pageWordsJson } from '../app/pageWords.ts';
import type { AccessDeps } from '../app/readerAccess.ts';
import type { StampedDownloads } from '../app/stampedDownloads.ts';
import type { TileCache } from '../app/tileCache.ts';
import { type BlobStore, type PageFile, TILE_FILE } from '../blobs/blobStore.ts';
import { NotFound } from '../domain/errors.ts';
import { isUuid } from '../domain/uuid.ts';
import type { RenderOptions } from '../pdf/renderPdf.ts';
import { RENDITIONS, type RenditionName } from '../pdf/renditions.ts';
import { versionAccess } from '../queries/access.ts';
import type { Db } from '../readTables/readTable.ts';
import { countReaderDownload } from '../state/linkReaders.ts';
import { type FileGate, grantGate, previewGate, publicGate } from './fileGates.ts';
import { arrivedAt } from './requestContext.ts';
import { sendBody } from './sendBody.ts';
import { REVALIDATE, sendFile } from './sendFile.ts';
import { isHead, type Request, type Routes } from './server.ts';
import {
  bytesOf,
  isStampedImage,
  QUALITY,
  sendStampedImage,
  sendStampedOriginal,
} from './stampedFiles.ts';

// words.json and the tiles are answered on their own (made on first request): see below.
const TYPES: Record<Exclude<PageFile, 'words.json' | `tile-${string}`>, string> = {
  'max.jpg': 'image/jpeg',
  'mid.jpg': 'image/jpeg',
  'min.jpg': 'image/jpeg',
  'text.txt': 'text/plain; charset=utf-8',
  'before.jpg': 'image/jpeg',
  'before-min.jpg': 'image/jpeg',
  'diff.jpg': 'image/jpeg',
};

export type FileDeps = {
  db: Db;
  blobs: BlobStore;
  render: RenderOptions;
  access: AccessDeps;
  /** the kept tiles' budget (src/app/tileCache.ts) */
  tiles: TileCache;
  /** downloads stamped with their reader (a link's `watermark`; src/app/stampedDownloads.ts) */
  stamped?: StampedDownloads;
};

const COMPARISON_FILES = new Set<string>(['before.jpg', 'before-min.jpg', 'diff.jpg']);

/** Names the image sent (or redirected to) in place of the one asked for, not there yet. */
export const STAND_IN = 'X-Flipbook-Stand-In';

/**
 * The files at /files/... answer for public books (and for the API key of the book's own
 * workspace, whose answers name these URLs); the same files at /a/<grant>/... for whoever holds
 * a grant to the book (src/app/readerAccess.ts), and a preview's at /p/<token>/..., checked on
 * every request.
 */
export const mountFiles = (routes: Routes, deps: FileDeps) => {
  mountVersionFiles(routes, '/files', deps, (req) => publicGate(deps, req));
  mountVersionFiles(routes, '/a/:grant', deps, (req) =>
    grantGate(deps.access, req.params.grant ?? ''),
  );
  mountVersionFiles(routes, '/p/:token', deps, (req) =>
    previewGate(deps.access, req.params.token ?? ''),
  );
};

/** The version a request names, when its files may be served to this requester. */
export const gatedVersion = async (db: Db, rawId: string, gate: FileGate) => {
  const id = rawId.toLowerCase();
  const version = isUuid(id) ? await versionAccess(db, id) : null;
  const allowed = version && (await gate(version));
  return version && allowed ? { id, version, ...allowed } : null;
};

const mountVersionFiles = (
  routes: Routes,
  prefix: string,
  deps: FileDeps,
  gateOf: (req: Request) => FileGate,
) => {
  const words = { ...deps, limits: deps.render.limits };
  const tileDeps = { ...words, slots: deps.render.slots, cache: deps.tiles };
  routes.get(`${prefix}/pages/:versionId/:position/:file`, async (req, res) => {
    const { versionId = '', position = '', file = '' } = req.params;
    const tile = TILE_FILE.test(file) ? file.slice(5, -4).split('-').map(Number) : null;
    const known = file === 'words.json' || file in TYPES || tile !== null;
    if (!isUuid(versionId) || !/^[1-9]\d{0,5}$/.test(position) || !known) {
      throw new NotFound('Not found');
    }
    // Checked before the file is opened: gone for the web at once, even before (or if never) removed.
    const found = await gatedVersion(deps.db, versionId, gateOf(req));
    if (!found) throw new NotFound('Not found');
    const { id } = found;
    if (file === 'words.json') {
      // A finished page's words and their boxes, for the reader's search highlights.
      const json = await pageWordsJson(words, id, Number(position));
      return sendBody(req, res, 200, finishedJson(found.private), json);
    }
    if (tile) {
      // A tile for deep zoom (src/app/pageTiles.ts): made on first request, then kept; while it
      // is not there (answered within a second of the request's arrival), the page's best image
      // stands in for it, never cached: the reader, which shows that image under its tiles,
      // asks again later.
      const [level = 0, column = 0, row = 0] = tile;
      const where = [id, Number(position)] as const;
      const deadline = arrivedAt(req) + ANSWER_MS;
      const answer = await pageTile(tileDeps, ...where, { level, column, row }, deadline);
      const headers = {
        'Content-Type': 'image/jpeg',
        'Cache-Control': found.private ? PRIVATE : IMMUTABLE,
      };
      if (answer.kind === 'standIn') {
        res.writeHead(307, {
          Location: answer.file,
          'Cache-Control': 'no-store',
          [STAND_IN]: answer.file,
          'Content-Length': 0,
        });
        res.end();
        return;
      }
      if (found.stamp && answer.kind === 'made') {
        const { bytes } = answer;
        const image = {
          source: `${id} ${position} ${file}`,
          bytes: async () => bytes,
          quality: 82,
        };
        return sendStampedImage(req, res, image, found.stamp.text, headers);
      }
      if (found.stamp && answer.kind === 'kept') {
        const opened = answer.blob;
        const image = { source: opened.etag, bytes: () => bytesOf(opened), quality: 82 };
        try {
          return await sendStampedImage(req, res, image, found.stamp.text, headers);
        } finally {
          await opened.close();
        }
      }
      if (answer.kind === 'made') {
        res.writeHead(200, { ...headers, 'Content-Length': answer.bytes.length });
        res.end(answer.bytes);
        return;
      }
      // opened by pageTile already: not asked of the store a second time
      return sendFile(req, res, answer.blob, headers);
    }
    const kind = file as keyof typeof TYPES;
    // A comparison's images are a live preview's (a promoted one's stay behind, unserved).
    if (COMPARISON_FILES.has(kind) && !found.version.preview) throw new NotFound('Not found');
    let blob = await deps.blobs.openPageFile(id, Number(position), kind);
    const rendition = kind.replace('.jpg', '') as RenditionName;
    let standIn: 'mid.jpg' | null = null;
    let pending = false;
    const later = RENDITIONS.includes(rendition) && !deps.render.renditions.includes(rendition);
    if (!blob && later) {
      // A rendition left out of processing (processing.md, "The largest rendition"): rendered
      // now, for this page and the ones asked for with it, then sent like any other. A page
      // poppler cannot render that large gets its 1000 px image, never kept as this one; so does
      // one still rendering after a second (src/app/laterRenditions.ts), never cached at all:
      // the next request may find the real one.
      const outcome = await demandRendition(deps, id, Number(position), rendition);
      if (outcome !== 'stored') standIn = 'mid.jpg';
      pending = outcome === 'later';
      blob = await deps.blobs.openPageFile(id, Number(position), standIn ?? kind);
      if (!blob && pending) throw new RenditionBusy();
    }
    if (found.stamp && blob && isStampedImage(kind)) {
      const opened = blob;
      const image = {
        source: opened.etag,
        bytes: () => bytesOf(opened),
        quality: kind === 'max.jpg' ? QUALITY.max : QUALITY.mid,
      };
      const headers = {
        'Content-Type': TYPES[kind],
        'Cache-Control': pending ? 'no-store' : PRIVATE,
      };
      try {
        return await sendStampedImage(req, res, image, found.stamp.text, headers);
      } finally {
        await opened.close();
      }
    }
    await sendFile(req, res, blob, {
      'Content-Type': TYPES[kind],
      'Cache-Control': pending
        ? 'no-store'
        : found.private
          ? PRIVATE
          : found.version.status === 'done' && !standIn
            ? IMMUTABLE
            : REVALIDATE,
      ...(standIn ? { [STAND_IN]: standIn } : {}),
    });
  });

  // A processed version's structure (docs/processing.md, "Document structure"): title,
  // direction, outline, page labels and links, for the reader; and its lines (every page's, for
  // the reader's text in place: src/pdf/pageLines.ts). Written once the version is done
  // (versions processed before them have none: 404), so they are immutable, and compressed
  // (they are mostly JSON text).
  for (const file of ['document.json', 'lines.json'] as const) {
    routes.get(`${prefix}/pages/:versionId/${file}`, async (req, res) => {
      const found = await gatedVersion(deps.db, req.params.versionId ?? '', gateOf(req));
      if (found?.version.status !== 'done') throw new NotFound('Not found');
      const content = await deps.blobs.readDocument(found.id, file);
      if (!content) throw new NotFound('Not found');
      await sendBody(req, res, 200, finishedJson(found.private), content);
    });
  }

  routes.get(`${prefix}/originals/:versionId`, async (req, res) => {
    // Only while the flipbook (and the link read through) allows downloads: turning them off
    // closes the link too.
    const found = await gatedVersion(deps.db, req.params.versionId ?? '', gateOf(req));
    // A converted upload's PDF is there once made (processing's first step).
    const pdf = found?.version.checksum;
    if (!found?.download || !pdf) throw new NotFound('Not found');
    const headers = {
      'Content-Type': 'application/pdf',
      'Content-Disposition': contentDisposition(pdfName(found.version)),
      'Cache-Control': found.private ? PRIVATE : IMMUTABLE,
    };
    // An identified reader's download: counted for them (a whole one, not a range or HEAD).
    if (found.readerId && !isHead(req) && !req.headers.range) {
      await countReaderDownload(deps.db, found.readerId);
    }
    if (found.stamp) {
      const who = { readerId: found.stamp.readerId, versionId: found.id, checksum: pdf };
      return sendStampedOriginal(req, res, deps.stamped, who, found.stamp.text, {
        ...headers,
        'Cache-Control': 'private, no-store',
      });
    }
    await sendFile(req, res, await deps.blobs.openOriginal(pdf), headers);
  });

  // A converted upload as it came (a .docx, a deck, an image), beside the PDF made of it
  // (issue 45). Not where the reader's copy is marked for them: the mark is drawn on the PDF
  // only, and an unmarked original would undo it. A PDF upload has only the one file.
  routes.get(`${prefix}/originals/:versionId/uploaded`, async (req, res) => {
    const found = await gatedVersion(deps.db, req.params.versionId ?? '', gateOf(req));
    const version = found?.version;
    if (!found?.download || found.stamp || !version || version.file_type === 'pdf') {
      throw new NotFound('Not found');
    }
    if (found.readerId && !isHead(req) && !req.headers.range) {
      await countReaderDownload(deps.db, found.readerId);
    }
    await sendFile(req, res, await deps.blobs.openOriginal(version.uploaded_checksum), {
      'Content-Type': version.mime_type,
      'Content-Disposition': contentDisposition(version.file_name),
      'Cache-Control': found.private ? PRIVATE : IMMUTABLE,
      'X-Content-Type-Options': 'nosniff',
    });
  });
};

/** The download's name: the upload's own when it ends .pdf, else its name with `.pdf` (a PDF named .docx is a PDF). */
const pdfName = (version: { file_name: string; file_type: string }) =>
  /\.pdf$/i.test(version.file_name)
    ? version.file_name
    : `${version.file_name.replace(/\.[A-Za-z0-9]{1,5}$/, '')}.pdf`;

const IMMUTABLE = 'public, max-age=31536000, immutable';
/** A finished version's JSON files (a page's words, the document's structure): never change. */
const finishedJson = (isPrivate: boolean) => ({
  'Content-Type': 'application/json; charset=utf-8',
  'Cache-Control': isPrivate ? PRIVATE : IMMUTABLE,
  'X-Content-Type-Options': 'nosniff',
});
/**
 * A non-public book's files: kept by this browser only, and asked again every time (a 304 after
 * the access check), so a cached copy never outlives the access it was given under.
 */
export const PRIVATE = 'private, no-cache';

/** attachment; filename="ascii fallback"; filename*=UTF-8''percent-encoded (RFC 6266 / 5987) */
export const contentDisposition = (name: string) => {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
};
