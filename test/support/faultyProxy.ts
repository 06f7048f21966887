// A fault-injecting HTTP proxy in front of the suite's S3 server (s3rver): real HTTP both ways,
// the faults a real object store shows. Modes, switched at any time:
// - `pass`: forwards every request as it is;
// - `freeze`: the store stops answering: requests in flight stop being forwarded (their bodies
//   and answers stall mid-stream), new ones are accepted and held; nothing is ever answered
//   until `pass` again, which cuts what it held (as a store that comes back resets old streams);
// - `fail`: `percent` of requests answer 500 InternalError, chosen by a seeded counter (the same
//   requests fail on every run), the rest forward; `only` narrows it to some requests (the
//   pages from the 13th on, say);
// - `delay`: every request waits `ms` before it is forwarded (a slow store).
// It counts what it saw: requests by method, and the keys stored (a PUT answered 2xx, multipart
// parts included), so a test can tell a page stored twice from a page stored once.
import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type FaultMode =
  | { kind: 'pass' }
  | { kind: 'freeze' }
  | {
      kind: 'fail';
      percent: number;
      seed?: number;
      /** only requests this says yes to (by method and path) may fail; all by default */
      only?: (method: string, path: string) => boolean;
    }
  | { kind: 'delay'; ms: number };

export type FaultyProxy = {
  endpoint: string;
  set: (mode: FaultMode) => void;
  /** requests seen since start (or the last reset), by method, and those answered 500 by us */
  counts: () => { requests: number; byMethod: Record<string, number>; failed: number };
  /** keys stored through the proxy (a PUT answered 2xx), with how many times each */
  stored: () => Map<string, number>;
  reset: () => void;
  close: () => Promise<void>;
};

const S3_ERROR = (code: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>injected by the test proxy</Message></Error>`;

export const startFaultyProxy = async (target: string): Promise<FaultyProxy> => {
  const upstream = new URL(target);
  let mode: FaultMode = { kind: 'pass' };
  let counter = 0;
  let requests = 0;
  let failed = 0;
  const byMethod: Record<string, number> = {};
  const stored = new Map<string, number>();
  /** what `freeze` holds: to cut when the store comes back */
  const held = new Set<Socket>();
  /** exchanges in flight, to stall when the store freezes */
  const inFlight = new Set<() => void>();
  const sockets = new Set<Socket>();

  /**
   * Deterministic for a seed: the n-th request fails when the n-th draw of a seeded generator
   * (mulberry32) is below `percent`; failures come in runs, as a flaky store's do.
   */
  const failsNow = (percent: number, seed: number) => {
    counter++;
    let t = (seed + counter * 0x6d2b79f5) >>> 0;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const draw = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    return draw * 100 < percent;
  };

  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const out = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        if (answer.statusCode && answer.statusCode < 300 && req.method === 'PUT') {
          const key = decodeURIComponent((req.url ?? '').split('?')[0] ?? '');
          stored.set(key, (stored.get(key) ?? 0) + 1);
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    res.on('close', () => out.destroy());
    req.pipe(out);
    const stall = () => {
      held.add(req.socket);
      req.unpipe(out);
      req.pause();
      out.removeAllListeners('response');
      out.on('response', (answer) => answer.pause());
      // An answer already coming stops where it is.
      (out as unknown as { res?: IncomingMessage }).res?.unpipe(res);
    };
    inFlight.add(stall);
    res.on('close', () => inFlight.delete(stall));
  };

  const server = createServer((req, res) => {
    requests++;
    byMethod[req.method ?? '?'] = (byMethod[req.method ?? '?'] ?? 0) + 1;
    const now = mode;
    if (now.kind === 'freeze') {
      req.pause();
      held.add(req.socket);
      return;
    }
    const path = decodeURIComponent((req.url ?? '').split('?')[0] ?? '');
    if (
      now.kind === 'fail' &&
      (now.only?.(req.method ?? '', path) ?? true) &&
      failsNow(now.percent, now.seed ?? 0)
    ) {
      failed++;
      // Read the body away first, as a store does: the client is then free to read the answer.
      req.resume();
      req.on('end', () => {
        const body = S3_ERROR('InternalError');
        res.writeHead(500, {
          'Content-Type': 'application/xml',
          'Content-Length': Buffer.byteLength(body),
        });
        res.end(body);
      });
      return;
    }
    if (now.kind === 'delay') {
      req.pause();
      const timer = setTimeout(() => forward(req, res), now.ms);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    forward(req, res);
  });
  server.keepAliveTimeout = 60_000;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    set: (next) => {
      if (next.kind === 'freeze') for (const stall of inFlight) stall();
      if (mode.kind === 'freeze' && next.kind !== 'freeze') {
        for (const socket of held) socket.destroy();
        held.clear();
      }
      mode = next;
    },
    counts: () => ({ requests, byMethod: { ...byMethod }, failed }),
    stored: () => new Map(stored),
    reset: () => {
      requests = 0;
      failed = 0;
      counter = 0;
      for (const method of Object.keys(byMethod)) delete byMethod[method];
      stored.clear();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
