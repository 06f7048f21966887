// Where the server and key come from: --url/--api-key, then FLIPBOOK_URL/FLIPBOOK_API_KEY, then
// the config file `flipbook login` writes (mode 0600).
import { mkdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { writeFileAtomically } from '../../../../src/atomicFile.ts';
import { CliError, EXIT } from './cliErrors.ts';
import { describeKey, keyCheck, keySourceWords, type Source } from './credentialWords.ts';

/** The server and key a command uses, and where each came from (errors name them). */
export type Connection = { url: string; apiKey: string; urlSource: Source; keySource: Source };

export const configPath = () =>
  join(process.env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'flipbook', 'config.json');

type Saved = { url?: string; apiKey?: string };

const readConfig = async (): Promise<Saved> => {
  try {
    return JSON.parse(await readFile(configPath(), 'utf8')) as Saved;
  } catch {
    return {};
  }
};

/**
 * A variable that is set must be used: set but empty (a CI secret that is missing) is an error
 * naming it, never a reason to fall back to a login saved on the machine, which on a shared
 * runner could be anyone's.
 */
const fromEnvironment = (name: 'FLIPBOOK_URL' | 'FLIPBOOK_API_KEY') => {
  const value = process.env[name];
  if (value === undefined) return undefined;
  if (value.trim() === '') {
    throw new CliError(
      EXIT.usage,
      `${name} is set but empty (a secret that is not set here?): set it, or unset it to use a saved login`,
    );
  }
  return value.trim();
};

/** A flag given but empty (`--api-key "$SECRET"` with the secret missing) is an error too. */
const fromFlag = (name: string, value: string | undefined) => {
  if (value === undefined) return undefined;
  if (value.trim() === '') {
    throw new CliError(EXIT.usage, `${name} was given but is empty (a secret that is not set here?)`);
  }
  return value.trim();
};

/** The key's format (src/domain/apiKey.ts): anything else is refused by every server. */
const KEY_FORMAT = /^svc_[0-9a-f]{48}$/;

/**
 * The OpenAPI document's `servers` URL is the API's root (/api/v1), not the service's: taken for
 * the service's, every request went to /api/v1/api/v1/... and answered "Not found".
 */
const API_ROOT = /\/api\/v1\/*$/;

export const resolveConnection = async (
  flags: { url?: string; apiKey?: string },
  /** told where the credentials came from when it is not the command line or the environment */
  note: (message: string) => void = () => {},
): Promise<Connection> => {
  const flagUrl = fromFlag('--url', flags.url);
  const givenUrl = flagUrl ?? fromEnvironment('FLIPBOOK_URL');
  const flagKey = fromFlag('--api-key', flags.apiKey);
  const givenKey = flagKey ?? fromEnvironment('FLIPBOOK_API_KEY');
  const saved: Saved = givenUrl && givenKey ? {} : await readConfig();
  const url = givenUrl ?? saved.url;
  const apiKey = givenKey ?? saved.apiKey;
  const urlSource: Source = flagUrl ? 'flag' : givenUrl ? 'env' : 'login';
  const keySource: Source = flagKey ? 'flag' : givenKey ? 'env' : 'login';
  if (!url)
    throw new CliError(
      EXIT.usage,
      'No server: pass --url, set FLIPBOOK_URL, or run flipbook login',
    );
  if (!apiKey) {
    throw new CliError(
      EXIT.usage,
      'No API key: pass --api-key, set FLIPBOOK_API_KEY, or run flipbook login',
    );
  }
  if (!/^https?:\/\/[^/]/.test(url)) throw new CliError(EXIT.usage, `Not an http(s) URL: ${url}`);
  if (/[?#]/.test(url)) {
    throw new CliError(
      EXIT.usage,
      `The server URL must not have a query or fragment: ${url} (the service's root, e.g. https://flipbooks.example.com)`,
    );
  }
  // Said before any request: the server would answer only "Unauthorized", as for a revoked key.
  if (!KEY_FORMAT.test(apiKey)) {
    throw new CliError(
      EXIT.usage,
      `The API key ${keySourceWords(keySource)} (${describeKey(apiKey)}) is not an API key: a key is svc_ followed by 48 lowercase hexadecimal characters, shown once when it is created. Create one on the dashboard's API keys page, or check ${keyCheck(keySource)}`,
    );
  }
  if (!givenUrl || !givenKey) {
    const what = !givenUrl && !givenKey ? 'server and API key' : !givenKey ? 'API key' : 'server';
    note(`flipbook: using the ${what} saved by flipbook login (${configPath()})`);
  }
  return {
    url: url.replace(/\/+$/, '').replace(API_ROOT, '').replace(/\/+$/, ''),
    apiKey,
    urlSource,
    keySource,
  };
};

export const saveConnection = async (connection: Pick<Connection, 'url' | 'apiKey'>) => {
  const file = configPath();
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  // A fresh file renamed over the old one: a crash mid-write never leaves a truncated login, and
  // the new file has mode 0600 from the start.
  const saved: Saved = { url: connection.url, apiKey: connection.apiKey };
  await writeFileAtomically(file, `${JSON.stringify(saved, null, 2)}\n`, 0o600);
  return file;
};
