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

export const resolveConnection = async (flags: { url?: string; apiKey?: string }) => {
  const saved = await readConfig();
  // An empty variable (a CI secret that is not set) counts as unset, not as an empty value.
  const url = flags.url || process.env.FLIPBOOK_URL || saved.url;
  const apiKey = flags.apiKey || process.env.FLIPBOOK_API_KEY || saved.apiKey;
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
