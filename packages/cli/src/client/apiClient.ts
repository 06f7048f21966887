// The Client API over undici. 429s wait for Retry-After; network failures are retried with
// backoff, except an upload that may have reached the server (a retry could create a second
// flipbook): an upload is retried only when the connection was never made. The API key only ever
// goes into a header.
import { Readable } from 'node:stream';
import type { request as Request } from 'undici';
import type { DeleteResponse } from '../../../../src/contract/common.ts';
import type {
  Created,
  Flipbook,
  FlipbookEdits,
  FlipbookList,
  PublishedToSlug,
} from '../../../../src/contract/flipbooks.ts';
import type {
  Preview,
  PreviewCreated,
  PreviewList,
  Promoted,
} from '../../../../src/contract/previews.ts';
import type { FlipbookStats } from '../../../../src/contract/stats.ts';
import type { Activated, CreatedVersion, VersionStatus } from '../../../../src/contract/versions.ts';
import { ApiError, CliError, EXIT } from './cliErrors.ts';
import type { Connection } from './config.ts';
import { notAnEndpoint, unauthorized } from './credentialWords.ts';
import { multipartBody } from './multipartBody.ts';
import type { PdfFile } from './pdfFile.ts';

const RETRIES = 4;
/** How long a request waits for the server's answer to begin (an upload: after its last byte). */
const HEADERS_TIMEOUT_MS = 60_000;

/**
 * undici and one connection pool for the whole command, made on the first request: `flipbook
 * --help` and usage errors never parse undici. Bundled (packages/cli/build.ts), a CommonJS
 * module's exports arrive as `default` only.
 */
let connections: Promise<{ request: typeof Request; agent: import('undici').Dispatcher }> | null =
  null;
const undici = () => {
  connections ??= import('undici').then((module) => {
    const loaded: Partial<typeof import('undici')> = module;
    const lib = (loaded.request ? loaded : (loaded as { default: typeof loaded }).default) as typeof import(
      'undici'
    );
    // HTTP_PROXY, HTTPS_PROXY and NO_PROXY as curl and npm read them (behind a mandatory
    // proxy, the install works through it: so must every command).
    const proxied = ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy'].some(
      (name) => process.env[name],
    );
    return {
      request: lib.request,
      agent: proxied ? new lib.EnvHttpProxyAgent() : new lib.Agent(),
    };
  });
  return connections;
};

/**
 * Closes the command's connections: a kept-alive connection would hold the process for as long
 * as the server keeps it open (the command's end waits for this, not for the server's timeout).
 */
export const closeConnections = async () => {
  const made = connections;
  connections = null;
  if (made) await (await made).agent.destroy().catch(() => {});
};

import type { Static } from '@sinclair/typebox';
import type { LinkReaderList, ReaderErasedAnswer } from '../../../../src/contract/readers.ts';
import type {
  CreatedShareLink,
  CreateShareLinkBody,
  EditShareLinkBody,
  ShareLink,
  ShareLinkList,
} from '../../../../src/contract/shareLinks.ts';
import type {
  CreatedWebhook,
  DeliveryList,
  EventFeed,
  Webhook,
  WebhookList,
} from '../../../../src/contract/webhooks.ts';

export type {
  Created,
  Flipbook,
  FlipbookEdits,
  FlipbookList,
  PublishedToSlug,
} from '../../../../src/contract/flipbooks.ts';
export type { Preview, PreviewList, Promoted } from '../../../../src/contract/previews.ts';
export type { Activated, CreatedVersion, VersionStatus } from '../../../../src/contract/versions.ts';

type Options = {
  method?: 'GET' | 'POST' | 'DELETE' | 'PATCH';
  body?: () => { body: NodeJS.ReadableStream; contentType: string; length: number };
  signal?: AbortSignal;
  /**
   * Sent as Idempotency-Key: the server answers a request it has seen with its first answer, so
   * an upload can be sent again after a network failure without making a second flipbook.
   */
  idempotencyKey?: string;
  /** how long network failures are retried (a wait outlasts a server's restart); default ~4 s */
  patienceMs?: number;
  /**
   * `text/csv`: ask for the answer as CSV and return its bytes as they came (a Buffer); an
   * error still comes as JSON.
   */
  accept?: 'text/csv';
};

/** How long the command waits for a server that said 503 or 507 (Retry-After), at most, each time. */
const MAX_UNAVAILABLE_WAIT_S = 30;

/** What an upload may carry besides its file and fields. */
export type Upload = {
  progress?: (sent: number, total: number) => void;
  signal?: AbortSignal;
  idempotencyKey?: string;
};

/** The fields that were given (an absent one is the server's default). */
const present = (fields: Record<string, string | undefined>) =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value)) as Record<string, string>;

export const apiClient = (connection: Connection, onWait?: (message: string) => void) => {
  const call = async <T>(path: string, options: Options = {}): Promise<T> => {
    const patientUntil = Date.now() + (options.patienceMs ?? 0);
    for (let attempt = 1; ; attempt++) {
      let response: Awaited<ReturnType<typeof Request>>;
      const upload = options.body?.();
      try {
        const { request, agent } = await undici();
        response = await request(`${connection.url}/api/v1${path}`, {
          dispatcher: agent,
          method: options.method ?? 'GET',
          headers: {
            authorization: `Bearer ${connection.apiKey}`,
            accept: options.accept ?? 'application/json',
            ...(upload
              ? { 'content-type': upload.contentType, 'content-length': String(upload.length) }
              : {}),
            ...(options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : {}),
          },
          body: upload?.body as never,
          signal: options.signal,
          // A server that takes the connection but never answers is given up on after this.
          headersTimeout: HEADERS_TIMEOUT_MS,
          bodyTimeout: HEADERS_TIMEOUT_MS,
        });
      } catch (error) {
        // Ctrl-C aborts the request in flight: that is an interruption, not a network failure.
        if (options.signal?.aborted) throw new CliError(EXIT.interrupted, 'Interrupted');
        const code = (error as { code?: string }).code ?? '';
        if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
          // It is up but says nothing: asking again would only wait as long again.
          throw new ApiError(
            0,
            `${connection.url} took the request but did not answer within ${HEADERS_TIMEOUT_MS / 1000} s`,
          );
        }
        const neverSent = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'].includes(code);
        // (a PATCH is idempotent: sent twice, it changes the same fields to the same values; an
        // upload with a key is answered once by the server however often it is sent)
        if (upload && options.method === 'POST' && !neverSent && !options.idempotencyKey) {
          throw new ApiError(
            0,
            `The upload to ${connection.url} broke off (${(error as Error).message}); ` +
              'check `flipbook list` before publishing again',
          );
        }
        if (attempt >= RETRIES && Date.now() >= patientUntil) {
          throw new ApiError(0, `Cannot reach ${connection.url}: ${(error as Error).message}`);
        }
        const wait = Math.min(5000, 2 ** attempt * 250);
        onWait?.(`network error (${(error as Error).message}); retrying in ${wait / 1000} s`);
        await sleep(wait, options.signal);
        continue;
      }
      const bytes = Buffer.from(await response.body.arrayBuffer());
      const text = bytes.toString('utf8');
      if (response.statusCode === 429 && attempt < RETRIES) {
        const seconds = Math.min(120, Number(response.headers['retry-after']) || 1);
        onWait?.(`rate limited; retrying in ${seconds} s`);
        await sleep(seconds * 1000, options.signal);
        continue;
      }
      // A server whose database or disk is away for a moment: safe to ask again for a read or a
      // keyed upload, after the time it asks for. A 507 (its disk full) that says when to ask
      // again is the same passing failure: a CI publish should not fail on it.
      const retriable = (options.method ?? 'GET') === 'GET' || options.idempotencyKey !== undefined;
      const full = response.statusCode === 507 && response.headers['retry-after'] !== undefined;
      if ((response.statusCode === 503 || full) && retriable && attempt < RETRIES) {
        const seconds = Math.min(MAX_UNAVAILABLE_WAIT_S, Number(response.headers['retry-after']) || 1);
        onWait?.(
          full
            ? `the server is out of storage space for now; retrying in ${seconds} s`
            : `the server is unavailable for a moment; retrying in ${seconds} s`,
        );
        await sleep(seconds * 1000, options.signal);
        continue;
      }
      // A login page, a proxy's error page, another site: not this service, whatever its status.
      const type = String(response.headers['content-type'] ?? '');
      const csv = options.accept !== undefined && response.statusCode < 300;
      if (
        (response.statusCode >= 300 && response.statusCode < 400) ||
        (text !== '' && !(csv ? /^text\/csv\b/i : /^application\/(problem\+)?json\b/i).test(type))
      ) {
        const where = response.headers.location ? ` to ${response.headers.location}` : '';
        throw new ApiError(
          0,
          `${connection.url} did not answer as a flipbook server (HTTP ${response.statusCode}${where}, ${type || 'no content type'}): check --url or FLIPBOOK_URL, and that nothing in front of it asks for a login`,
        );
      }
      if (csv) return bytes as T;
      const json = text ? safeJson(text) : {};
      if (response.statusCode >= 400) {
        const message = (json as { error?: string }).error ?? `HTTP ${response.statusCode}`;
        if (response.statusCode === 401) throw new ApiError(401, unauthorized(connection));
        if (response.statusCode === 404 && message === 'Not found') {
          throw new ApiError(404, notAnEndpoint(connection, path));
        }
        throw new ApiError(response.statusCode, message);
      }
      return json as T;
    }
  };

  const uploadBody =
    (
      file: PdfFile,
      fields: Record<string, string>,
      progress?: (sent: number, total: number) => void,
    ) =>
    () =>
      multipartBody(file, fields, progress ?? (() => {}));

  return {
    /** Any other endpoint, for a caller with its own few (the GitHub Action's, packages/action). */
    call,
    create: (
      file: PdfFile,
      /** the upload's text fields; absent ones are the server's defaults */
      fields: { title?: string; direction?: string; visibility?: string },
      options: Upload = {},
    ) =>
      call<Created>('/flipbooks', {
        method: 'POST',
        body: uploadBody(file, present(fields), options.progress),
        signal: options.signal,
        idempotencyKey: options.idempotencyKey,
      }),
    addVersion: (flipbookId: string, file: PdfFile, activate: boolean, options: Upload = {}) =>
      call<CreatedVersion>(`/flipbooks/${encodeURIComponent(flipbookId)}/versions`, {
        method: 'POST',
        body: uploadBody(file, { activate: String(activate) }, options.progress),
        signal: options.signal,
        idempotencyKey: options.idempotencyKey,
      }),
    /** a new version of the flipbook with this slug, or a new flipbook with it (beyond the spec) */
    publishToSlug: (
      slug: string,
      file: PdfFile,
      fields: { title?: string; direction?: string; visibility?: string },
      options: Upload = {},
    ) =>
      call<PublishedToSlug>(`/flipbooks/by-slug/${encodeURIComponent(slug)}/versions`, {
        method: 'POST',
        body: uploadBody(file, present(fields), options.progress),
        signal: options.signal,
        idempotencyKey: options.idempotencyKey,
      }),
    activate: (flipbookId: string, versionId: string) =>
      call<Activated>(
        `/flipbooks/${encodeURIComponent(flipbookId)}/versions/${encodeURIComponent(versionId)}/activate`,
        { method: 'POST' },
      ),
    remove: (flipbookId: string, versionId: string) =>
      call<DeleteResponse>(
        `/flipbooks/${encodeURIComponent(flipbookId)}/versions/${encodeURIComponent(versionId)}`,
        { method: 'DELETE' },
      ),
    status: (flipbookId: string, versionId: string, signal?: AbortSignal, patienceMs?: number) =>
      call<VersionStatus>(
        `/flipbooks/${encodeURIComponent(flipbookId)}/versions/${encodeURIComponent(versionId)}/status`,
        { signal, patienceMs },
      ),
    /** the flipbook now, or as it was at `at` (an RFC 3339 date-time) */
    show: (flipbookId: string, at?: string) =>
      call<Flipbook>(
        `/flipbooks/${encodeURIComponent(flipbookId)}${at ? `?at=${encodeURIComponent(at)}` : ''}`,
      ),
    edit: (flipbookId: string, edits: FlipbookEdits) =>
      call<Flipbook>(`/flipbooks/${encodeURIComponent(flipbookId)}`, {
        method: 'PATCH',
        body: jsonBody(edits),
      }),
    deleteFlipbook: (flipbookId: string) =>
      call<DeleteResponse>(`/flipbooks/${encodeURIComponent(flipbookId)}`, {
        method: 'DELETE',
      }),
    list: (query: URLSearchParams) =>
      call<FlipbookList>(`/flipbooks${query.size > 0 ? `?${query}` : ''}`),
    /** the workspace's event feed after `after`, waiting up to `wait` seconds for one */
    events: (query: { after: string; limit: number; wait: number }, signal?: AbortSignal) =>
      call<Static<typeof EventFeed>>(
        `/events?${new URLSearchParams({ after: query.after, limit: String(query.limit), wait: String(query.wait) })}`,
        { signal },
      ),
    links: {
      create: (flipbookId: string, input: CreateShareLinkBody) =>
        call<Static<typeof CreatedShareLink>>(`/flipbooks/${encodeURIComponent(flipbookId)}/links`, {
          method: 'POST',
          body: jsonBody(input),
        }),
      list: (flipbookId: string) =>
        call<Static<typeof ShareLinkList>>(`/flipbooks/${encodeURIComponent(flipbookId)}/links`),
      edit: (flipbookId: string, linkId: string, edits: EditShareLinkBody) =>
        call<ShareLink>(linkPath(flipbookId, linkId), { method: 'PATCH', body: jsonBody(edits) }),
      revoke: (flipbookId: string, linkId: string) =>
        call<{ id: string; revoked: true }>(linkPath(flipbookId, linkId), { method: 'DELETE' }),
      /** the readers who gave their address at the link */
      readers: (flipbookId: string, linkId: string) =>
        call<LinkReaderList>(`${linkPath(flipbookId, linkId)}/readers`),
      /** the same as CSV, its bytes as the server wrote them */
      readersCsv: (flipbookId: string, linkId: string) =>
        call<Buffer>(`${linkPath(flipbookId, linkId)}/readers`, { accept: 'text/csv' }),
    },
    /** erases what the workspace keeps of a reader (docs/privacy.md) */
    forgetReader: (email: string) =>
      call<ReaderErasedAnswer>(`/readers/${encodeURIComponent(email)}`, { method: 'DELETE' }),
    /** a slug's previews (docs/ci.md): a version under a name, never live until promoted */
    previews: {
      publish: (
        slug: string,
        name: string,
        file: PdfFile,
        fields: { title?: string; direction?: string; visibility?: string },
        options: Upload = {},
      ) =>
        call<PreviewCreated>(previewPath(slug, name), {
          method: 'POST',
          body: uploadBody(file, present(fields), options.progress),
          signal: options.signal,
          idempotencyKey: options.idempotencyKey,
        }),
      show: (slug: string, name: string, signal?: AbortSignal, patienceMs?: number) =>
        call<Preview>(previewPath(slug, name), { signal, patienceMs }),
      list: (slug: string) =>
        call<PreviewList>(`/flipbooks/by-slug/${encodeURIComponent(slug)}/previews`),
      promote: (slug: string, name: string) =>
        call<Promoted>(`${previewPath(slug, name)}/promote`, { method: 'POST' }),
      /** 204, no body */
      remove: (slug: string, name: string) =>
        call<unknown>(previewPath(slug, name), { method: 'DELETE' }),
    },
    stats: (flipbookId: string, range: { from?: string; to?: string }) => {
      const query = new URLSearchParams(
        Object.entries(range).filter((e): e is [string, string] => e[1] !== undefined),
      ).toString();
      return call<FlipbookStats>(
        `/flipbooks/${encodeURIComponent(flipbookId)}/stats${query ? `?${query}` : ''}`,
      );
    },
    webhooks: {
      add: (input: { url: string; events?: string[]; description?: string }) =>
        call<Static<typeof CreatedWebhook>>('/webhooks', { method: 'POST', body: jsonBody(input) }),
      list: () => call<Static<typeof WebhookList>>('/webhooks'),
      remove: (id: string) =>
        call<{ id: string; deleted: true }>(`/webhooks/${encodeURIComponent(id)}`, {
          method: 'DELETE',
        }),
      enable: (id: string) =>
        call<Static<typeof Webhook>>(`/webhooks/${encodeURIComponent(id)}/enable`, {
          method: 'POST',
        }),
      test: (id: string) =>
        call<{ delivery_id: string }>(`/webhooks/${encodeURIComponent(id)}/test`, {
          method: 'POST',
        }),
      deliveries: (id: string) =>
        call<Static<typeof DeliveryList>>(`/webhooks/${encodeURIComponent(id)}/deliveries`),
    },
  };
};

export type ApiClient = ReturnType<typeof apiClient>;

const linkPath = (flipbookId: string, linkId: string) =>
  `/flipbooks/${encodeURIComponent(flipbookId)}/links/${encodeURIComponent(linkId)}`;

const previewPath = (slug: string, name: string) =>
  `/flipbooks/by-slug/${encodeURIComponent(slug)}/previews/${encodeURIComponent(name)}`;

/** A small JSON request body (an edit), sent like an upload's: a stream with its length. */
const jsonBody = (value: unknown) => () => {
  const bytes = Buffer.from(JSON.stringify(value));
  return {
    body: Readable.from([bytes]),
    contentType: 'application/json',
    length: bytes.length,
  };
};

const safeJson = (text: string) => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return { error: text.slice(0, 200) };
  }
};

export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    // The listener goes with the sleep: a long wait sleeps hundreds of times on one signal.
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
