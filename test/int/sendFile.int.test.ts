// A stored file sent over real HTTP (src/http/sendFile.ts) is closed however the exchange ends:
// sent whole, or its client gone before its bytes were read (a reader cancelling an image it no
// longer wants). Before, a client gone in that moment left the answer waiting for a 'close' that
// had already happened, and the file open until the garbage collector closed it.
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readdir, readlink, rm } from 'node:fs/promises';
import { createServer, get, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type BlobStore, type OpenedBlob, pageKey } from '../../src/blobs/blobStore.ts';
import { openDirStore } from '../../src/blobs/openBlobStore.ts';
import { sendFile } from '../../src/http/sendFile.ts';

let dir: string;
let store: BlobStore;
const versionId = randomUUID();
const image = randomBytes(300_000);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'send-file-'));
  store = await openDirStore(dir);
  await store.writeKey(pageKey(versionId, 1, 'mid.jpg'), Readable.from([image]), image.length);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** This process's open descriptors on the version's files (Linux's /proc). */
const descriptorsOnVersion = async () => {
  const links = await Promise.all(
    (await readdir('/proc/self/fd')).map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')),
  );
  return links.filter((link) => link.includes(versionId));
};

/** A server answering every request with `sendFile` of `blob`; the answer's promise is kept. */
const serving = async (blob: OpenedBlob) => {
  const answers: { res: ServerResponse; sent: Promise<void> }[] = [];
  const server = createServer((req, res) => {
    answers.push({ res, sent: sendFile(req, res, blob, { 'Content-Type': 'image/jpeg' }) });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { answers, port, close: () => server.close() };
};

it('sends the file whole and closes it', async () => {
  const blob = await store.openPageFile(versionId, 1, 'mid.jpg');
  if (!blob) throw new Error('the page file was not stored');
  const server = await serving(blob);
  try {
    const response = await fetch(`http://127.0.0.1:${server.port}/`);
    expect(Buffer.from(await response.arrayBuffer()).equals(image)).toBe(true);
    await server.answers[0]?.sent;
    expect(await descriptorsOnVersion()).toEqual([]);
  } finally {
    server.close();
  }
});

it('closes the file when its client left before its bytes were read', async () => {
  const opened = await store.openPageFile(versionId, 1, 'mid.jpg');
  if (!opened) throw new Error('the page file was not stored');
  // The store's read waits until the client is gone (the moment a slow store or a busy
  // machine leaves between the file's opening and its first bytes).
  let asked = () => {};
  const readAsked = new Promise<void>((resolve) => {
    asked = resolve;
  });
  let release = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const blob: OpenedBlob = {
    ...opened,
    read: async (start, end) => {
      asked();
      await gate;
      return opened.read(start, end);
    },
  };
  const server = await serving(blob);
  try {
    const request = get(`http://127.0.0.1:${server.port}/`);
    request.on('error', () => {}); // (its own hang-up)
    await readAsked;
    const answer = server.answers[0];
    if (!answer) throw new Error('no request arrived');
    const closed = once(answer.res, 'close');
    request.destroy();
    await closed;
    release();
    await answer.sent; // (before: never settled)
    expect(await descriptorsOnVersion()).toEqual([]);
  } finally {
    server.close();
  }
});
