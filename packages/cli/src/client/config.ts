// Where the server and key come from: --url/--api-key, then FLIPBOOK_URL/FLIPBOOK_API_KEY, then
// the config file `flipbook login` writes (mode 0600).
import { mkdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { writeFileAtomically } from '../../../../src/atomicFile.ts';
import { CliError, EXIT } from './cliErrors.ts';

export type Connection = { url: string; apiKey: string };

export const configPath = () =>
  join(process.env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'flipbook', 'config.json');

const readConfig = async (): Promise<Partial<Connection>> => {
  try {
    return JSON.parse(await readFile(configPath(), 'utf8')) as Partial<Connection>;
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

export const resolveConnection = async (
  flags: { url?: string; apiKey?: string },
  /** told where the credentials came from when it is not the command line or the environment */
  note: (message: string) => void = () => {},
) => {
  const givenUrl = fromFlag('--url', flags.url) ?? fromEnvironment('FLIPBOOK_URL');
  const givenKey = fromFlag('--api-key', flags.apiKey) ?? fromEnvironment('FLIPBOOK_API_KEY');
  const saved: Partial<Connection> = givenUrl && givenKey ? {} : await readConfig();
  const url = givenUrl ?? saved.url;
  const apiKey = givenKey ?? saved.apiKey;
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
  if (!givenUrl || !givenKey) {
    const what = !givenUrl && !givenKey ? 'server and API key' : !givenKey ? 'API key' : 'server';
    note(`flipbook: using the ${what} saved by flipbook login (${configPath()})`);
  }
  return { url: url.replace(/\/+$/, ''), apiKey } satisfies Connection;
};

export const saveConnection = async (connection: Connection) => {
  const file = configPath();
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  // A fresh file renamed over the old one: a crash mid-write never leaves a truncated login, and
  // the new file has mode 0600 from the start.
  await writeFileAtomically(file, `${JSON.stringify(connection, null, 2)}\n`, 0o600);
  return file;
};
