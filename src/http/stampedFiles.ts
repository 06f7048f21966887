// A link's files for a reader it marks (issue 44, `watermark`; src/http/files.ts sends the rest):
// every page image and tile with the reader's address and the day drawn into it
// (src/pdf/stampImage.ts, ~20 ms of CPU on a 1000 px page), the first pages marked ahead of
// the browser's requests (markAhead), and the PDF stamped
// on every page (src/app/stampedDownloads.ts). Never cached but by the reader's browser, and
// revalidated: the ETag names the file and the stamp, so a new day (a new stamp) is a new image.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { StampedDownloads } from '../app/stampedDownloads.ts';
import type { BlobStore } from '../blobs/blobStore.ts';
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
 * Marked images kept for the next time they are asked for (a reader turning back, a browser
 * that did not keep its copy), the least recently used out past KEPT_BYTES. By ETag: one names
 * the file and the stamp.
 */
const KEPT_BYTES = 64 * 1024 * 1024;
const keptImages = new Map<string, Buffer>();
let keptBytes = 0;
const kept = (etag: string) => {
  const bytes = keptImages.get(etag);
  if (bytes) {
    // most recently used last
    keptImages.delete(etag);
    keptImages.set(etag, bytes);
  }
  return bytes;
};
const keep = (etag: string, bytes: Buffer) => {
  keptImages.set(etag, bytes);
  keptBytes += bytes.length;
  for (const [oldest, kept] of keptImages) {
    if (keptBytes <= KEPT_BYTES) break;
    keptImages.delete(oldest);
    keptBytes -= kept.length;
  }
  return bytes;
};

/** Images being marked now, by ETag: a request for one waits for it rather than marking it again. */
const marking = new Map<string, Promise<Buffer>>();

/** The marked image of this ETag: kept, being made (waited for), or made now and kept. */
const markedImage = (
  etag: string,
  bytes: () => Promise<Buffer>,
  stamp: string,
  quality: number,
): Promise<Buffer> => {
  const done = kept(etag);
  if (done) return Promise.resolve(done);
  let made = marking.get(etag);
  if (!made) {
    made = (async () => keep(etag, await stampImage(await bytes(), stamp, { quality })))();
    marking.set(etag, made);
    const settled = () => marking.delete(etag);
    made.then(settled, settled);
  }
  return made;
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
  const marked = await markedImage(etag, () => image.bytes(), stamp, image.quality);
  res.writeHead(200, { ...common, 'Content-Length': marked.length });
  res.end(isHead(req) ? undefined : marked);
};

/** The pages marked ahead: the reader shows the first and asks for the next two with it. */
const AHEAD = 3;

/**
 * Marks the first pages' images (mid: what the reader shows first) while the reader's page, its
 * stylesheet and its script are on their way, so that they are ready (kept under the ETag the
 * request will name) when the browser asks for them: marking is what a marked page costs
 * (src/pdf/stampImage.ts), and the machine is otherwise idle in those tens of milliseconds.
 * Never rejects.
 */
export const markAhead = (
  blobs: Pick<BlobStore, 'openPageFile'>,
  version: { id: string; pages: number },
  stamp: string,
) => {
  for (let position = 1; position <= Math.min(AHEAD, version.pages); position++) {
    (async () => {
      const blob = await blobs.openPageFile(version.id, position, 'mid.jpg');
      if (!blob) return;
      try {
        await markedImage(etagOf(blob.etag, stamp), () => bytesOf(blob), stamp, QUALITY.mid);
      } finally {
        await blob.close();
      }
    })().catch(() => {});
  }
};

/** The renditions' JPEG qualities (src/pdf/renditions.ts): a marked image keeps its own. */
export const QUALITY = { min: 82, mid: 82, max: 75 } as const;

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
  // A client gone while the copy was being made (its 'close' already past): nothing is opened.
  // (pipeline refuses a response already destroyed, ERR_STREAM_UNABLE_TO_PIPE, and leaves the
  // file's stream as it is: its descriptor stayed open for good.)
  if (res.destroyed) return;
  const body = createReadStream(file.path);
  // A file evicted while it is sent: the client sees fewer bytes than announced.
  await pipeline(body, res).catch(() => body.destroy());
};
