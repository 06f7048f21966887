// A stored file sent as opened (a page image, an original): exactly the size announced, with its
// validators, ranges and HEAD answered by ./conditional.ts, and the file closed however the
// exchange ends.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { OpenedBlob } from '../blobs/blobStore.ts';
import { AppError, NotFound } from '../domain/errors.ts';
import { answerFor } from './conditional.ts';
import { isHead } from './server.ts';

/** Files that may still change: kept, and asked again every time. */
export const REVALIDATE = 'public, no-cache';

export const sendFile = async (
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
    // A read failing midway (a disk error, the bucket going away) cuts the response short: the
    // client sees fewer bytes than announced, never other bytes. A client gone meanwhile (a
    // reader cancelling an image it no longer wants: before, during or after the file was
    // opened) ends it too, and the file is closed: waiting for a 'close' that had already
    // happened held the file open until the garbage collector closed it.
    if (res.destroyed) return void body.destroy(); // (pipeline would refuse it, leaving body)
    await pipeline(body, res).catch(() => body.destroy());
  } finally {
    await blob.close();
  }
};
