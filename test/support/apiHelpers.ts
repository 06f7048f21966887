// Helpers for black-box tests of the Client API v1: an authorised fetch, multipart uploads of real
// PDFs from the shared corpus, and a way to mark a version processed (there is no worker yet).
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { runFlipbookCommand } from '../../src/app/commands.ts';
import { openStore, type Store } from '../../src/store/store.ts';

import { CORPUS } from './corpus.ts';
import { appFetch } from './inProcess.ts';
import { TEST_METADATA } from './metadata.ts';
import { waitFor } from './waitFor.ts';

export { CORPUS };

// biome-ignore lint/suspicious/noExplicitAny: response bodies are whatever the service sent; the assertions check them
export type Json = any;

export type Reply = { status: number; headers: Headers; text: string; body: Json };

const cache = new Map<string, Uint8Array>();
/** The bytes of a corpus file (read once). */
export const corpus = (name: string): Uint8Array => {
  let bytes = cache.get(name);
  if (!bytes) {
    bytes = new Uint8Array(readFileSync(join(CORPUS, name)));
    cache.set(name, bytes);
  }
  return bytes;
};

/** A small, readable, 3-page PDF. */
export const SMALL_PDF = 'text_multicolumn.pdf';

export type Auth =
  | { bearer: string }
  | { apiKey: string }
  | { headers: Record<string, string> }
  | null;

export const authHeaders = (auth: Auth): Record<string, string> => {
  if (auth === null) return {};
  if ('bearer' in auth) return { authorization: `Bearer ${auth.bearer}` };
  if ('apiKey' in auth) return { 'x-api-key': auth.apiKey };
  return auth.headers;
};

/** Sends a request and reads the answer; `body` is the parsed JSON, or null when it is not JSON. */
export const send = async (url: string, init: RequestInit = {}): Promise<Reply> => {
  const response = await appFetch(url, init);
  const text = await response.text();
  let body: Json = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  return { status: response.status, headers: response.headers, text, body };
};

export type FileSpec = { bytes: Uint8Array; name: string; type?: string };

/** A corpus file as an upload, under its own name unless given another. */
export const pdf = (file: string, name = file): FileSpec => ({
  bytes: corpus(file),
  name,
  type: 'application/pdf',
});

export const form = (
  fields: Record<string, string>,
  file?: FileSpec | null,
  fileField = 'file',
) => {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.append(name, value);
  if (file) {
    data.append(
      fileField,
      new Blob([file.bytes as Uint8Array<ArrayBuffer>], {
        type: file.type ?? 'application/octet-stream',
      }),
      file.name,
    );
  }
  return data;
};

/** A client for one API root and one key (a string key goes in `Authorization: Bearer`). */
export const client = (api: string, key: string | Auth) => {
  const auth: Auth = typeof key === 'string' ? { bearer: key } : key;
  const go = (method: string, path: string, init: RequestInit = {}) =>
    send(`${api}${path}`, {
      ...init,
      method,
      headers: { ...authHeaders(auth), ...((init.headers as Record<string, string>) ?? {}) },
    });
  return {
    get: (path: string, init?: RequestInit) => go('GET', path, init),
    post: (path: string, init?: RequestInit) => go('POST', path, init),
    del: (path: string, init?: RequestInit) => go('DELETE', path, init),
    /** PATCH `body` as JSON: the fields of a flipbook or a share link to change. */
    patch: (path: string, body: unknown) =>
      go('PATCH', path, {
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      }),
    /** POST /flipbooks with `file` (and `title` when given). */
    create: (file: FileSpec | null = pdf(SMALL_PDF), fields: Record<string, string> = {}) =>
      go('POST', '/flipbooks', { body: form(fields, file) }),
    /** POST /flipbooks/:id/versions with `file` (and `activate` when given). */
    addVersion: (
      flipbookId: string,
      file: FileSpec | null = pdf(SMALL_PDF),
      fields: Record<string, string> = {},
    ) => go('POST', `/flipbooks/${flipbookId}/versions`, { body: form(fields, file) }),
    activate: (flipbookId: string, versionId: string) =>
      go('POST', `/flipbooks/${flipbookId}/versions/${versionId}/activate`),
    status: (flipbookId: string, versionId: string) =>
      go('GET', `/flipbooks/${flipbookId}/versions/${versionId}/status`),
    remove: (flipbookId: string, versionId: string) =>
      go('DELETE', `/flipbooks/${flipbookId}/versions/${versionId}`),
    flipbook: (flipbookId: string) => go('GET', `/flipbooks/${flipbookId}`),
    list: (query = '') => go('GET', `/flipbooks${query ? `?${query}` : ''}`),
  };
};

export type Client = ReturnType<typeof client>;

/** Asserts a JSON answer: status, content type, and (when given) the exact error text. */
export const expectJson = (reply: Reply, status: number, error?: string) => {
  expect(reply.status, `answer: ${reply.text.slice(0, 300)}`).toBe(status);
  expect(reply.headers.get('content-type')).toMatch(/^application\/json\b/);
  expect(reply.body).not.toBeNull();
  if (error !== undefined) expect(reply.body).toEqual({ error });
};

/** Asserts an error answer whose text is the service's own: `{"error": "<non-empty>"}` only. */
export const expectError = (reply: Reply, status: number, matches?: RegExp) => {
  expectJson(reply, status);
  expect(Object.keys(reply.body)).toEqual(['error']);
  expect(typeof reply.body.error).toBe('string');
  expect(reply.body.error.length).toBeGreaterThan(0);
  if (matches) expect(reply.body.error).toMatch(matches);
};

/** Creates a flipbook and returns its ids (asserting the 201). */
export const createFlipbook = async (
  c: Client,
  fields: Record<string, string> = {},
  file: FileSpec = pdf(SMALL_PDF),
) => {
  const reply = await c.create(file, fields);
  expectJson(reply, 201);
  return {
    flipbookId: reply.body.flipbook_id as string,
    versionId: reply.body.version_id as string,
  };
};

/** Adds a version and returns its id (asserting the 201). */
export const addVersion = async (
  c: Client,
  flipbookId: string,
  fields: Record<string, string> = {},
  file: FileSpec = pdf(SMALL_PDF),
) => {
  const reply = await c.addVersion(flipbookId, file, fields);
  expectJson(reply, 201);
  return reply.body.version_id as string;
};

/** Opens the store a daemon runs on (from the fixture's --data-dir/--database-url arguments). */
export const openStoreOf = (storeArgs: string[]): Promise<Store> =>
  storeArgs[0] === '--data-dir'
    ? openStore({ dataDir: storeArgs[1], poolSize: 2 })
    : openStore({ databaseUrl: storeArgs[1], poolSize: 2 });

/** Finishes processing of a version, as the (future) worker would: status `done`, N pages. */
export const markDone = (store: Store, flipbookId: string, versionId: string, pages = 3) =>
  runFlipbookCommand(
    store,
    flipbookId,
    {
      type: 'CompleteProcessing',
      data: {
        versionId,
        width: 612,
        height: 792,
        pages: Array.from({ length: pages }, (_, i) => ({
          pageId: randomUUID(),
          position: i + 1,
          width: 612,
          height: 792,
        })),
        now: new Date(),
      },
    },
    TEST_METADATA,
  );

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A well-formed key (svc_ + 48 hex) that was never issued. */
export const unknownKey = () =>
  `svc_${randomUUID().replaceAll('-', '')}${randomUUID().replaceAll('-', '').slice(0, 16)}`;

const encoder = new TextEncoder();

/**
 * A hand-made multipart/form-data envelope, for bodies streamed in pieces: `head` holds the text
 * fields and the file part's headers, the file bytes go after it, then `tail`.
 */
export const multipartEnvelope = (fields: Record<string, string>, fileName: string) => {
  const boundary = `----flipbook-test-${randomUUID()}`;
  const parts = Object.entries(fields).map(
    ([name, value]) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  const head =
    parts.join('') +
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\n` +
    'Content-Type: application/pdf\r\n\r\n';
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    head: encoder.encode(head),
    tail: encoder.encode(`\r\n--${boundary}--\r\n`),
  };
};

/** Polls a version's status until `done` or `error`, and answers it. */
export const waitForOutcome = async (
  c: Client,
  flipbookId: string,
  versionId: string,
  ms = 60_000,
): Promise<Json> =>
  waitFor(
    `version ${versionId} processed`,
    async () => {
      const reply = await c.status(flipbookId, versionId);
      expectJson(reply, 200);
      return ['done', 'error'].includes(reply.body.status) ? (reply.body as Json) : undefined;
    },
    ms,
    100,
  );

/** Polls a version's status until it is done, and answers it; an error fails at once with it. */
export const waitDone = async (c: Client, flipbookId: string, versionId: string, ms = 60_000) => {
  const outcome = await waitForOutcome(c, flipbookId, versionId, ms);
  if (outcome.status !== 'done') throw new Error(JSON.stringify(outcome));
  return outcome;
};

/**
 * Polls a version's status until it is done and active (a first version is made active as it is
 * done); an error fails at once, with the status's answer.
 */
export const waitActive = (c: Client, flipbookId: string, versionId: string, ms = 90_000) =>
  waitFor(
    `version ${versionId} done and active`,
    async () => {
      const reply = await c.status(flipbookId, versionId);
      expectJson(reply, 200);
      expect(reply.body.status, reply.text).not.toBe('error');
      return reply.body.status === 'done' && reply.body.is_active ? true : undefined;
    },
    ms,
    100,
  );

/** A 429 of the rate limit: Retry-After within the minute, the policy's quota, none left. */
export const expectRateLimited = (reply: Reply, limit: number) => {
  expectError(reply, 429);
  const retryAfter = reply.headers.get('retry-after');
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(0);
  expect(Number(retryAfter)).toBeLessThanOrEqual(60);
  expect(reply.headers.get('ratelimit-policy')).toMatch(new RegExp(`q=${limit}\\b`));
  expect(reply.headers.get('ratelimit')).toMatch(/\br=0\b/);
};
