// The OpenAPI document against the real service: the whole app in process (test/support/appSpec.ts), real requests for every documented
// success schema and the main errors, each answer's status looked up in the document and its body
// validated (Ajv, JSON Schema 2020-12) against the schema the document gives for that status.
// Every response schema is closed and lists its fields as required, so a field added, removed or
// renamed in src/app/present.ts or src/app/flipbooks.ts fails here. The document is generated
// from the contract (src/contract/) and linted with Spectral's OpenAPI rules (.spectral.yaml).
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentFor, mountApi, openApiDocument } from '../../src/http/api.ts';
import { DEFAULT_RATE_LIMIT } from '../../src/http/rateLimit.ts';
import type { Routes } from '../../src/http/server.ts';
import { markDone } from '../support/apiHelpers.ts';
import { type AppUnderTest, startApp } from '../support/appSpec.ts';
import { corpus } from '../support/corpus.ts';
import { appFetch, appInject } from '../support/inProcess.ts';

const PDF = corpus('vec_tracemonkey.pdf');
/** the operator's address, given to the daemon (serve --contact-email) */
const CONTACT = 'flipbooks@example.com';

type Json = Record<string, unknown>;
type Ref = { $ref: string };
type Header = { required?: boolean; schema?: Json };
type ResponseObject = {
  description: string;
  headers?: Record<string, Header | Ref>;
  content?: Record<string, { schema: Json }>;
};
type Operation = { security?: unknown[]; responses: Record<string, ResponseObject | Ref> };
type Document = {
  openapi: string;
  servers: { url: string }[];
  security: Record<string, string[]>[];
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, Json>;
    securitySchemes: Record<string, Json>;
  };
};
type Method = 'get' | 'post' | 'delete' | 'patch';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i;
const URI = /^[a-z][a-z0-9+.-]*:\/\/[^\s/]+\S*$/i;

/** The routes src/http/api.ts mounts, as OpenAPI operations relative to /api/v1. */
const mountedOperations = () => {
  const found: string[] = [];
  const record = (method: Method) => (path: string) => {
    if (!path.startsWith('/api/v1/')) return;
    found.push(`${method} ${path.slice('/api/v1'.length).replace(/:(\w+)/g, '{$1}')}`);
  };
  const routes: Routes = {
    get: record('get'),
    post: record('post'),
    delete: record('delete'),
    patch: record('patch'),
    direct: (_method, path) => record('post')(path),
  };
  mountApi(routes, {} as Parameters<typeof mountApi>[1]); // handlers only close over deps; nothing runs at mount time
  return found.sort();
};

const documentedOperations = (doc: Document) =>
  Object.entries(doc.paths)
    .flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'].includes(key))
        .map((method) => `${method} ${path}`),
    )
    .sort();

describe('the OpenAPI document', () => {
  let fixture: AppUnderTest;
  let doc: Document;
  let ajv: Ajv2020;
  let pdf: Uint8Array<ArrayBuffer>;
  let served: Response;

  beforeAll(async () => {
    // the daemon's default rate limit: the last test meets it
    fixture = await startApp({ contactEmail: CONTACT, rateLimit: DEFAULT_RATE_LIMIT });
    pdf = new Uint8Array(await readFile(PDF));
    // Fetched without a key: the document is public.
    served = await appFetch(`${fixture.api}/openapi.json`);
    doc = (await served.clone().json()) as Document;
    // The whole document is one schema, so `#/components/schemas/...` refs resolve inside it.
    ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addFormat('uuid', UUID);
    ajv.addFormat('date-time', DATE_TIME);
    ajv.addFormat('uri', URI);
    ajv.addFormat('binary', true);
    ajv.addSchema({ ...doc, $id: 'doc' });
  });
  afterAll(async () => {
    await fixture?.stop();
  });

  /** Follows a local `$ref` through the document. */
  const deref = <T>(node: T | Ref): T => {
    if (!node || typeof node !== 'object' || !('$ref' in node)) return node as T;
    let target: unknown = doc;
    for (const key of node.$ref.replace(/^#\//, '').split('/')) {
      target = (target as Json)[key];
      expect(target, `${node.$ref} resolves`).toBeDefined();
    }
    return deref(target as T | Ref);
  };

  const validator = (schemaName: string) => {
    const validate = ajv.getSchema(`doc#/components/schemas/${schemaName}`);
    if (!validate) throw new Error(`no schema ${schemaName} in the document`);
    return validate;
  };

  /** The body matches the schema, and the schema would refuse it with a field added, removed or renamed. */
  const expectValid = (schemaName: string, body: unknown) => {
    const validate = validator(schemaName);
    const valid = validate(body);
    expect(
      valid,
      `${schemaName}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(body)}`,
    ).toBe(true);
    const object = body as Json;
    expect(validate({ ...object, unexpected: 1 }), `${schemaName} refuses an added field`).toBe(
      false,
    );
    for (const key of Object.keys(object)) {
      const { [key]: value, ...rest } = object;
      expect(validate(rest), `${schemaName} refuses a body without ${key}`).toBe(false);
      expect(
        validate({ ...rest, [`${key}_renamed`]: value }),
        `${schemaName} refuses ${key} renamed`,
      ).toBe(false);
    }
  };

  /**
   * Checks a real answer against the document: its status is one the operation lists, the
   * documented headers are sent, and the body is valid against the schema documented for that
   * status, which must be `schemaName`.
   */
  const expectDocumented = async <T = Json>(
    method: Method,
    path: string,
    res: Response,
    status: number,
    schemaName: string,
  ): Promise<T> => {
    const text = await res.text();
    expect(res.status, `${method.toUpperCase()} ${path}: ${text}`).toBe(status);
    const operation = doc.paths[path]?.[method];
    if (!operation) throw new Error(`${method} ${path} is not documented`);
    const listed = operation.responses[String(res.status)];
    expect(listed, `${method} ${path} documents status ${res.status}`).toBeDefined();
    const response = deref(listed as ResponseObject | Ref);
    expect(res.headers.get('content-type')).toMatch(/^application\/json\b/);
    expect(response.content?.['application/json']?.schema).toEqual({
      $ref: `#/components/schemas/${schemaName}`,
    });
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      // Rate limiting is on (the default 120/min), so every documented header is sent.
      expect(res.headers.has(name), `${method} ${path} ${res.status} sends ${name}`).toBe(true);
      const schema = deref(header).schema;
      if (schema?.type === 'integer') expect(res.headers.get(name)).toMatch(/^\d+$/);
      if (typeof schema?.pattern === 'string') {
        expect(res.headers.get(name)).toMatch(new RegExp(schema.pattern));
      }
    }
    const body: unknown = JSON.parse(text);
    expectValid(schemaName, body);
    return body as T;
  };

  type Call = {
    params?: Record<string, string>;
    query?: string;
    body?: FormData | string;
    /** request headers; the default sends the fixture's key as a bearer token */
    headers?: Record<string, string>;
  };

  /** Makes a real request to a documented path and checks the answer against the document. */
  const call = async <T = Json>(
    method: Method,
    path: string,
    status: number,
    schemaName: string,
    init: Call = {},
  ): Promise<T> => {
    const url = path.replace(/\{(\w+)\}/g, (_, name: string) => init.params?.[name] ?? '');
    const res = await appFetch(`${fixture.api}${url}${init.query ? `?${init.query}` : ''}`, {
      method: method.toUpperCase(),
      headers: init.headers ?? { authorization: `Bearer ${fixture.key}` },
      body: init.body,
    });
    return expectDocumented<T>(method, path, res, status, schemaName);
  };

  const upload = (fields: Record<string, string>, file: Uint8Array<ArrayBuffer> | null = pdf) => {
    const form = new FormData();
    if (file) form.set('file', new Blob([file], { type: 'application/pdf' }), 'tracemonkey.pdf');
    for (const [name, value] of Object.entries(fields)) form.set(name, value);
    return form;
  };

  /** Finishes processing of versions directly in the store, as the processing worker would. */
  const completeProcessing = async (flipbookId: string, versionIds: string[]) => {
    for (const versionId of versionIds) await markDone(fixture.store, flipbookId, versionId, 1);
  };

  it('is served without a key, is OpenAPI 3.1 and covers every route of the API', async () => {
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toMatch(/^application\/json\b/);
    expect(doc).toEqual(JSON.parse(JSON.stringify(documentFor(CONTACT))));
    // The operator's address, given to the daemon: self-hosted, the code cannot know it.
    expect((doc as unknown as { info: Json }).info.contact).toEqual({ email: CONTACT });
    expect(documentFor(null)).toBe(openApiDocument);
    expect(openApiDocument.info).not.toHaveProperty('contact');

    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers.map((server) => server.url)).toEqual(['/api/v1']);
    expect(documentedOperations(doc)).toEqual(mountedOperations());
    expect(doc.paths['/openapi.json']?.get?.security).toEqual([]);
    expect(doc.security).toEqual([{ bearerAuth: [] }, { apiKeyHeader: [] }]);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
    expect(doc.components.securitySchemes.apiKeyHeader).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'X-Api-Key',
    });

    // The document's own schemas are sound JSON Schema: strict Ajv knows every keyword used.
    const strict = new Ajv2020({ strict: true, strictTypes: false });
    for (const name of ['uuid', 'date-time', 'uri', 'binary']) strict.addFormat(name, true);
    const defs = JSON.stringify({ $id: 'strict', $defs: doc.components.schemas });
    strict.addSchema(JSON.parse(defs.replaceAll('#/components/schemas/', '#/$defs/')));
    for (const name of Object.keys(doc.components.schemas)) {
      expect(strict.getSchema(`strict#/$defs/${name}`), name).toBeTypeOf('function');
    }
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (method === 'parameters') continue;
        for (const [status, listed] of Object.entries(operation.responses)) {
          const response = deref(listed);
          expect(response.description, `${method} ${path} ${status}`).toBeTruthy();
          if (status === '204') {
            expect(response.content, `${method} ${path} 204 has no body`).toBeUndefined();
            continue;
          }
          const schema = response.content?.['application/json']?.schema;
          expect(schema, `${method} ${path} ${status} has a JSON body`).toBeDefined();
          if (status !== '200' || path !== '/openapi.json') expect(schema).toHaveProperty('$ref');
        }
      }
    }
    // The schema of the document itself accepts the document.
    const self = doc.paths['/openapi.json']?.get?.responses['200'] as ResponseObject;
    expect(ajv.validate(self.content?.['application/json']?.schema ?? false, doc)).toBe(true);
  });

  it('describes every success answer of a flipbook’s life', async () => {
    const created = await call<{ flipbook_id: string; version_id: string }>(
      'post',
      '/flipbooks',
      201,
      'CreateFlipbookResponse',
      { body: upload({ title: 'TraceMonkey' }) },
    );
    const id = created.flipbook_id;
    const v1 = created.version_id;

    const pending = await call(
      'get',
      '/flipbooks/{id}/versions/{vid}/status',
      200,
      'VersionStatus',
      {
        params: { id, vid: v1 },
      },
    );
    expect(pending).toMatchObject({ status: 'pending', pages: 0, version: 1 });

    const added = await call<{ version_id: string }>(
      'post',
      '/flipbooks/{id}/versions',
      201,
      'CreateVersionResponse',
      { params: { id }, body: upload({ activate: 'no' }) },
    );
    expect(added).toMatchObject({ version_status: 'pending', activate_on_done: false });
    const v2 = added.version_id;

    // Version 1 becomes active once done; version 2 (activate=no) stays inactive.
    await completeProcessing(id, [v1, v2]);

    const flipbook = await call<{ versions: Json[]; pages: Json[] }>(
      'get',
      '/flipbooks/{id}',
      200,
      'Flipbook',
      { params: { id } },
    );
    expect(flipbook.versions.map((v) => [v.id, v.status, v.is_active])).toEqual([
      [v2, 'done', false],
      [v1, 'done', true],
    ]);
    expect(flipbook.pages).toHaveLength(1);

    // The other header scheme, and the list with its one active version per flipbook.
    const list = await call<{ flipbooks: { versions: Json[] }[] }>(
      'get',
      '/flipbooks',
      200,
      'FlipbookList',
      { query: 'sort=title&dir=asc&per_page=5', headers: { 'x-api-key': fixture.key } },
    );
    expect(list.flipbooks).toHaveLength(1);
    expect(list.flipbooks[0]?.versions.map((v) => v.id)).toEqual([v1]);
    expect(list.flipbooks[0]).not.toHaveProperty('pages');
    await call('get', '/flipbooks', 200, 'FlipbookList', { query: 'page=9&status=archived' });

    const activated = await call(
      'post',
      '/flipbooks/{id}/versions/{vid}/activate',
      200,
      'ActivateResponse',
      { params: { id, vid: v2 } },
    );
    expect(activated).toEqual({ success: true, active_version_id: v2 });

    const done = await call('get', '/flipbooks/{id}/versions/{vid}/status', 200, 'VersionStatus', {
      params: { id, vid: v2 },
    });
    expect(done).toMatchObject({ status: 'done', is_active: true, pages: 1, version: 2 });

    const deleted = await call('delete', '/flipbooks/{id}/versions/{vid}', 200, 'DeleteResponse', {
      params: { id, vid: v1 },
    });
    expect(deleted).toEqual({ success: true });

    // Beyond the spec: the audit trail, a page at a time, and the flipbook as it was.
    type Trail = {
      events: { type: string; at: string; metadata: { actor: { type: string } } }[];
      total_pages: number;
    };
    const trail = await call<Trail>('get', '/flipbooks/{id}/events', 200, 'EventList', {
      params: { id },
    });
    expect(trail.events.map((e) => e.type)).toEqual([
      'FlipbookCreated',
      'VersionUploaded',
      'VersionUploaded',
      'VersionProcessed',
      'VersionActivated',
      'VersionProcessed',
      'VersionActivated',
      'VersionDeleted',
    ]);
    // Every actor shape the log holds today: a key, and the admin that finished processing.
    expect(new Set(trail.events.map((e) => e.metadata.actor.type))).toEqual(
      new Set(['api_key', 'admin']),
    );
    const paged = await call<Trail>('get', '/flipbooks/{id}/events', 200, 'EventList', {
      params: { id },
      query: 'page=2&per_page=3',
    });
    expect(paged).toMatchObject({ page: 2, per_page: 3, total_pages: 3 });
    expect(paged.events).toEqual(trail.events.slice(3, 6));
    await call('get', '/flipbooks/{id}/events', 200, 'EventList', {
      params: { id },
      query: 'page=99',
    });

    // Just after version 1 became active, before version 2 was: only version 1 was active.
    const firstActivation = trail.events[4]?.at ?? '';
    const then = await call<{ versions: Json[] }>('get', '/flipbooks/{id}', 200, 'Flipbook', {
      params: { id },
      query: `at=${encodeURIComponent(firstActivation)}`,
    });
    expect(then.versions.map((v) => [v.id, v.is_active])).toEqual([
      [v2, false],
      [v1, true],
    ]);
  });

  it('describes the error answers', async () => {
    const { flipbook_id: id, version_id: active } = await call<{
      flipbook_id: string;
      version_id: string;
    }>('post', '/flipbooks', 201, 'CreateFlipbookResponse', { body: upload({}) });
    await completeProcessing(id, [active]);
    const { version_id: pending } = await call<{ version_id: string }>(
      'post',
      '/flipbooks/{id}/versions',
      201,
      'CreateVersionResponse',
      { params: { id }, body: upload({ activate: 'OFF' }) },
    );
    const unknown = randomUUID();
    const error = async (method: Method, path: string, status: number, init: Call) =>
      (await call<{ error: string }>(method, path, status, 'Error', init)).error;

    // 401: no key, a malformed key, a well-formed unknown key.
    expect(await error('get', '/flipbooks', 401, { headers: {} })).toBe('Unauthorized');
    await error('get', '/flipbooks/{id}', 401, {
      params: { id },
      headers: { authorization: 'Bearer nope' },
    });
    await error('post', '/flipbooks', 401, {
      headers: { 'x-api-key': `svc_${'0'.repeat(48)}` },
      body: upload({}),
    });

    // 400: bad ids, bad query parameters, missing file, bad activate flag.
    expect(await error('get', '/flipbooks/{id}', 400, { params: { id: 'nope' } })).toBe(
      'Invalid flipbook ID',
    );
    await error('get', '/flipbooks', 400, { query: 'per_page=0' });
    await error('get', '/flipbooks', 400, { query: 'sort=name' });
    await error('get', '/flipbooks', 400, { query: `search=${'x'.repeat(201)}` });
    expect(await error('post', '/flipbooks', 400, { body: upload({ title: 'x' }, null) })).toBe(
      'file is required',
    );
    await error('post', '/flipbooks', 400, { body: 'not multipart' });
    await error('post', '/flipbooks', 400, { body: upload({ title: 'x'.repeat(256) }) });
    expect(
      await error('post', '/flipbooks/{id}/versions', 400, {
        params: { id: 'x' },
        body: upload({}),
      }),
    ).toBe('Invalid flipbook ID');
    await error('post', '/flipbooks/{id}/versions', 400, {
      params: { id },
      body: upload({ activate: 'maybe' }),
    });
    await error('post', '/flipbooks/{id}/versions', 400, {
      params: { id },
      body: upload({}, null),
    });
    for (const [method, path] of [
      ['post', '/flipbooks/{id}/versions/{vid}/activate'],
      ['get', '/flipbooks/{id}/versions/{vid}/status'],
      ['delete', '/flipbooks/{id}/versions/{vid}'],
    ] as const) {
      expect(await error(method, path, 400, { params: { id, vid: 'x' } })).toBe('Invalid IDs');
    }

    // The audit additions: a bad id, bad paging, a bad or too early `at`.
    expect(await error('get', '/flipbooks/{id}/events', 400, { params: { id: 'nope' } })).toBe(
      'Invalid flipbook ID',
    );
    await error('get', '/flipbooks/{id}/events', 400, { params: { id }, query: 'per_page=101' });
    await error('get', '/flipbooks/{id}/events', 400, { params: { id }, query: 'page=0' });
    expect(
      await error('get', '/flipbooks/{id}', 400, { params: { id }, query: 'at=yesterday' }),
    ).toMatch(/^Invalid at/);
    expect(
      await error('get', '/flipbooks/{id}', 404, {
        params: { id },
        query: 'at=2000-01-01T00:00:00Z',
      }),
    ).toBe('Flipbook not found');
    await error('get', '/flipbooks/{id}/events', 404, { params: { id: unknown } });
    await error('get', '/flipbooks/{id}/events', 401, { params: { id }, headers: {} });

    // 404: unknown flipbook or version, and another workspace's flipbook.
    expect(await error('get', '/flipbooks/{id}', 404, { params: { id: unknown } })).toBe(
      'Flipbook not found',
    );
    const other = await fixture.newWorkspace('other');
    await error('get', '/flipbooks/{id}', 404, {
      params: { id },
      headers: { authorization: `Bearer ${other.key}` },
    });
    for (const query of [undefined, 'at=2100-01-01T00:00:00Z']) {
      await error('get', '/flipbooks/{id}', 404, {
        params: { id },
        query,
        headers: { authorization: `Bearer ${other.key}` },
      });
    }
    await error('get', '/flipbooks/{id}/events', 404, {
      params: { id },
      headers: { authorization: `Bearer ${other.key}` },
    });
    await error('post', '/flipbooks/{id}/versions', 404, {
      params: { id: unknown },
      body: upload({}),
    });
    for (const [method, path] of [
      ['post', '/flipbooks/{id}/versions/{vid}/activate'],
      ['get', '/flipbooks/{id}/versions/{vid}/status'],
      ['delete', '/flipbooks/{id}/versions/{vid}'],
    ] as const) {
      expect(await error(method, path, 404, { params: { id, vid: unknown } })).toBe(
        'Version not found',
      );
    }

    // 422: not a PDF, activating a version not yet done, deleting the active version.
    const notPdf = new Uint8Array(new TextEncoder().encode('hello, not a PDF'));
    await error('post', '/flipbooks', 422, { body: upload({}, notPdf) });
    await error('post', '/flipbooks/{id}/versions', 422, {
      params: { id },
      body: upload({}, notPdf),
    });
    await error('post', '/flipbooks/{id}/versions/{vid}/activate', 422, {
      params: { id, vid: pending },
    });
    await error('delete', '/flipbooks/{id}/versions/{vid}', 422, {
      params: { id, vid: active },
    });

    // 413: a declared body over the limit is refused before it is read.
    const oversized = async (method: 'GET' | 'POST', path: string, bytes: number) => {
      const res = await appInject(`${fixture.api}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${fixture.key}`,
          'content-type': 'multipart/form-data; boundary=x',
          'content-length': String(bytes),
        },
        payload: '--x\r\n',
      });
      return res;
    };
    for (const [method, mib] of [
      ['GET', 11],
      ['POST', 600],
    ] as const) {
      const answer = await oversized(method, '/flipbooks', mib * 1024 * 1024);
      await expectDocumented(method === 'GET' ? 'get' : 'post', '/flipbooks', answer, 413, 'Error');
    }
  });

  it('describes editing and deleting a flipbook, and their errors', async () => {
    const json = { authorization: `Bearer ${fixture.key}`, 'content-type': 'application/json' };
    const { flipbook_id: id } = await call<{ flipbook_id: string }>(
      'post',
      '/flipbooks',
      201,
      'CreateFlipbookResponse',
      { body: upload({ title: 'Spring catalogue', description: 'Shoes', slug: 'spring' }) },
    );
    const { flipbook_id: other } = await call<{ flipbook_id: string }>(
      'post',
      '/flipbooks',
      201,
      'CreateFlipbookResponse',
      { body: upload({ title: 'Summer catalogue' }) },
    );
    const edited = await call('patch', '/flipbooks/{id}', 200, 'Flipbook', {
      params: { id },
      headers: json,
      body: JSON.stringify({
        title: 'Spring catalogue 2027',
        slug: 'spring-2027',
        description: '',
        status: 'archived',
        allow_download: false,
        direction: 'rtl',
      }),
    });
    expect(edited).toMatchObject({
      id,
      title: 'Spring catalogue 2027',
      slug: 'spring-2027',
      description: '',
      status: 'archived',
      direction: 'rtl',
    });
    await call('patch', '/flipbooks/{id}', 200, 'Flipbook', {
      params: { id },
      headers: json,
      body: JSON.stringify({ status: 'published' }),
    });

    const error = async (method: Method, path: string, status: number, init: Call) =>
      (await call<{ error: string }>(method, path, status, 'Error', init)).error;
    const patch = (status: number, body: string, params: Record<string, string> = { id }) =>
      error('patch', '/flipbooks/{id}', status, { params, headers: json, body });
    expect(await patch(400, '{}', { id: 'nope' })).toBe('Invalid flipbook ID');
    expect(await patch(400, '{"title": 3}')).toBe('Invalid title: must be a string');
    expect(await patch(400, '{"colour": "red"}')).toMatch(/^Unknown field "colour"/);
    expect(await patch(400, '{"status": "gone"}')).toBe(
      'Invalid status: must be "published" or "archived"',
    );
    expect(await patch(400, '{"slug": "Not A Slug"}')).toMatch(/^Invalid slug/);
    expect(await patch(400, '{"direction": "up"}')).toBe(
      'Invalid direction: must be "ltr", "rtl" or "auto"',
    );
    expect(await patch(400, '[1]')).toMatch(/^The body must be a JSON object/);
    expect(await patch(400, '{"title"')).toBe('Malformed JSON body');
    expect(await patch(404, '{}', { id: randomUUID() })).toBe('Flipbook not found');
    expect(await patch(422, JSON.stringify({ slug: 'spring-2027' }), { id: other })).toMatch(
      /^Slug "spring-2027" is already used/,
    );
    expect(await patch(413, JSON.stringify({ description: 'x'.repeat(70_000) }))).toMatch(
      /^Request body too large/,
    );
    await error('patch', '/flipbooks/{id}', 401, { params: { id }, headers: {}, body: '{}' });

    expect(
      await call('delete', '/flipbooks/{id}', 200, 'DeleteResponse', { params: { id } }),
    ).toEqual({
      success: true,
    });
    expect(await error('delete', '/flipbooks/{id}', 404, { params: { id } })).toBe(
      'Flipbook not found',
    );
    expect(await error('delete', '/flipbooks/{id}', 400, { params: { id: 'nope' } })).toBe(
      'Invalid flipbook ID',
    );
    await error('get', '/flipbooks/{id}', 404, { params: { id } });
  });

  it('describes every answer of a preview’s life', async () => {
    const previewPath = '/flipbooks/by-slug/{slug}/previews/{name}';
    const params = { slug: 'handbook', name: 'pr-12' };
    const made = await call<{ flipbook_id: string; version_id: string }>(
      'post',
      previewPath,
      201,
      'PublishPreviewResponse',
      { params, body: upload({}) },
    );
    const pending = await call('get', previewPath, 200, 'Preview', { params });
    expect(pending).toMatchObject({ status: 'pending', compare: null });
    await call('get', '/flipbooks/by-slug/{slug}/previews', 200, 'PreviewList', { params });
    await call('post', `${previewPath}/promote`, 409, 'Error', { params });
    await completeProcessing(made.flipbook_id, [made.version_id]);
    const promoted = await call('post', `${previewPath}/promote`, 200, 'PromotePreviewResponse', {
      params,
    });
    expect(promoted).toMatchObject({ active_version_id: made.version_id });
    await call('get', previewPath, 404, 'Error', { params });
    // a second preview, deleted: 204 and no body, as documented
    const again = { ...params, name: 'pr-13' };
    await call('post', previewPath, 201, 'PublishPreviewResponse', {
      params: again,
      body: upload({}),
    });
    const res = await appFetch(`${fixture.api}/flipbooks/by-slug/handbook/previews/pr-13`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${fixture.key}` },
    });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect(doc.paths[previewPath]?.delete?.responses['204']).toBeDefined();
  });

  it('passes Spectral’s OpenAPI rules; its one warning (no contact) gone when the operator gives one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'openapi-'));
    try {
      // One run for two documents: as served here (with --contact-email), and without it.
      const withContact = join(dir, 'served.json');
      const without = join(dir, 'without.json');
      await writeFile(withContact, JSON.stringify(doc, null, 2));
      await writeFile(without, JSON.stringify(openApiDocument, null, 2));
      const spectral = join(import.meta.dirname, '../../node_modules/.bin/spectral');
      const ruleset = join(import.meta.dirname, '../../.spectral.yaml');
      const report = join(dir, 'spectral.json');
      // Exit code 1 means problems at the failing severity; the report says which.
      await promisify(execFile)(spectral, [
        'lint',
        withContact,
        without,
        '--ruleset',
        ruleset,
        '--format',
        'json',
        '--output',
        report,
        '--fail-severity',
        'error',
        '--quiet',
      ]).catch(() => {});
      const results = JSON.parse(await readFile(report, 'utf8')) as {
        code: string;
        severity: number;
        message: string;
        path: string[];
        source: string;
      }[];
      const errors = results.filter((r) => r.severity === 0);
      expect(errors.map((r) => `${r.code} at ${r.path.join('.')}: ${r.message}`)).toEqual([]);
      // Warnings are allowed by the rules but none is expected either, once the operator has
      // said who runs the service; without that, Spectral's one warning says so.
      expect(results.filter((r) => r.source === withContact).map((r) => r.code)).toEqual([]);
      expect(results.filter((r) => r.source === without).map((r) => r.code)).toEqual([
        'info-contact',
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  // Last: it uses up the minute's requests.
  it('describes the 429 answer and its headers', async () => {
    let res: Response | null = null;
    for (let i = 0; i < 400; i++) {
      const attempt = await appFetch(`${fixture.api}/openapi.json`);
      if (attempt.status === 429) {
        res = attempt;
        break;
      }
      await attempt.arrayBuffer();
    }
    if (!res) throw new Error('no 429 after 400 requests');
    expect(res.headers.get('ratelimit-policy')).toBe('"per-ip";q=120;w=60');
    const body = await expectDocumented('get', '/openapi.json', res, 429, 'Error');
    expect(body.error).toBe('Rate limit exceeded: 120 requests per minute');
    const listed = await appFetch(`${fixture.api}/flipbooks`, {
      headers: { authorization: `Bearer ${fixture.key}` },
    });
    await expectDocumented('get', '/flipbooks', listed, 429, 'Error');
  });
});
