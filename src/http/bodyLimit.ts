// The 10 MB limit on every request body that is not an upload. Our other endpoints take no body,
// so a body is read only to be counted and dropped; too much of it is a 413.
import type { IncomingMessage } from 'node:http';
import { PayloadTooLarge } from './upload.ts';

export const MAX_BODY_BYTES = 10 * 1024 * 1024;

const tooLarge = () => new PayloadTooLarge('Request body too large: the limit is 10 MB');

export const discardBody = (req: IncomingMessage): Promise<void> => {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) return Promise.reject(tooLarge());
  if (req.readableEnded) return Promise.resolve();
  return new Promise((resolve, reject) => {
    let seen = 0;
    req.on('data', (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > MAX_BODY_BYTES) {
        req.removeAllListeners('data');
        req.resume();
        reject(tooLarge());
      }
    });
    req.on('end', () => resolve());
    req.on('error', reject);
  });
};
