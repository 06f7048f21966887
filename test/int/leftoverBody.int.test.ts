// An answer given before the body was read (a 503 while the database is away, before an upload
// was looked at): a small body still arriving is read to its end first, so its client hears the
// answer instead of a reset; a large one is not (src/http/bodyLimit.ts, drainSmallLeftover).
// A real server and a real client, the body sent in two halves around the server's decision.
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainSmallLeftover } from '../../src/http/bodyLimit.ts';

let server: ReturnType<typeof createServer>;
let port = 0;
/** what the server decided for each request, by its path */
const drained = new Map<string, boolean>();
/** resolved when the server has the request's headers and is about to answer */
const seen = new Map<string, () => void>();

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const path = req.url ?? '';
    seen.get(path)?.();
    const read = await drainSmallLeftover(req);
    drained.set(path, read);
    if (!read) res.setHeader('Connection', 'close');
    res.writeHead(503, { 'Retry-After': '5', 'Content-Type': 'text/plain' });
    res.end('unavailable');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** POSTs `size` bytes declared, the second half only once the server is answering. */
const post = (path: string, size: number) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const answering = new Promise<void>((r) => seen.set(path, r));
    const req = request(
      { port, path, method: 'POST', headers: { 'content-length': String(size) } },
      (res) => {
        let body = '';
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.write(Buffer.alloc(Math.floor(size / 2), 'a'));
    void answering.then(() => req.end(Buffer.alloc(size - Math.floor(size / 2), 'b')));
  });

describe('a body an early answer left unread', () => {
  it('is read to its end when small: the client hears the answer', async () => {
    expect(await post('/small', 64 * 1024)).toEqual({ status: 503, body: 'unavailable' });
    expect(drained.get('/small')).toBe(true);
  });

  it('is not read when large: the connection closes after the answer', async () => {
    const declared = 8 * 1024 * 1024;
    const reply = await post('/large', declared).catch((error: Error) => error);
    // The client may hear the answer or a reset while it still sends: either way, not read.
    expect(drained.get('/large')).toBe(false);
    if (!(reply instanceof Error)) expect(reply.status).toBe(503);
  });
});
