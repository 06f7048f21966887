// An upload still being sent when its answer comes: a new flipbook POSTed as multipart, its file
// written piece by piece as a client on a real link sends it, and no more of it once answered.
// For what a store's fault does to an upload under way (test/int/uploadFaults.int.test.ts,
// test/e2e/bucketFaults.e2e.test.ts).
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, request } from 'node:http';
import { multipartEnvelope } from './apiHelpers.ts';

export type PacedAnswer = {
  status: number;
  headers: IncomingMessage['headers'];
  /** the answer's body, as text */
  text: string;
  /** performance.now() at the request's start, at its answer, and when `at` ran (0: never) */
  startedAt: number;
  answeredAt: number;
  eventAt: number;
  /** bytes of the file sent when the answer came */
  sent: number;
};

/**
 * POSTs a file of `size` bytes, `piece(sent)` the next piece of it, to `api` with `key`. With
 * `bytesPerSecond` the pieces are paced by the clock (a slow link, as `curl --limit-rate`),
 * without it as fast as the socket takes them; `at.run` runs once `at.atBytes` are sent.
 */
export const pacedUpload = (
  api: string,
  key: string,
  file: { name: string; size: number; piece: (sent: number) => Buffer },
  options: { bytesPerSecond?: number; at?: { atBytes: number; run: () => void } } = {},
) =>
  new Promise<PacedAnswer>((resolve, reject) => {
    const { bytesPerSecond, at } = options;
    const envelope = multipartEnvelope({}, file.name);
    const req = request(`${api}/flipbooks`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': envelope.contentType,
        'content-length': String(envelope.head.length + file.size + envelope.tail.length),
        'idempotency-key': randomUUID(),
      },
    });
    const startedAt = performance.now();
    let eventAt = 0;
    let sent = 0;
    let answered = false;
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    req.once('response', async (res) => {
      answered = true;
      const answeredAt = performance.now();
      let text = '';
      for await (const chunk of res) text += chunk;
      req.destroy();
      const { statusCode: status = 0, headers } = res;
      resolve({ status, headers, text, startedAt, answeredAt, eventAt, sent });
    });
    req.write(envelope.head);
    const pump = () => {
      if (answered || req.destroyed) return;
      if (at && !eventAt && sent >= at.atBytes) {
        at.run();
        eventAt = performance.now();
      }
      if (sent >= file.size) return void req.end(envelope.tail);
      const next = file.piece(sent);
      sent += next.length;
      const ready = req.write(next);
      if (bytesPerSecond) {
        const due = startedAt + (sent / bytesPerSecond) * 1000;
        setTimeout(pump, Math.max(0, due - performance.now()));
      } else if (ready) setTimeout(pump, 5);
      else req.once('drain', pump);
    };
    pump();
  });
