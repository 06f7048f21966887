// How the CLI's errors name the server and the key it used: where each came from (a flag, a
// variable, the saved login), the key by its last four characters only (a CI log is read by
// many), and the next step. A bare "Unauthorized" said none of it, for a wrong key and a
// malformed one alike.

/**
 * Where a setting came from: --url/--api-key, FLIPBOOK_URL/FLIPBOOK_API_KEY, `flipbook login`,
 * or the GitHub Action's `url`/`api-key` inputs (packages/action).
 */
export type Source = 'flag' | 'env' | 'login' | 'input';

type Used = { url: string; urlSource: Source; keySource: Source; apiKey: string };

export const keySourceWords = (source: Source) =>
  ({
    flag: 'given with --api-key',
    env: 'in FLIPBOOK_API_KEY',
    login: 'saved by flipbook login',
    input: "given as the action's api-key input",
  })[source];

/** What to correct for a key from there. */
export const keyCheck = (source: Source) =>
  ({
    flag: '--api-key',
    env: 'FLIPBOOK_API_KEY',
    login: 'the saved login (run flipbook login again with the new key)',
    input: 'the secret the workflow gives as api-key',
  })[source];

const urlCheck = (source: Source) =>
  ({
    flag: '--url',
    env: 'FLIPBOOK_URL',
    login: 'the saved login (run flipbook login again with --url)',
    input: "the action's url input",
  })[source];

/** Its last four characters, never more; a value too short for that, by its length only. */
export const describeKey = (key: string) =>
  key.length >= 12 ? `ending in …${key.slice(-4)}` : `${[...key].length} characters long`;

/** A 401: the server did not take the key (unknown there, revoked or expired). */
export const unauthorized = (used: Used) =>
  `${used.url} refused the API key ${keySourceWords(used.keySource)} (${describeKey(used.apiKey)}): ` +
  `it is not a key of this server, or it was revoked or has expired. ` +
  `Create a key on the dashboard's API keys page (${used.url}/dashboard/keys), or check ${keyCheck(used.keySource)}`;

/** The router's own 404 (no such endpoint), not an endpoint's ("Flipbook not found"). */
export const notAnEndpoint = (used: Used, path: string) =>
  `${used.url}/api/v1${path} answered 404 Not found: there is no such endpoint there. ` +
  `${urlCheck(used.urlSource)} must be the service's root (e.g. https://flipbooks.example.com), ` +
  'or the server is older than this client';
