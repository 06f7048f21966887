// A client gone before its request was answered, over real HTTP: a stored file being sent
// (src/http/sendFile.ts) is closed however the exchange ends, sent whole or its client gone before
// its bytes were read (a reader cancelling an image it no longer wants); an upload whose client
// left while it was being checked (src/http/upload.ts) ends at once. Before, both waited for a
// 'close' that had already happened: the file stayed open until the garbage collector closed it,
// and the upload's answer was never settled (a form's, after 30 s).
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readdir, readlink, rm, writeFile } from 'node:fs/promises';
import { createServer, get, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { StampedDownloads } from '../../src/app/stampedDownloads.ts';
import { type BlobStore, type OpenedBlob, pageKey } from '../../src/blobs/blobStore.ts';
import { openDirStore } from '../../src/blobs/openBlobStore.ts';
import { readSmallMultipart } from '../../src/dashboard/smallUpload.ts';
import { clientGone } from '../../src/http/clientGone.ts';
import { readForm } from '../../src/http/formBody.ts';
import { sendFile } from '../../src/http/sendFile.ts';
import { sendStampedOriginal } from '../../src/http/stampedFiles.ts';
import { receiveUpload } from '../../src/http/upload.ts';

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

it('opens no file for a stamped original whose client left while it was being made', async () => {
  // The stamping is stood in for (src/app/stampedDownloads.ts makes the copy with qpdf): a real
  // file, given once the client is gone.
  const folder = await mkdtemp(join(tmpdir(), `send-file-${versionId}-`));
  const path = join(folder, 'stamped.pdf');
  await writeFile(path, image);
  let release = () => {};
  const made = new Promise<void>((resolve) => {
    release = resolve;
  });
  const stamped = {
    file: async () => {
      await made;
      return { path, size: image.length };
    },
    forget: async () => {},
  } as unknown as StampedDownloads;
  const answers: { res: ServerResponse; sent: Promise<void> }[] = [];
  const server = createServer((req, res) => {
    const who = { readerId: 'r', versionId, checksum: 'c' };
    answers.push({ res, sent: sendStampedOriginal(req, res, stamped, who, 'x@example.org', {}) });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as AddressInfo;
    for (let i = 0; i < 5; i++) {
      const request = get(`http://127.0.0.1:${port}/`);
      request.on('error', () => {}); // (its own hang-up)
      await expect.poll(() => answers.length).toBe(i + 1);
      const answer = answers[i];
      if (!answer) throw new Error('no request arrived');
      const closed = once(answer.res, 'close');
      request.destroy();
      await closed;
    }
    release();
    await Promise.all(answers.map((a) => a.sent));
    // (before: one descriptor left open on the copy for each, for good)
    await expect.poll(() => descriptorsOnVersion()).toEqual([]);
  } finally {
    server.close();
    await rm(folder, { recursive: true, force: true });
  }
});

/** What `read` makes of a request whose client left, with part of its body, before it was read. */
const readAfterClientLeft = async (
  read: (req: IncomingMessage) => Promise<unknown>,
  type: string,
  part: string,
) => {
  const outcomes: Promise<unknown>[] = [];
  let arrived = () => {};
  const requestArrived = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const server = createServer((req, res) => {
    arrived();
    // The checks before the body (the key, the plan, the session) take this long: the client
    // is gone by then.
    outcomes.push(
      once(res, 'close').then(() =>
        read(req).then(
          () => 'read',
          // (and whether the server takes it for a client gone: not logged as its failure)
          (error: Error) => `${error.message}${clientGone(req, res, error) ? ' (gone)' : ''}`,
        ),
      ),
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as AddressInfo;
    const request = get({
      port,
      host: '127.0.0.1',
      method: 'POST',
      path: '/',
      headers: { 'Content-Type': type, 'Content-Length': 50_000 },
    });
    request.on('error', () => {}); // (its own hang-up)
    request.write(part);
    await requestArrived;
    request.destroy();
    return await outcomes[0]; // (before: never settled, or only after 30 s)
  } finally {
    server.close();
  }
};

const MULTIPART = 'multipart/form-data; boundary=x';
const FILE_PART =
  '--x\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n\r\n%PDF';

it('ends at once the reading of a body whose client left while its request was checked', async () => {
  // an upload (the API's and the dashboard's)
  expect(await readAfterClientLeft((req) => receiveUpload(req, store), MULTIPART, FILE_PART)).toBe(
    'the client closed the connection (gone)',
  );
  // a dashboard form, and a small multipart one (a workspace's logo)
  expect(await readAfterClientLeft(readForm, 'application/x-www-form-urlencoded', 'title=a')).toBe(
    'the client closed the connection (gone)',
  );
  expect(
    await readAfterClientLeft(
      (req) => readSmallMultipart(req, 'file', 1_000_000),
      MULTIPART,
      FILE_PART,
    ),
  ).toBe('The form was cut short');
});
