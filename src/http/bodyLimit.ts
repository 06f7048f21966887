// The 10 MB limit on every request body that is not an upload. Our other endpoints take no body,
// so a body is read only to be counted and dropped; too much of it is a 413.

import type { IncomingMessage } from 'node:http';
import { AppError } from '../domain/errors.ts';
import { durationFromEnv } from '../envDuration.ts';
import { ClientClosed } from './clientGone.ts';
import { PayloadTooLarge } from './upload.ts';

export const MAX_BODY_BYTES = 10 * 1024 * 1024;

const tooLarge = () => new PayloadTooLarge('Request body too large: the limit is 10 MB');

/**
 * How long a small (non-upload) body may take to arrive: uploads alone get the hour. 30 s unless
 * FLIPBOOK_BODY_TIMEOUT_MS says otherwise (a test that sees the 408 in seconds).
 */
export const BODY_TIMEOUT_MS = durationFromEnv('FLIPBOOK_BODY_TIMEOUT_MS', 30_000);

/** The 408 of a body that has not arrived within BODY_TIMEOUT_MS: the connection closes. */
const tooSlow = () =>
  new AppError(408, 'Request timeout: the body did not arrive in time', { Connection: 'close' });

export type BodyLimits = {
  /** at most this many bytes (declared or arrived) */
  limit: number;
  tooLarge: () => Error;
  /** a client holding the connection open with a trickle (or nothing) after its headers */
  tooSlow?: () => Error;
};

/**
 * A request's body, at most `limit` bytes, within BODY_TIMEOUT_MS: every body the service reads
 * whole (an edit, a webhook, a dashboard form or JSON call), and those it only counts and drops
 * (`keep` false: the answer is an empty buffer). Past a limit the rest is read into the void and
 * the promise fails with that limit's error.
 */
export const readBody = (
  req: IncomingMessage,
  { limit, tooLarge, tooSlow: slow = tooSlow }: BodyLimits,
  keep = true,
): Promise<Buffer> => {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.reject(tooLarge());
  }
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  // Gone already (its 'error' and 'close' past): nothing more will come, and no one will read.
  if (req.destroyed) return Promise.reject(new ClientClosed());
  return new Promise((resolve, reject) => {
    const fail = (error: Error) => {
      clearTimeout(timer);
      req.removeAllListeners('data');
      req.resume();
      reject(error);
    };
    const timer = setTimeout(() => fail(slow()), BODY_TIMEOUT_MS);
    timer.unref();
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) fail(tooLarge());
      else if (keep) chunks.push(chunk);
    });
    req.on('end', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
};

/** A body no endpoint reads: counted against the 10 MB limit and dropped. */
export const discardBody = (req: IncomingMessage): Promise<void> =>
  readBody(req, { limit: MAX_BODY_BYTES, tooLarge }, false).then(() => undefined);

/** A body left unread by an early answer that is still worth reading to its end: its bound. */
const SMALL_LEFTOVER_BYTES = 1024 * 1024;
const LEFTOVER_MS = 2_000;

/**
 * Reads to its end the body an early answer left unread (a 503 before an upload was looked at),
 * when it is small (declared at most 1 MiB) and comes within 2 s: the client still sending it
 * then hears the answer on a connection it may keep, instead of a reset (`EPIPE`) from a closed
 * one. False for a larger, undeclared or slow body: the caller closes the connection.
 */
export const drainSmallLeftover = (req: IncomingMessage): Promise<boolean> => {
  const declared = Number(req.headers['content-length']);
  if (req.complete) return Promise.resolve(true);
  if (!(declared <= SMALL_LEFTOVER_BYTES) || req.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (drained: boolean) => {
      clearTimeout(timer);
      resolve(drained);
    };
    const timer = setTimeout(() => done(false), LEFTOVER_MS);
    timer.unref();
    req.once('end', () => done(true));
    req.once('error', () => done(false));
    req.once('close', () => done(req.complete));
    req.resume();
  });
};
