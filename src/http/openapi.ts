// The OpenAPI 3.1 description of Client API v1, served (without authentication) at
// GET /api/v1/openapi.json. The shapes mirror src/http/present.ts and src/app/flipbooks.ts field
// for field: every field the code always sends is required and no other is allowed, so
// test/e2e/openapi.e2e.test.ts fails when a field is added, removed or renamed on either side.
// Schemas are JSON Schema 2020-12, as OpenAPI 3.1 uses it.

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const responseRef = (name: string) => ({ $ref: `#/components/responses/${name}` });
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });
const parameterRef = (name: string) => ({ $ref: `#/components/parameters/${name}` });

/** Sent on every /api/v1 answer: the request id always, the rate-limit headers while it is on (the default). */
const rateLimitHeaders = {
  'X-Request-Id': headerRef('X-Request-Id'),
  RateLimit: headerRef('RateLimit'),
  'RateLimit-Policy': headerRef('RateLimit-Policy'),
  'RateLimit-Limit': headerRef('RateLimit-Limit'),
  'RateLimit-Remaining': headerRef('RateLimit-Remaining'),
  'RateLimit-Reset': headerRef('RateLimit-Reset'),
};

const jsonResponse = (description: string, schemaName: string) => ({
  description,
  headers: rateLimitHeaders,
  content: { 'application/json': { schema: schemaRef(schemaName) } },
});

/** An error answer: always `{"error": "<description>"}`. */
const errorResponse = (description: string) => jsonResponse(description, 'Error');
/** src/store/handleCommand.ts's StoreBusy: conflicts with other processes outlasted the retries. */
const storeBusy = {
  ...errorResponse(
    '`The server is busy with concurrent changes to this resource; try again`: other processes kept changing the flipbook at the same moment for several seconds (conflicts are retried inside the server first; it never answers 409)',
  ),
  headers: {
    'X-Request-Id': headerRef('X-Request-Id'),
    'Retry-After': {
      description: 'Seconds to wait before sending the request again',
      required: true,
      schema: { type: 'integer', minimum: 0 },
    },
  },
};

/** Errors every authenticated endpoint can give, whatever it does. */
const commonErrors = (tooLarge: 'UploadTooLarge' | 'BodyTooLarge') => ({
  '401': responseRef('Unauthorized'),
  '413': responseRef(tooLarge),
  '429': responseRef('TooManyRequests'),
  '500': responseRef('InternalError'),
});

const uuid = (description: string) => ({ type: 'string', format: 'uuid', description });
const dateTime = (description: string) => ({
  type: 'string',
  format: 'date-time',
  description: `${description}; RFC 3339 in UTC with seconds precision, e.g. 2025-01-31T09:30:00Z`,
});
const integer = (description: string, minimum = 0) => ({ type: 'integer', minimum, description });
const versionStatus = {
  type: 'string',
  enum: ['pending', 'processing', 'done', 'error'],
  description:
    'Processing status: `pending` after upload, then `processing`, then `done` or `error`',
};
const unixSeconds = {
  type: 'integer',
  description: 'When the upload was accepted, in Unix time (whole seconds)',
};
const estimatedSeconds = {
  type: 'number',
  minimum: 0,
  description:
    'Expected processing time in seconds (fractional, two decimals), from the page count and the speed measured on this server',
};
const uploadedSize = integer('Size of the uploaded file in bytes', 1);
const imageUrl = (size: string) => ({
  type: 'string',
  format: 'uri',
  description: `Absolute URL of the page image, ${size} rendition (WebP)`,
});

/** The fields of a flipbook, shared by the list item and the full flipbook. */
const flipbookProperties = {
  id: uuid('Flipbook id'),
  title: {
    type: 'string',
    maxLength: 255,
    description: 'Title; the uploaded file name when none was given at creation',
  },
  slug: { type: 'string', description: 'URL-friendly form of the title' },
  description: { type: 'string', description: 'Description; empty unless set' },
  status: { type: 'string', enum: ['published', 'archived'], description: 'Flipbook status' },
  url: { type: 'string', format: 'uri', description: 'Absolute URL of the reader view' },
  created_at: dateTime('When the flipbook was created'),
  updated_at: dateTime('When the flipbook or one of its versions last changed'),
} as const;
const flipbookFields = Object.keys(flipbookProperties);

const multipartFile = {
  type: 'string',
  format: 'binary',
  contentMediaType: 'application/pdf',
  description:
    'The PDF (the multipart part named `file`, with a file name). Recognised by its `%PDF-` header within the first 1024 bytes, not by its declared type. At most 512 MB, and at most the plan limit (free: 50 MB, team: 512 MB)',
};

const uploadBusinessErrors =
  '`The file is empty`, `File is not a PDF: it has no %PDF- header`, `File is not a readable PDF: <reason>`, ' +
  '`File too large for the <plan> plan: …` (free 50 MB, team 512 MB), ' +
  '`Too many pages for the <plan> plan: …` (free 200, team 2000 pages per document)';

/** The `activate` spellings src/domain/activateFlag.ts accepts (a unit test keeps them in step). */
export const ACTIVATE_SPELLINGS = ['true', '1', 'yes', 'on', 'false', '0', 'no', 'off'];

/** A NUL cannot be stored (PostgreSQL refuses it); the message names the field. */
const nulRefused = (field: string) => `\`Invalid ${field}: it contains a NUL character\``;

const malformedUpload =
  'a malformed multipart body, more than one file, more than 20 fields, a field over 64 KB, ' +
  'or `Workspace not found` (the key outlived its workspace)';

export const openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'Flipbook Client API',
    version: '1.0.0',
    summary: 'Create flipbooks from PDF files, upload and activate versions, poll processing.',
    description: [
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
      'Limits: 120 requests per minute per client IP address over every /api/v1 request (401s',
      'included), in fixed one-minute windows, answered with the IETF RateLimit headers; over the',
      'limit is a 429 with `Retry-After`. Upload bodies are limited to 512 MB (and to the plan’s',
      'upload limit), every other request body to 10 MB.',
      '',
      'Every answer carries `X-Request-Id`. A well-formed id sent by the client (1 to 128 of',
      '`A-Z a-z 0-9 . _ : / + = @ -`) is kept, anything else is replaced by a fresh UUID; the id is',
      'recorded in the metadata of the events the request caused (see `GET /flipbooks/{id}/events`).',
      '',
      'Beyond the spec (the audit trail): `GET /flipbooks/{id}/events` and `GET /flipbooks/{id}?at=`.',
    ].join('\n'),
  },
  servers: [{ url: '/api/v1', description: 'Client API v1, relative to the service address' }],
  security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
  tags: [
    { name: 'flipbooks', description: 'Flipbooks of the key’s workspace' },
    { name: 'versions', description: 'File versions of a flipbook' },
    {
      name: 'audit',
      description: 'Who did what, and what a flipbook was at a past moment (beyond the spec)',
    },
    { name: 'meta', description: 'This description' },
  ],
  paths: {
    '/openapi.json': {
      get: {
        operationId: 'getOpenApiDocument',
        tags: ['meta'],
        summary: 'This OpenAPI document',
        description: 'Public: no API key is needed. Still counted by the rate limit.',
        security: [],
        responses: {
          '200': {
            description: 'The OpenAPI 3.1 document',
            headers: rateLimitHeaders,
            content: {
              'application/json': {
                schema: { type: 'object', required: ['openapi', 'info', 'paths'] },
              },
            },
          },
          '413': responseRef('BodyTooLarge'),
          '429': responseRef('TooManyRequests'),
          '500': responseRef('InternalError'),
        },
      },
    },
    '/flipbooks': {
      get: {
        operationId: 'listFlipbooks',
        tags: ['flipbooks'],
        summary: 'List flipbooks',
        description:
          'The flipbooks of the key’s workspace, a page at a time. Each carries only its active version (none before one is active) and no pages. Every parameter may be given once; unknown parameters are ignored.',
        parameters: [
          {
            name: 'page',
            in: 'query',
            description: 'Page number, from 1; a page past the end is empty',
            schema: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 1 },
          },
          {
            name: 'per_page',
            in: 'query',
            description: 'Items per page',
            schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
          },
          {
            name: 'search',
            in: 'query',
            description:
              'Case-insensitive substring of the title (trimmed; `%` and `_` match themselves). Blank means no filter; a NUL character is a 400',
            schema: { type: 'string', maxLength: 200 },
          },
          {
            name: 'status',
            in: 'query',
            description:
              'Only flipbooks with this status (case-insensitive). Empty means no filter',
            schema: { type: 'string', enum: ['published', 'archived'] },
          },
          {
            name: 'sort',
            in: 'query',
            description: 'Sort field (case-insensitive); `title` sorts case-insensitively',
            schema: {
              type: 'string',
              enum: ['created_at', 'updated_at', 'title'],
              default: 'created_at',
            },
          },
          {
            name: 'dir',
            in: 'query',
            description: 'Sort direction (case-insensitive)',
            schema: { type: 'string', enum: ['asc', 'desc'], default: 'desc' },
          },
        ],
        responses: {
          '200': jsonResponse('One page of flipbooks', 'FlipbookList'),
          '400': errorResponse(
            `An invalid query parameter, named in the message (e.g. \`Invalid per_page: must be an integer from 1 to 100\`, \`Invalid sort: give it once\`, ${nulRefused('search')}), or \`Workspace not found\``,
          ),
          ...commonErrors('BodyTooLarge'),
        },
      },
      post: {
        operationId: 'createFlipbook',
        tags: ['flipbooks'],
        summary: 'Create a flipbook by uploading a PDF',
        description:
          'Creates the flipbook and its version 1 (status `pending`, activated automatically once processed). Returns at once; poll the version status.',
        requestBody: {
          required: true,
          content: {
            'multipart/form-data': {
              schema: {
                type: 'object',
                required: ['file'],
                properties: {
                  file: multipartFile,
                  title: {
                    type: 'string',
                    maxLength: 255,
                    description:
                      'Title, trimmed, at most 255 characters, no NUL character; absent or blank means the file name',
                  },
                },
              },
              encoding: { file: { contentType: 'application/pdf, application/octet-stream' } },
            },
          },
        },
        responses: {
          '201': jsonResponse(
            'Flipbook created; its version 1 is pending',
            'CreateFlipbookResponse',
          ),
          '400': errorResponse(
            `\`file is required\` (no multipart body or no \`file\` part), \`Invalid title: at most 255 characters\`, ${nulRefused('title')}, ${malformedUpload}`,
          ),
          '422': errorResponse(
            `A business rule refused the upload: ${uploadBusinessErrors}, \`Flipbook limit reached: …\` (free 10, team 10000 flipbooks)`,
          ),
          '507': responseRef('InsufficientStorage'),
          ...commonErrors('UploadTooLarge'),
        },
      },
    },
    '/flipbooks/{id}': {
      parameters: [parameterRef('FlipbookId')],
      get: {
        operationId: 'getFlipbook',
        tags: ['flipbooks'],
        summary: 'Get a flipbook',
        description:
          'The flipbook with all its versions (newest first) and the pages of its active version (none before one is active). With `at`, the flipbook as it was at that moment (beyond the spec).',
        parameters: [
          {
            name: 'at',
            in: 'query',
            description:
              'Beyond the spec: answer the flipbook as it was at this moment, RFC 3339 with its offset (e.g. `2026-11-23T12:00:00Z`): its title, the versions it had then with their status, and which one was active. The pages are those of the version active then; a version whose files were deleted since still lists its pages, but their image URLs are no longer served (404). `created_at`/`updated_at` are as they were; `url` is today’s reader URL, which shows the flipbook as it is now',
            schema: { type: 'string', format: 'date-time', examples: ['2026-11-23T12:00:00Z'] },
          },
        ],
        responses: {
          '200': jsonResponse('The flipbook (as it was at `at`, when given)', 'Flipbook'),
          '400': errorResponse(
            '`Invalid flipbook ID`, `Invalid at: give one RFC 3339 date-time, e.g. 2026-11-23T12:00:00Z`, or `Workspace not found`',
          ),
          '404': errorResponse(
            '`Flipbook not found` (also for a flipbook of another workspace, and with `at` before the flipbook was created)',
          ),
          ...commonErrors('BodyTooLarge'),
        },
      },
    },
    '/flipbooks/{id}/events': {
      parameters: [parameterRef('FlipbookId')],
      get: {
        operationId: 'listFlipbookEvents',
        tags: ['audit'],
        summary: 'The flipbook’s audit trail (beyond the spec)',
        description:
          'Every event of the flipbook in the order it happened, a page at a time: what happened (`type`, `data`), when (`at`) and who did it, from where, in which request (`metadata`). Events of a deleted version stay. Internal details (hashes of API keys, file paths) never appear.',
        parameters: [
          {
            name: 'page',
            in: 'query',
            description: 'Page number, from 1; a page past the end is empty',
            schema: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 1 },
          },
          {
            name: 'per_page',
            in: 'query',
            description: 'Events per page',
            schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
          },
        ],
        responses: {
          '200': jsonResponse('One page of the flipbook’s events, oldest first', 'EventList'),
          '400': errorResponse(
            '`Invalid flipbook ID`, an invalid `page` or `per_page` (e.g. `Invalid per_page: must be an integer from 1 to 100`), or `Workspace not found`',
          ),
          '404': errorResponse('`Flipbook not found` (also for a flipbook of another workspace)'),
          ...commonErrors('BodyTooLarge'),
        },
      },
    },
    '/flipbooks/{id}/versions': {
      parameters: [parameterRef('FlipbookId')],
      post: {
        operationId: 'createVersion',
        tags: ['versions'],
        summary: 'Upload a new version of a flipbook',
        description:
          'Adds a version with the next number (status `pending`). With `activate` true (the default) it becomes the active version once processed. Returns at once; poll the version status.',
        requestBody: {
          required: true,
          content: {
            'multipart/form-data': {
              schema: {
                type: 'object',
                required: ['file'],
                properties: {
                  file: multipartFile,
                  activate: {
                    type: 'string',
                    enum: ACTIVATE_SPELLINGS,
                    default: 'true',
                    examples: ['true', 'false'],
                    description:
                      'Whether to activate the version automatically once processed. Accepted spellings, in any letter case and with surrounding spaces ignored: `true`/`1`/`yes`/`on` and `false`/`0`/`no`/`off`. Absent means true; anything else is a 400',
                  },
                },
              },
              encoding: { file: { contentType: 'application/pdf, application/octet-stream' } },
            },
          },
        },
        responses: {
          '201': jsonResponse('Version created, pending', 'CreateVersionResponse'),
          '400': errorResponse(
            `\`Invalid flipbook ID\` (refused before the upload is read), \`file is required\`, \`Invalid activate: use true/false, 1/0, yes/no or on/off\`, ${malformedUpload}`,
          ),
          '404': errorResponse('`Flipbook not found` (also for a flipbook of another workspace)'),
          '503': storeBusy,
          '422': errorResponse(
            `A business rule refused the upload: ${uploadBusinessErrors}, \`Version limit reached: …\` (free 20, team 1000 versions per flipbook)`,
          ),
          '507': responseRef('InsufficientStorage'),
          ...commonErrors('UploadTooLarge'),
        },
      },
    },
    '/flipbooks/{id}/versions/{vid}/activate': {
      parameters: [parameterRef('FlipbookId'), parameterRef('VersionId')],
      post: {
        operationId: 'activateVersion',
        tags: ['versions'],
        summary: 'Activate a version',
        description:
          'Makes the version the active one; the previously active version is deactivated. Only a `done` version can be activated; activating the active version again succeeds and changes nothing. No request body.',
        responses: {
          '200': jsonResponse('The version is active', 'ActivateResponse'),
          '400': errorResponse('`Invalid IDs`, or `Workspace not found`'),
          '404': errorResponse(
            '`Version not found` (also for a deleted version, or one of another flipbook or workspace)',
          ),
          '503': storeBusy,
          '422': errorResponse(
            'The version cannot be activated: `Only a processed version can be activated; this version is <status>…`',
          ),
          ...commonErrors('BodyTooLarge'),
        },
      },
    },
    '/flipbooks/{id}/versions/{vid}/status': {
      parameters: [parameterRef('FlipbookId'), parameterRef('VersionId')],
      get: {
        operationId: 'getVersionStatus',
        tags: ['versions'],
        summary: 'Processing status of a version',
        responses: {
          '200': jsonResponse('The version’s status', 'VersionStatus'),
          '400': errorResponse('`Invalid IDs`, or `Workspace not found`'),
          '404': errorResponse(
            '`Version not found` (also for a deleted version, or one of another flipbook or workspace)',
          ),
          ...commonErrors('BodyTooLarge'),
        },
      },
    },
    '/flipbooks/{id}/versions/{vid}': {
      parameters: [parameterRef('FlipbookId'), parameterRef('VersionId')],
      delete: {
        operationId: 'deleteVersion',
        tags: ['versions'],
        summary: 'Delete an inactive version',
        description:
          'Removes the version with its pages. The active version cannot be deleted: activate another one first.',
        responses: {
          '200': jsonResponse('The version is deleted', 'DeleteResponse'),
          '400': errorResponse('`Invalid IDs`, or `Workspace not found`'),
          '404': errorResponse(
            '`Version not found` (also for an already deleted version, or one of another flipbook or workspace)',
          ),
          '503': storeBusy,
          '422': errorResponse(
            '`An active version cannot be deleted; activate another version first`',
          ),
          ...commonErrors('BodyTooLarge'),
        },
      },
    },
  },
  components: {
    securitySchemes: {
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
    },
    parameters: {
      FlipbookId: {
        name: 'id',
        in: 'path',
        required: true,
        description: 'Flipbook id (any letter case)',
        schema: { type: 'string', format: 'uuid' },
      },
      VersionId: {
        name: 'vid',
        in: 'path',
        required: true,
        description: 'Version id (any letter case)',
        schema: { type: 'string', format: 'uuid' },
      },
    },
    headers: {
      'X-Request-Id': {
        description:
          'The request’s id: the one the client sent when well-formed (1 to 128 of `A-Z a-z 0-9 . _ : / + = @ -`), otherwise a fresh UUID. Recorded as `request_id` in the metadata of the events the request caused',
        required: true,
        schema: { type: 'string', pattern: '^[A-Za-z0-9._:/+=@-]{1,128}$' },
        example: '5f0c6d3e-8f0a-4b2e-9a41-1f6f3f1b2c7d',
      },
      RateLimit: {
        description: 'Remaining requests and seconds until the window resets',
        schema: { type: 'string' },
        example: '"per-ip";r=119;t=42',
      },
      'RateLimit-Policy': {
        description: 'The quota: q requests per w seconds per client IP',
        schema: { type: 'string' },
        example: '"per-ip";q=120;w=60',
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
        description: 'Seconds until the window resets and requests are accepted again',
        required: true,
        schema: { type: 'integer', minimum: 0 },
      },
    },
    responses: {
      Unauthorized: errorResponse(
        '`Unauthorized`: the API key is missing, malformed, unknown, revoked or expired',
      ),
      BodyTooLarge: errorResponse(
        '`Request body too large: the limit is 10 MB` (these endpoints take no body)',
      ),
      UploadTooLarge: errorResponse('`File too large: uploads are limited to 512 MB`'),
      TooManyRequests: {
        description:
          '`Rate limit exceeded: 120 requests per minute`: over the per-IP limit in the current one-minute window',
        headers: {
          'Retry-After': headerRef('Retry-After'),
          ...rateLimitHeaders,
        },
        content: { 'application/json': { schema: schemaRef('Error') } },
      },
      InsufficientStorage: errorResponse(
        '`The server is out of storage space; try again later`: the disk holding uploads is full. Nothing of the upload is kept, and the connection is closed without reading the rest of the body',
      ),
      InternalError: errorResponse('`Internal server error`'),
    },
    schemas: {
      Error: {
        type: 'object',
        description: 'Every error answer',
        required: ['error'],
        additionalProperties: false,
        properties: { error: { type: 'string', description: 'What went wrong' } },
      },
      Version: {
        type: 'object',
        required: [
          'id',
          'version',
          'status',
          'is_active',
          'activate_on_done',
          'file_name',
          'file_type',
          'mime_type',
          'file_size',
          'width',
          'height',
          'created_at',
        ],
        additionalProperties: false,
        properties: {
          id: uuid('Version id'),
          version: integer('Version number: 1, 2, … within the flipbook, never reused', 1),
          status: versionStatus,
          is_active: { type: 'boolean', description: 'Whether this is the active version' },
          activate_on_done: {
            type: 'boolean',
            description: 'Whether the version is activated automatically when processing finishes',
          },
          file_name: {
            type: 'string',
            minLength: 1,
            maxLength: 255,
            description: 'Original file name, without any directory part',
          },
          file_type: {
            type: 'string',
            examples: ['pdf'],
            description: 'Kind of the original file; `pdf`',
          },
          mime_type: {
            type: 'string',
            examples: ['application/pdf'],
            description: 'Media type of the original file; `application/pdf`',
          },
          file_size: integer('Size of the original file in bytes'),
          width: integer('Page width found by processing; 0 until processed'),
          height: integer('Page height found by processing; 0 until processed'),
          created_at: dateTime('When the version was uploaded'),
        },
      },
      Page: {
        type: 'object',
        required: ['id', 'position', 'width', 'height', 'img_max', 'img_mid', 'img_min'],
        additionalProperties: false,
        properties: {
          id: uuid('Page id'),
          position: integer('Page position, from 1', 1),
          width: integer('Page width'),
          height: integer('Page height'),
          img_max: imageUrl('largest'),
          img_mid: imageUrl('medium'),
          img_min: imageUrl('smallest'),
        },
      },
      FlipbookListItem: {
        type: 'object',
        description: 'A flipbook as listed: its active version only, no pages',
        required: [...flipbookFields, 'versions'],
        additionalProperties: false,
        properties: {
          ...flipbookProperties,
          versions: {
            type: 'array',
            maxItems: 1,
            description: 'The active version, or nothing before a version is active',
            items: schemaRef('Version'),
          },
        },
      },
      Flipbook: {
        type: 'object',
        description: 'A flipbook with all its versions and the pages of its active version',
        required: [...flipbookFields, 'versions', 'pages'],
        additionalProperties: false,
        properties: {
          ...flipbookProperties,
          versions: {
            type: 'array',
            description: 'All versions, newest first',
            items: schemaRef('Version'),
          },
          pages: {
            type: 'array',
            description:
              'Pages of the active version, by position; empty before a version is active',
            items: schemaRef('Page'),
          },
        },
      },
      FlipbookList: {
        type: 'object',
        required: ['flipbooks', 'page', 'per_page', 'total_pages'],
        additionalProperties: false,
        properties: {
          flipbooks: { type: 'array', maxItems: 100, items: schemaRef('FlipbookListItem') },
          page: integer('The page returned', 1),
          per_page: { type: 'integer', minimum: 1, maximum: 100, description: 'Items per page' },
          total_pages: integer('Number of pages for this filter; 0 when nothing matches'),
        },
      },
      CreateFlipbookResponse: {
        type: 'object',
        required: [
          'flipbook_id',
          'version_id',
          'title',
          'status',
          'file_size',
          'estimated_seconds',
          'created_at_unix',
        ],
        additionalProperties: false,
        properties: {
          flipbook_id: uuid('The new flipbook'),
          version_id: uuid('Its version 1'),
          title: {
            type: 'string',
            maxLength: 255,
            description: 'The title given, or the file name',
          },
          status: { const: 'pending', description: 'Status of version 1' },
          file_size: uploadedSize,
          estimated_seconds: estimatedSeconds,
          created_at_unix: unixSeconds,
        },
      },
      CreateVersionResponse: {
        type: 'object',
        required: [
          'version_id',
          'version_status',
          'activate_on_done',
          'file_size',
          'estimated_seconds',
          'created_at_unix',
        ],
        additionalProperties: false,
        properties: {
          version_id: uuid('The new version'),
          version_status: { const: 'pending', description: 'Status of the new version' },
          activate_on_done: {
            type: 'boolean',
            description: 'Whether it is activated automatically once processed',
          },
          file_size: uploadedSize,
          estimated_seconds: estimatedSeconds,
          created_at_unix: unixSeconds,
        },
      },
      ActivateResponse: {
        type: 'object',
        required: ['success', 'active_version_id'],
        additionalProperties: false,
        properties: {
          success: { const: true },
          active_version_id: uuid('The version now active'),
        },
      },
      VersionStatus: {
        type: 'object',
        required: [
          'version_id',
          'status',
          'is_active',
          'version',
          'pages',
          'file_name',
          'file_size',
        ],
        additionalProperties: false,
        properties: {
          version_id: uuid('Version id'),
          status: versionStatus,
          is_active: { type: 'boolean', description: 'Whether this is the active version' },
          version: integer('Version number', 1),
          pages: integer('Number of pages; 0 while pending or before processing found them'),
          file_name: { type: 'string', description: 'Original file name' },
          file_size: integer('Size of the original file in bytes'),
          error_reason: {
            type: 'string',
            description:
              'Only when status is error (an addition to the spec): why processing failed, for a person',
          },
        },
      },
      DeleteResponse: {
        type: 'object',
        required: ['success'],
        additionalProperties: false,
        properties: { success: { const: true } },
      },
      EventList: {
        type: 'object',
        required: ['events', 'page', 'per_page', 'total_pages'],
        additionalProperties: false,
        properties: {
          events: { type: 'array', maxItems: 100, items: schemaRef('Event') },
          page: integer('The page returned', 1),
          per_page: { type: 'integer', minimum: 1, maximum: 100, description: 'Events per page' },
          total_pages: integer('Number of pages of events'),
        },
      },
      Event: {
        type: 'object',
        description: 'One event of the log, as recorded',
        required: ['id', 'stream', 'position', 'at', 'type', 'data', 'metadata'],
        additionalProperties: false,
        properties: {
          id: uuid('The event’s id: what a later event’s `causation_id` names'),
          stream: {
            type: 'string',
            pattern: '^(flipbook|workspace)-[0-9a-f-]{36}$',
            description: 'The stream it belongs to: `flipbook-<flipbook id>`',
          },
          position: integer('Its position in the stream, from 1, without gaps', 1),
          at: {
            type: 'string',
            format: 'date-time',
            description: 'When it happened: RFC 3339 in UTC with milliseconds',
          },
          type: {
            type: 'string',
            examples: [
              'FlipbookCreated',
              'FlipbookDownloadChanged',
              'VersionUploaded',
              'VersionProcessingStarted',
              'VersionPagesRendered',
              'VersionProcessed',
              'VersionProcessingFailed',
              'VersionActivated',
              'VersionDeleted',
            ],
            description: 'What happened (past tense); new types may appear',
          },
          data: {
            type: 'object',
            description:
              'The event’s fields, as recorded (camelCase, e.g. `versionId`, `occurredAt`); they depend on `type`. Hashes of API keys are never shown',
          },
          metadata: schemaRef('EventMetadata'),
        },
      },
      EventMetadata: {
        type: 'object',
        description:
          'Who did it, from where, in which story. Events recorded before the audit trail existed show `actor` `{"type": "unknown"}` and null fields',
        required: [
          'actor',
          'request_id',
          'client_ip',
          'user_agent',
          'correlation_id',
          'causation_id',
        ],
        additionalProperties: false,
        properties: {
          actor: schemaRef('Actor'),
          request_id: {
            type: ['string', 'null'],
            description: 'The `X-Request-Id` of the HTTP request that caused it; null otherwise',
          },
          client_ip: {
            type: ['string', 'null'],
            description:
              'The client’s IP address (the rate limit’s proxy rules); null when not recorded (the operator can turn it off)',
          },
          user_agent: {
            type: ['string', 'null'],
            maxLength: 256,
            description: 'The client’s User-Agent, truncated; null when not recorded',
          },
          correlation_id: {
            type: ['string', 'null'],
            description:
              'The story it belongs to: the request id that started it (processing events carry the upload’s)',
          },
          causation_id: {
            type: ['string', 'null'],
            description:
              'The id of the event that caused it (processing events: the version’s `VersionUploaded`)',
          },
        },
      },
      Actor: {
        description: 'Who did it',
        oneOf: [
          {
            type: 'object',
            description: 'An API request, by the key’s id and label',
            required: ['type', 'id', 'name'],
            additionalProperties: false,
            properties: {
              type: { const: 'api_key' },
              id: uuid('The API key’s id'),
              name: { type: ['string', 'null'], description: 'The key’s label, if it has one' },
            },
          },
          {
            type: 'object',
            description:
              'An admin command: `--as NAME`, or the operating-system user who ran it; processing: the worker as host:pid',
            required: ['type', 'id'],
            additionalProperties: false,
            properties: {
              type: { enum: ['admin', 'worker'] },
              id: { type: 'string', minLength: 1 },
            },
          },
          {
            type: 'object',
            description:
              '`system`: the service itself; `unknown`: recorded before the audit trail existed',
            required: ['type'],
            additionalProperties: false,
            properties: { type: { enum: ['system', 'unknown'] } },
          },
        ],
      },
    },
  },
} as const;
