// The Client API v1 route table: every endpoint, each one declaration (src/http/endpoint.ts) of
// its path, inputs, answers and handler. From this list come the routes mounted, the body policy
// applied before routing (src/daemon.ts), and the OpenAPI document (src/http/openapi.ts).
// Rate limiting and the body limit run before routing (in server.ts); authentication runs first
// in every endpoint but the document's own.
import { Type } from '@sinclair/typebox';
import { authenticate } from './auth.ts';
import type { Endpoint } from './endpoint.ts';
import { apiEndpoint, type EndpointDeps } from './endpoints/declare.ts';
import { FLIPBOOK_ENDPOINTS } from './endpoints/flipbooks.ts';
import { PREVIEW_ENDPOINTS } from './endpoints/previews.ts';
import { READER_ENDPOINTS } from './endpoints/readers.ts';
import { SHARE_LINK_ENDPOINTS } from './endpoints/shareLinks.ts';
import { STATS_ENDPOINTS } from './endpoints/stats.ts';
import { VERSION_ENDPOINTS } from './endpoints/versions.ts';
import { WEBHOOK_ENDPOINTS } from './endpoints/webhooks.ts';
import { bodyPolicy, mountEndpoints } from './mountEndpoints.ts';
import { buildOpenApiDocument } from './openapi.ts';
import type { Routes } from './server.ts';

const DOCUMENT_ENDPOINT = apiEndpoint({
  method: 'get',
  path: '/openapi.json',
  operationId: 'getOpenApiDocument',
  tag: 'meta',
  summary: 'This OpenAPI document',
  description: 'Public: no API key is needed. Still counted by the rate limit.',
  public: true,
  ok: {
    status: 200,
    description: 'The OpenAPI 3.1 document',
    schema: Type.Unsafe<Record<string, unknown>>({
      type: 'object',
      required: ['openapi', 'info', 'paths'],
    }),
  },
  handle: async (_, deps) => documentFor(deps.contactEmail ?? null),
});

export const API_ENDPOINTS: readonly Endpoint<EndpointDeps>[] = [
  DOCUMENT_ENDPOINT,
  ...FLIPBOOK_ENDPOINTS,
  ...SHARE_LINK_ENDPOINTS,
  ...READER_ENDPOINTS,
  ...VERSION_ENDPOINTS,
  ...PREVIEW_ENDPOINTS,
  ...WEBHOOK_ENDPOINTS,
  ...STATS_ENDPOINTS,
];

export const openApiDocument = buildOpenApiDocument(API_ENDPOINTS);

type OpenApiDocument = typeof openApiDocument & {
  info: typeof openApiDocument.info & { contact?: { email: string } };
};
let served: { email: string | null; document: OpenApiDocument } = {
  email: null,
  document: openApiDocument,
};
/**
 * The document as this installation serves it: with `info.contact` when the operator gave an
 * address (self-hosted, the code cannot know who runs it). Made once; an installation has one.
 */
export const documentFor = (email: string | null): OpenApiDocument => {
  if (served.email !== email) {
    served = {
      email,
      document: email
        ? { ...openApiDocument, info: { ...openApiDocument.info, contact: { email } } }
        : openApiDocument,
    };
  }
  return served.document;
};

export const mountApi = (routes: Routes, deps: EndpointDeps) =>
  mountEndpoints(routes, API_ENDPOINTS, deps, async (req) => {
    const caller = await authenticate(deps.store.db, req, deps.clock.now());
    deps.keyUsage.used(caller.keyId); // noted, not awaited: "last used" is written off the path
    return caller;
  });

/** What a request to the API does with its body: its endpoint's `upload` or `json`, else `none`. */
export const apiBodyPolicy = bodyPolicy(API_ENDPOINTS);
