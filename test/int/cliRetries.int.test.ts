// The publishing client's retry policy (packages/cli/src/client/apiClient.ts) against a server on
// a loopback port that answers as the daemon does when its disk is full: `507` with Retry-After
// (src/domain/errors.ts), then `201` once there is room. Before: a 507 ended `flipbook publish`
// at once (exit 1 after 3.7 s, measured with the blob spool's disk full), where a 503 was asked
// again; the daemon's own 507 and 503 are tested in test/int/uploadFaults.int.test.ts.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, closeConnections } from '../../packages/cli/src/client/apiClient.ts';
import { ApiError } from '../../packages/cli/src/client/cliErrors.ts';
import type { PdfFile } from '../../packages/cli/src/client/pdfFile.ts';

const FULL = 'The server is out of storage space; try again later';
const CREATED = {
  flipbook_id: '0b1f0d6a-51a8-4d6c-9c3c-3f3f3f3f3f3f',
  version_id: '1c2f0d6a-51a8-4d6c-9c3c-3f3f3f3f3f3f',
  status: 'pending',
};

let server: Server;
let url = '';
let dir = '';
let file: PdfFile;
/** how the server answers each request in turn (the last one again once they run out) */
let script: { status: number; headers?: Record<string, string>; body: object }[] = [];
let seen: { idempotencyKey: string | undefined; bytes: number }[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'flipbook-cli-retries-'));
  const path = join(dir, 'book.pdf');
  const bytes = Buffer.from('%PDF-1.4\n% a body to send\n%%EOF\n');
  await writeFile(path, bytes);
  file = { path, name: 'book.pdf', size: bytes.length };
  server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    let bytes = 0;
    for await (const chunk of req) bytes += (chunk as Buffer).length;
    const key = req.headers['idempotency-key'];
    seen.push({ idempotencyKey: typeof key === 'string' ? key : undefined, bytes });
    const answer = script[Math.min(seen.length - 1, script.length - 1)];
    const body = JSON.stringify(answer?.body ?? {});
    res.writeHead(answer?.status ?? 500, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      ...answer?.headers,
    });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await closeConnections();
  await new Promise((resolve) => server?.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

const upload = (idempotencyKey?: string) => {
  seen = [];
  const waits: string[] = [];
  const client = apiClient(
    { url, apiKey: `svc_${'a'.repeat(48)}`, urlSource: 'flag', keySource: 'flag' },
    (m) => waits.push(m),
  );
  const started = performance.now();
  return client
    .create(file, { title: 'Catalogue' }, idempotencyKey ? { idempotencyKey } : {})
    .then(
      (created) => ({ created, error: null }),
      (error: unknown) => ({ created: null, error }),
    )
    .then((outcome) => ({ ...outcome, waits, seconds: (performance.now() - started) / 1000 }));
};

describe('flipbook publish meets a full disk', () => {
  it('asks again after a 507 that says when (Retry-After), with the same Idempotency-Key', async () => {
    script = [
      { status: 507, headers: { 'retry-after': '1', connection: 'close' }, body: { error: FULL } },
      { status: 201, body: CREATED },
    ];
    const outcome = await upload('key-1');
    expect(outcome.error).toBeNull();
    expect(outcome.created).toEqual(CREATED);
    expect(seen).toEqual([
      { idempotencyKey: 'key-1', bytes: expect.any(Number) },
      { idempotencyKey: 'key-1', bytes: seen[0]?.bytes },
    ]);
    expect(outcome.waits).toEqual(['the server is out of storage space for now; retrying in 1 s']);
    expect(outcome.seconds).toBeGreaterThanOrEqual(0.95);
  });

  it('gives up after its retries when the disk stays full, saying so', async () => {
    script = [{ status: 507, headers: { 'retry-after': '1' }, body: { error: FULL } }];
    const outcome = await upload('key-2');
    expect(outcome.error).toBeInstanceOf(ApiError);
    expect((outcome.error as ApiError).message).toBe(FULL);
    expect(seen).toHaveLength(4);
  });

  it('does not ask again after a 507 without Retry-After, nor an upload without a key', async () => {
    script = [{ status: 507, body: { error: FULL } }];
    const bare = await upload('key-3');
    expect((bare.error as ApiError).message).toBe(FULL);
    expect(seen).toHaveLength(1);
    // (an upload without a key could make a second flipbook if the first got through)
    script = [{ status: 507, headers: { 'retry-after': '1' }, body: { error: FULL } }];
    const unkeyed = await upload();
    expect((unkeyed.error as ApiError).message).toBe(FULL);
    expect(seen).toHaveLength(1);
  });
});
