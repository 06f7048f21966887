// The server and key the publishing commands use (packages/cli/src/client/config.ts) and how
// their errors name them (credentialWords.ts): where each came from, the key by its last four
// characters only, and what to do next. A malformed key is refused before any request; the
// OpenAPI document's servers URL (…/api/v1) is taken for the service's root.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { resolveConnection, saveConnection } from '../../packages/cli/src/client/config.ts';
import { notAnEndpoint, unauthorized } from '../../packages/cli/src/client/credentialWords.ts';

const KEY = `svc_${'0123456789abcdef'.repeat(3)}`;
const SERVER = 'https://flipbooks.example.com';

let config: string;
beforeAll(async () => {
  config = await mkdtemp(join(tmpdir(), 'flipbook-credentials-'));
});
afterAll(() => rm(config, { recursive: true, force: true }));
afterEach(() => vi.unstubAllEnvs());

/** Nothing in the environment and no saved login, but what the test sets. */
const environment = (values: Record<string, string>) => {
  vi.stubEnv('XDG_CONFIG_HOME', config);
  vi.stubEnv('FLIPBOOK_URL', undefined);
  vi.stubEnv('FLIPBOOK_API_KEY', undefined);
  for (const [name, value] of Object.entries(values)) vi.stubEnv(name, value);
};

const refusal = async (work: Promise<unknown>) =>
  work.then(
    () => {
      throw new Error('expected a refusal');
    },
    (error: { exitCode: number; message: string }) => error,
  );

describe('credentials in words', () => {
  it('a malformed key is refused before any request, naming where it came from (exit 2)', async () => {
    environment({ FLIPBOOK_URL: SERVER, FLIPBOOK_API_KEY: 'abc' });
    const fromVariable = await refusal(resolveConnection({}));
    expect(fromVariable.exitCode).toBe(2);
    expect(fromVariable.message).toBe(
      "The API key in FLIPBOOK_API_KEY (3 characters long) is not an API key: a key is svc_ followed by 48 lowercase hexadecimal characters, shown once when it is created. Create one on the dashboard's API keys page, or check FLIPBOOK_API_KEY",
    );
    // A longer one (a key with a character lost in copying) only by its last four characters.
    const fromFlag = await refusal(resolveConnection({ apiKey: KEY.slice(0, -1) }));
    expect(fromFlag.message).toMatch(
      /^The API key given with --api-key \(ending in …bcde\) is not an API key: .* or check --api-key$/,
    );
    expect(fromFlag.message).not.toContain(KEY.slice(4, -4));
  });

  it('a malformed key in the saved login says to log in again', async () => {
    environment({});
    await saveConnection({ url: SERVER, apiKey: 'svc_short-key-pasted' });
    const refused = await refusal(resolveConnection({}));
    expect(refused.message).toMatch(
      /^The API key saved by flipbook login \(ending in …sted\) is not an API key: .* or check the saved login \(run flipbook login again with the new key\)$/,
    );
  });

  it('takes the OpenAPI servers URL (…/api/v1) for the service root, and says where each came from', async () => {
    environment({ FLIPBOOK_URL: `${SERVER}/api/v1/`, FLIPBOOK_API_KEY: KEY });
    expect(await resolveConnection({})).toEqual({
      url: SERVER,
      apiKey: KEY,
      urlSource: 'env',
      keySource: 'env',
    });
    expect(await resolveConnection({ url: `${SERVER}/books/api/v1` })).toMatchObject({
      url: `${SERVER}/books`,
      urlSource: 'flag',
    });
  });

  it('a refused key: the server, where the key came from, its last four characters, the next step', () => {
    const used = { url: SERVER, apiKey: KEY, urlSource: 'env' as const };
    expect(unauthorized({ ...used, keySource: 'env' })).toBe(
      "https://flipbooks.example.com refused the API key in FLIPBOOK_API_KEY (ending in …cdef): it is not a key of this server, or it was revoked or has expired. Create a key on the dashboard's API keys page (https://flipbooks.example.com/dashboard/keys), or check FLIPBOOK_API_KEY",
    );
    expect(unauthorized({ ...used, keySource: 'flag' })).toContain(
      'the API key given with --api-key (ending in …cdef)',
    );
    expect(unauthorized({ ...used, keySource: 'login' })).toMatch(
      /the API key saved by flipbook login \(ending in …cdef\).* or check the saved login \(run flipbook login again with the new key\)$/,
    );
    for (const source of ['env', 'flag', 'login'] as const) {
      expect(unauthorized({ ...used, keySource: source })).not.toContain(KEY.slice(0, -4));
    }
  });

  it('a path the server does not know: the URL asked, and which setting to correct', () => {
    const used = { url: `${SERVER}/flipbook`, apiKey: KEY, keySource: 'env' as const };
    expect(notAnEndpoint({ ...used, urlSource: 'env' }, '/flipbooks')).toBe(
      "https://flipbooks.example.com/flipbook/api/v1/flipbooks answered 404 Not found: there is no such endpoint there. FLIPBOOK_URL must be the service's root (e.g. https://flipbooks.example.com), or the server is older than this client",
    );
    expect(notAnEndpoint({ ...used, urlSource: 'flag' }, '/flipbooks')).toContain(
      'there. --url must be',
    );
  });
});
