// The 10 MB limit on every request body that is not an upload. Our other endpoints take no body,
// so a body is read only to be counted and dropped; too much of it is a 413.
import type { IncomingMessage } from 'node:http';
import { AppError } from '../domain/errors.ts';
import { PayloadTooLarge } from './upload.ts';

export const MAX_BODY_BYTES = 10 * 1024 * 1024;

const tooLarge = () => new PayloadTooLarge('Request body too large: the limit is 10 MB');

/** How long a small (non-upload) body may take to arrive: uploads alone get the hour. */
export const BODY_TIMEOUT_MS = 30_000;

/**
 * Fails a body that has not arrived within BODY_TIMEOUT_MS: a client holding a connection open
 * with a trickle (or nothing) after its headers gets a 408, and the connection closes.
 * Returns the cancel function for when the body did arrive.
 */
export const bodyDeadline = (req: IncomingMessage, reject: (error: Error) => void) => {
  const timer = setTimeout(() => {
    req.removeAllListeners('data');
    req.resume();
    reject(
      new AppError(408, 'Request timeout: the body did not arrive in time', {
        Connection: 'close',
      }),
    );
  }, BODY_TIMEOUT_MS);
  timer.unref();
  return () => clearTimeout(timer);
};

export const discardBody = (req: IncomingMessage): Promise<void> => {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) return Promise.reject(tooLarge());
  if (req.readableEnded) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const arrived = bodyDeadline(req, reject);
    let seen = 0;
    req.on('data', (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > MAX_BODY_BYTES) {
        req.removeAllListeners('data');
        req.resume();
        reject(tooLarge());
      }
    });
    req.on('end', () => {
      arrived();
      resolve();
    });
    req.on('error', (error) => {
      arrived();
      reject(error);
    });
  });
};
