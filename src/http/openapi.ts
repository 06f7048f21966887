// The OpenAPI 3.1 description of Client API v1, served (without authentication) at
// GET /api/v1/openapi.json. Generated, never written by hand: the shapes are the contract's
// TypeBox schemas (src/contract/, JSON Schema 2020-12 as OpenAPI 3.1 embeds it), the endpoints and
// their answers come from the route table (src/http/api.ts), and every limit it states is the
// constant the code enforces. Each schema with a name (its `title`) becomes a component, and every use of
// it inside another schema a `$ref`.
// One file (over 300 lines): the whole document is made in one pass over the route table, so every
// component is named once.
import type { TObject, TSchema } from '@sinclair/typebox';
import { ErrorBody } from '../contract/common.ts';
import { PLAN_LIMITS } from '../domain/plans.ts';
import { ACCEPTED_WORDS } from '../pdf/documentTypes.ts';
import { MAX_BODY_BYTES } from './bodyLimit.ts';
import { type Answer, type Endpoint, openApiPath } from './endpoint.ts';
import { DEFAULT_RATE_LIMIT, WINDOW_SECONDS } from './rateLimit.ts';
import { REQUEST_ID_PATTERN } from './requestContext.ts';
import { MAX_UPLOAD_BYTES } from './upload.ts';

type Json = Record<string, unknown>;

const MB = 1024 * 1024;
const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });
const rateLimited = `${DEFAULT_RATE_LIMIT} requests per minute`;

/** Sent on every /api/v1 answer: the request id always, the rate-limit headers while it is on (the default). */
const answerHeaders = Object.fromEntries(
  [
    'X-Request-Id',
    'RateLimit',
    'RateLimit-Policy',
    'RateLimit-Limit',
    'RateLimit-Remaining',
    'RateLimit-Reset',
  ].map((name) => [name, ref('headers', name)]),
);
const errorAnswer = (description: string, headers: Json = answerHeaders) => ({
  description,
  headers,
  content: { 'application/json': { schema: ref('schemas', 'Error') } },
});

// --- schemas: the contract's, as plain JSON with named ones referenced ---

const named = new Map<string, TSchema>();
const isNamed = (node: unknown): node is TSchema & { title: string } =>
  typeof node === 'object' && node !== null && typeof (node as Json).title === 'string';

/** Registers every named schema inside `schema` (itself included). */
const collect = (node: unknown) => {
  if (Array.isArray(node)) return node.forEach(collect);
  if (typeof node !== 'object' || node === null) return;
  if (isNamed(node)) {
    if (named.get(node.title) === node) return;
    if (named.has(node.title)) throw new Error(`two schemas are named ${node.title}`);
    named.set(node.title, node);
  }
  Object.values(node).forEach(collect);
};

/** The schema as JSON (TypeBox's symbol keys dropped), named schemas inside it as `$ref`s. */
const json = (node: unknown, root = true): unknown => {
  if (Array.isArray(node)) return node.map((item) => json(item, false));
  if (typeof node !== 'object' || node === null) return node;
  if (!root && isNamed(node)) return ref('schemas', node.title);
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, json(value, false)]));
};
const schemaOf = (schema: TSchema) =>
  isNamed(schema) ? ref('schemas', schema.title) : json(schema);

// --- operations ---

type Success = Endpoint<unknown>['ok'];

const answer = (given: Answer | Success, csv = false) => {
  if ('ref' in given) return ref('responses', given.ref);
  if ('error' in given) {
    return given.retryAfter
      ? errorAnswer(given.description, {
          'X-Request-Id': ref('headers', 'X-Request-Id'),
          'Retry-After': {
            description: 'Seconds to wait before sending the request again',
            required: true,
            schema: { type: 'integer', minimum: 0 },
          },
        })
      : errorAnswer(given.description);
  }
  if (given.status === 204) return { description: given.description, headers: answerHeaders };
  return {
    description: given.description,
    headers: answerHeaders,
    content: {
      'application/json': { schema: schemaOf(given.schema) },
      ...(csv
        ? { 'text/csv': { schema: { type: 'string', description: 'With Accept: text/csv' } } }
        : {}),
    },
  };
};

const requestBody = (body: NonNullable<Endpoint<unknown>['body']>) => {
  if ('json' in body) {
    return { required: true, content: { 'application/json': { schema: schemaOf(body.json) } } };
  }
  const fields = json(body.upload) as { properties: Json };
  return {
    required: true,
    content: {
      'multipart/form-data': {
        schema: {
          type: 'object',
          required: ['file'],
          properties: { file: pdfPart, ...fields.properties },
        },
        encoding: { file: { contentType: 'application/pdf, application/octet-stream, */*' } },
      },
    },
  };
};

const pdfPart = {
  type: 'string',
  format: 'binary',
  description: `The document (the multipart part named \`file\`, with a file name): ${ACCEPTED_WORDS}. Recognised by its content (a PDF by its \`%PDF-\` header within the first 1024 bytes), not by its name or declared type; anything else is a 422 that lists what is taken. Office documents are converted to PDF by processing (LibreOffice), images make one page each; a server run with \`--no-convert\` takes PDFs and images only. At most ${MAX_UPLOAD_BYTES / MB} MB, and at most the plan limit (${Object.entries(
    PLAN_LIMITS,
  )
    .map(([plan, limits]) => `${plan}: ${limits.maxUploadBytes / MB} MB`)
    .join(', ')})`,
};

/** A query schema's properties as query parameters, each with its description beside its schema. */
const queryParameters = (query: TObject) =>
  Object.entries((json(query) as { properties: Record<string, Json> }).properties).map(
    ([name, { description, ...schema }]) => ({ name, in: 'query', description, schema }),
  );

const operation = (endpoint: Endpoint<unknown>) => {
  const isUpload = endpoint.body !== undefined && 'upload' in endpoint.body;
  const shared: Record<number, Answer> = {
    413: { ref: isUpload ? 'UploadTooLarge' : 'BodyTooLarge' },
    429: { ref: 'TooManyRequests' },
    500: { ref: 'InternalError' },
    503: { ref: 'Unavailable' },
  };
  if (!endpoint.public) shared[401] = { ref: 'Unauthorized' };
  const responses: Record<number, Answer | Success> = {
    ...shared,
    ...endpoint.errors,
    [endpoint.ok.status]: endpoint.ok,
  };
  return {
    operationId: endpoint.operationId,
    tags: [endpoint.tag],
    summary: endpoint.summary,
    ...(endpoint.description ? { description: endpoint.description } : {}),
    ...(endpoint.public ? { security: [] } : {}),
    ...(endpoint.query || isUpload
      ? {
          parameters: [
            ...(endpoint.query ? queryParameters(endpoint.query) : []),
            ...(isUpload ? [ref('parameters', 'IdempotencyKey')] : []),
          ],
        }
      : {}),
    ...(endpoint.body ? { requestBody: requestBody(endpoint.body) } : {}),
    responses: Object.fromEntries(
      Object.entries(responses)
        .sort(([a], [b]) => Number(a) - Number(b))
        .map(([status, given]) => [status, answer(given, 'schema' in given && !!endpoint.csv)]),
    ),
  };
};

/** Each path parameter's component: one per name, whichever endpoint declares it. */
const PATH_PARAMETERS: Record<string, string> = {
  id: 'FlipbookId',
  vid: 'VersionId',
  webhookId: 'WebhookId',
  linkId: 'ShareLinkId',
  slug: 'Slug',
  name: 'PreviewName',
  email: 'ReaderEmail',
};

const pathParameters = (endpoints: readonly Endpoint<unknown>[]) => {
  const found: Record<string, Json> = {};
  for (const endpoint of endpoints) {
    const properties = (endpoint.params?.schema.properties ?? {}) as Record<string, Json>;
    for (const [name, { description, ...schema }] of Object.entries(properties)) {
      const component = PATH_PARAMETERS[name];
      if (!component) throw new Error(`no component named for the path parameter ${name}`);
      found[component] ??= { name, in: 'path', required: true, description, schema: json(schema) };
    }
  }
  return found;
};

/** Every upload takes one (beyond the spec; docs/api.md, "Idempotency-Key"). */
const idempotencyKeyParameter = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: the same key within 24 hours gives the first answer again (same status and body, with `Idempotent-Replayed: true`) and creates nothing; the same key with another request (another file, other fields, another target) is a 422. 1 to 255 printable ASCII characters, bare or as a quoted string; keys are per workspace. A UUID per upload is a good key.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

const paths = (endpoints: readonly Endpoint<unknown>[]) => {
  const items: Record<string, Json> = {};
  for (const endpoint of endpoints) {
    const path = openApiPath(endpoint.path);
    const names = Object.keys(endpoint.params?.schema.properties ?? {});
    items[path] ??= names.length
      ? { parameters: names.map((name) => ref('parameters', PATH_PARAMETERS[name] ?? name)) }
      : {};
    (items[path] as Json)[endpoint.method] = operation(endpoint);
  }
  return items;
};

// --- the document ---

export const buildOpenApiDocument = <Deps>(endpoints: readonly Endpoint<Deps>[]) => {
  const all = endpoints as readonly Endpoint<unknown>[];
  for (const endpoint of all) {
    collect(endpoint.ok.schema);
    if (endpoint.body) collect('json' in endpoint.body ? endpoint.body.json : endpoint.body.upload);
  }
  collect(ErrorBody);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Flipbook Client API',
      version: '1.0.0',
      summary: 'Create flipbooks from PDF files, upload and activate versions, poll processing.',
      description: description(),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/api/v1', description: 'Client API v1, relative to the service address' }],
    security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
    tags: [
      { name: 'flipbooks', description: 'Flipbooks of the key’s workspace' },
      { name: 'versions', description: 'File versions of a flipbook' },
      {
        name: 'previews',
        description:
          'A change reviewed before it goes live: a version under a name, compared with the live one, promoted or deleted (beyond the spec; docs/ci.md)',
      },
      {
        name: 'audit',
        description: 'Who did what, and what a flipbook was at a past moment (beyond the spec)',
      },
      {
        name: 'webhooks',
        description: 'The event feed and webhooks: events pushed, signed (beyond the spec)',
      },
      {
        name: 'stats',
        description:
          'Reading figures, counted without cookies or personal data (beyond the spec; docs/privacy.md)',
      },
      { name: 'meta', description: 'This description' },
    ],
    paths: paths(all),
    components: {
      securitySchemes,
      parameters: { ...pathParameters(all), IdempotencyKey: idempotencyKeyParameter },
      headers,
      responses: {
        Unauthorized: errorAnswer(
          '`Unauthorized`: the API key is missing, malformed, unknown, revoked or expired',
        ),
        BodyTooLarge: errorAnswer(
          `\`Request body too large: the limit is ${MAX_BODY_BYTES / MB} MB\` (these endpoints take no body)`,
        ),
        UploadTooLarge: errorAnswer(
          `\`File too large: uploads are limited to ${MAX_UPLOAD_BYTES / MB} MB\``,
        ),
        TooManyRequests: errorAnswer(
          `\`Rate limit exceeded: ${rateLimited}\`: over the per-IP limit in the current one-minute window`,
          { 'Retry-After': ref('headers', 'Retry-After'), ...answerHeaders },
        ),
        InsufficientStorage: errorAnswer(
          '`The server is out of storage space; try again later`: the disk holding uploads is full. Nothing of the upload is kept, and the connection is closed without reading the rest of the body; ask again after `Retry-After` (30 s)',
          { 'Retry-After': ref('headers', 'Retry-After'), ...answerHeaders },
        ),
        InternalError: errorAnswer('`Internal server error`'),
        Unavailable: errorAnswer(
          '`The database is unavailable right now; try again shortly` (or `The server cannot store files right now; ...`): what the service stands on is down, restarting, not answering within the database timeout (5 s by default: the answer comes within 10 s), or out of connections, memory or disk; nothing is wrong with the request, which can be sent again',
          { 'Retry-After': ref('headers', 'Retry-After'), ...answerHeaders },
        ),
      },
      schemas: Object.fromEntries([...named].map(([name, schema]) => [name, json(schema)])),
    },
  };
};

const description = () =>
  [
    'REST API of the flipbook publishing service: upload a PDF, receive a flipbook id and a',
    'version id, and poll the version status until it is `done`. Processing is asynchronous;',
    'upload answers return at once with status `pending`.',
    '',
    'Authentication: every endpoint except `GET /openapi.json` needs an API key of the form',
    '`svc_` followed by 48 hexadecimal characters, sent as `Authorization: Bearer <key>`',
    '(recommended) or as `X-Api-Key: <key>`. When both headers are sent, `Authorization` wins.',
    'A missing, malformed, unknown, revoked or expired key is a 401.',
    '',
    'Every body is JSON except uploads (multipart/form-data). Every error answer is',
    '`{"error": "<description>"}`. Unknown routes answer 404 `{"error": "Not found"}`.',
    '',
    `Limits: ${rateLimited} per client IP address over every /api/v1 request (401s included;`,
    'the operator may change it), in fixed one-minute windows, answered with the IETF RateLimit',
    'headers; over the limit is a 429 with `Retry-After`. Upload bodies are limited to',
    `${MAX_UPLOAD_BYTES / MB} MB (and to the plan’s upload limit), every other request body to ${MAX_BODY_BYTES / MB} MB.`,
    `Plans: ${Object.entries(PLAN_LIMITS)
      .map(
        ([plan, l]) =>
          `${plan}: ${l.maxFlipbooks} flipbooks, ${l.maxVersionsPerFlipbook} versions per flipbook, ${l.maxPagesPerVersion} pages and ${l.maxUploadBytes / MB} MB per upload`,
      )
      .join('; ')}.`,
    '',
    'Every answer carries `X-Request-Id`. A well-formed id sent by the client (1 to 128 of',
    '`A-Z a-z 0-9 . _ : / + = @ -`) is kept, anything else is replaced by a fresh UUID; the id is',
    'recorded in the metadata of the events the request caused (see `GET /flipbooks/{id}/events`).',
    '',
    'Beyond the spec: editing and deleting a flipbook (`PATCH` and `DELETE /flipbooks/{id}`), and',
    'the audit trail (`GET /flipbooks/{id}/events` and `GET /flipbooks/{id}?at=`).',
  ].join('\n');

const securitySchemes = {
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'svc_ followed by 48 hexadecimal characters',
    description: '`Authorization: Bearer <key>` (recommended). Wins over X-Api-Key.',
  },
  apiKeyHeader: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Api-Key',
    description: '`X-Api-Key: <key>`; ignored when an Authorization header is sent.',
  },
};

const headers = {
  'X-Request-Id': {
    description:
      'The request’s id: the one the client sent when well-formed (1 to 128 of `A-Z a-z 0-9 . _ : / + = @ -`), otherwise a fresh UUID. Recorded as `request_id` in the metadata of the events the request caused',
    required: true,
    schema: { type: 'string', pattern: REQUEST_ID_PATTERN.source },
    example: '5f0c6d3e-8f0a-4b2e-9a41-1f6f3f1b2c7d',
  },
  RateLimit: {
    description: 'Remaining requests and seconds until the window resets',
    schema: { type: 'string' },
    example: `"per-ip";r=${DEFAULT_RATE_LIMIT - 1};t=42`,
  },
  'RateLimit-Policy': {
    description: 'The quota: q requests per w seconds per client IP',
    schema: { type: 'string' },
    example: `"per-ip";q=${DEFAULT_RATE_LIMIT};w=${WINDOW_SECONDS}`,
  },
  'RateLimit-Limit': {
    description: 'Requests allowed per window (older draft header)',
    schema: { type: 'integer', minimum: 1 },
  },
  'RateLimit-Remaining': {
    description: 'Requests left in this window (older draft header)',
    schema: { type: 'integer', minimum: 0 },
  },
  'RateLimit-Reset': {
    description: 'Seconds until the window resets (older draft header)',
    schema: { type: 'integer', minimum: 0 },
  },
  'Retry-After': {
    description:
      'Seconds to wait before asking again: until the rate-limit window resets (429), or a passing failure is likely over (503, 507)',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
};
