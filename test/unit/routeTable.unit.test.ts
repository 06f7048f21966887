// The route table's pure parts: each endpoint's inputs read against its schemas, and the body
// policy derived from the table (a JSON endpoint that the policy missed would have its body
// thrown away before routing).
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { EventFeedQuery } from '../../src/contract/webhooks.ts';
import { InvalidInput, NotFound } from '../../src/domain/errors.ts';
import { API_ENDPOINTS, apiBodyPolicy } from '../../src/http/api.ts';
import { paramsReader, queryReader } from '../../src/http/endpointInput.ts';
import { VersionParams, WebhookParams } from '../../src/http/endpoints/declare.ts';
import { API_PREFIX } from '../../src/http/mountEndpoints.ts';
import { pathPattern } from '../../src/http/pathPattern.ts';

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('not refused');
};

describe('path parameters', () => {
  const versionIds = paramsReader(VersionParams);
  const id = '0A1B2C3D-0000-4000-8000-00000000000F';

  it('takes ids in any letter case and gives them in lower case', () => {
    expect(versionIds({ id, vid: id })).toEqual({ id: id.toLowerCase(), vid: id.toLowerCase() });
  });

  it("refuses anything else in the endpoint's words: a bad id, a bad encoding, a URN", () => {
    for (const raw of [
      { id, vid: 'x' },
      { id: '%E0%A4%A', vid: id },
      { id: `urn:uuid:${id}`, vid: id },
      { id: encodeURIComponent(`${id}\n`), vid: id },
    ]) {
      const error = refusal(() => versionIds(raw));
      expect(error).toBeInstanceOf(InvalidInput);
      expect((error as Error).message).toBe('Invalid IDs');
    }
  });

  it("answers the endpoint's own error when it has one (an unknown webhook is a 404)", () => {
    const error = refusal(() => paramsReader(WebhookParams)({ webhookId: 'nope' }));
    expect(error).toBeInstanceOf(NotFound);
    expect((error as Error).message).toBe('No webhook with id nope');
  });
});

describe('query parameters', () => {
  const feed = queryReader(EventFeedQuery, { after: 'Invalid after: use next' });
  const read = (text: string) => feed(new URLSearchParams(text));
  const words = (text: string) => (refusal(() => read(text)) as Error).message;

  it('fills in the defaults', () => {
    expect(read('')).toEqual({ after: '0', limit: 50, wait: 0 });
    expect(read('after=now&limit=7&wait=30&unknown=1')).toEqual({
      after: 'now',
      limit: 7,
      wait: 30,
    });
  });

  it('names the parameter and its bounds; a value given twice is refused', () => {
    for (const bad of ['limit=0', 'limit=101', 'limit=1.5', 'limit=1e1', 'limit=-1', 'limit=']) {
      expect(words(bad), bad).toBe('Invalid limit: must be an integer from 1 to 100');
    }
    expect(words('wait=1&wait=2')).toBe('Invalid wait: give it once');
    expect(words('after=01')).toBe('Invalid after: use next');
  });

  it('takes choices in any letter case; an empty one is the default', () => {
    const sorted = queryReader(
      Type.Object({
        dir: Type.Optional(
          Type.Unsafe<string>({ type: 'string', enum: ['asc', 'desc'], default: 'desc' }),
        ),
        q: Type.Optional(Type.String({ maxLength: 3 })),
      }),
    );
    expect(sorted(new URLSearchParams('dir=ASC'))).toEqual({ dir: 'asc' });
    expect(sorted(new URLSearchParams('dir='))).toEqual({ dir: 'desc' });
    expect(() => sorted(new URLSearchParams('dir=up'))).toThrow(
      'Invalid dir: must be one of asc, desc',
    );
    expect(() => sorted(new URLSearchParams('q=abcd'))).toThrow('Invalid q: at most 3 characters');
    expect(() => sorted(new URLSearchParams('q=a%00'))).toThrow('Invalid q: it contains a NUL');
  });
});

describe('the route table', () => {
  it('gives each endpoint with a body the policy of its kind, and every other request none', () => {
    for (const endpoint of API_ENDPOINTS) {
      const path = API_PREFIX + endpoint.path.replace(/:\w+/g, 'x');
      const kind = !endpoint.body ? 'none' : 'json' in endpoint.body ? 'json' : 'upload';
      expect(apiBodyPolicy(endpoint.method.toUpperCase(), path), path).toBe(kind);
    }
    expect(apiBodyPolicy('PATCH', '/api/v1/flipbooks/x')).toBe('json');
    expect(apiBodyPolicy('PUT', '/api/v1/flipbooks/x')).toBe('none');
    expect(apiBodyPolicy('POST', '/api/v1/flipbooks/x/y/versions')).toBe('none');
  });

  it('declares each method and path once, with a unique operation id', () => {
    const routes = API_ENDPOINTS.map((e) => `${e.method} ${e.path}`);
    expect(new Set(routes).size).toBe(routes.length);
    const ids = API_ENDPOINTS.map((e) => e.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('matches paths as polka does: one segment per parameter, a trailing slash allowed', () => {
    const pattern = pathPattern('/api/v1/flipbooks/:id/versions');
    expect(pattern.test('/api/v1/flipbooks/abc/versions')).toBe(true);
    expect(pattern.test('/api/v1/flipbooks/abc/versions/')).toBe(true);
    expect(pattern.test('/api/v1/flipbooks/a/b/versions')).toBe(false);
    expect(pattern.test('/api/v1/flipbooks//versions')).toBe(false);
    expect(pathPattern('/files/*').test('/files/a/b')).toBe(true);
  });
});
