// A real HTTP receiver for webhook deliveries, and their verification with `standardwebhooks` (the
// reference implementation): for the webhook suites, in process (test/spec) and on daemons (e2e).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { Json } from './apiHelpers.ts';

export type Received = { path: string; headers: IncomingHttpHeaders; body: string; at: number };

/**
 * A local receiver: records every request with the time `now()` says (the app's clock); answers
 * what `answer(path, n)` says (default 200).
 */
export const startReceiver = async (now: () => number = Date.now) => {
  const received: Received[] = [];
  let answer: (path: string, n: number) => number = () => 200;
  /** paths answered only after this many ms (a slow receiver) */
  const slow = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({
        path,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: now(),
      });
      res.statusCode = answer(path, received.filter((r) => r.path === path).length);
      const delay = slow.get(path) ?? 0;
      if (delay > 0) setTimeout(() => res.end('ok'), delay);
      else res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    received,
    at: (path: string) => received.filter((r) => r.path === path),
    answerWith: (f: (path: string, n: number) => number) => {
      answer = f;
    },
    slowDown: (path: string, ms: number) => slow.set(path, ms),
    /** Stops at once: requests still held (a slow path) are cut, as a receiver going away. */
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
};
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** The delivery's body when its signature verifies with the endpoint's secret (throws if not). */
export const verified = (secret: string, r: Received) =>
  new Webhook(secret).verify(r.body, {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  }) as { type: string; timestamp: string; data: Json };
