// A link's files for a reader it marks (issue 44, `watermark`; src/http/files.ts sends the rest):
// every page image and tile with the reader's address and the day drawn into it
// (src/pdf/stampImage.ts, ~13 ms on a 1000 px page once its mark is made), and the PDF stamped
// on every page (src/app/stampedDownloads.ts). Never cached but by the reader's browser, and
// revalidated: the ETag names the file and the stamp, so a new day (a new stamp) is a new image.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StampedDownloads } from '../app/stampedDownloads.ts';
import type { OpenedBlob } from '../blobs/objectStore.ts';
import { NotFound } from '../domain/errors.ts';
import { stampImage } from '../pdf/stampImage.ts';
import { isHead } from './server.ts';

/** Whether a page file is an image a mark is drawn into. */
export const isStampedImage = (file: string) => file.endsWith('.jpg');

const etagOf = (source: string, stamp: string) =>
  `"m-${createHash('sha256').update(`${source}\u0000${stamp}`).digest('base64url').slice(0, 22)}"`;

/** The whole of an opened file (a page image: at most a few MB); the caller closes it. */
export const bytesOf = async (blob: OpenedBlob) => {
  if (blob.size === 0) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  for await (const chunk of await blob.read(0, blob.size - 1)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

/**
 * Sends a page image (or tile) with the reader's mark drawn in: 304 when the browser has this
 * one (same file, same stamp). `source`: the file's own ETag; `bytes`: read only when needed.
 */
export const sendStampedImage = async (
  req: IncomingMessage,
  res: ServerResponse,
  image: { source: string; bytes: () => Promise<Buffer>; quality: number },
  stamp: string,
  headers: Record<string, string>,
) => {
  const etag = etagOf(image.source, stamp);
  const common = { ...headers, ETag: etag, 'X-Content-Type-Options': 'nosniff' };
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, common);
    res.end();
    return;
  }
  const marked = await stampImage(await image.bytes(), stamp, { quality: image.quality });
  res.writeHead(200, { ...common, 'Content-Length': marked.length });
  res.end(isHead(req) ? undefined : marked);
};

/** Sends the original stamped for its reader (made on first download, then kept). */
export const sendStampedOriginal = async (
  req: IncomingMessage,
  res: ServerResponse,
  stamped: StampedDownloads | undefined,
  who: { readerId: string; versionId: string; checksum: string },
  stamp: string,
  headers: Record<string, string>,
) => {
  if (!stamped) throw new NotFound('Not found');
  const file = await stamped.file(who, stamp);
  res.writeHead(200, {
    ...headers,
    'Content-Length': file.size,
    'X-Content-Type-Options': 'nosniff',
  });
  if (isHead(req)) return void res.end();
  await new Promise<void>((resolve) => {
    const body = createReadStream(file.path);
    // A file evicted while it is sent: the client sees fewer bytes than announced.
    body.on('error', () => res.destroy());
    res.on('close', () => {
      body.destroy();
      resolve();
    });
    body.pipe(res);
  });
};
