// What the access suites (test/spec/access.spec.test.ts in process, test/e2e/accessBrowser on
// daemons) ask of a non-public book's URLs. Through appFetch: an app in process or a daemon alike.
import { type Client, expectJson, type Json } from './apiHelpers.ts';
import { appFetch } from './inProcess.ts';

/** Every URL of a version's files, at a root (`/files` or `/a/<grant>`), with the text JSON. */
export const fileUrls = (root: string, versionId: string) => [
  `${root}/pages/${versionId}/1/mid.jpg`,
  `${root}/pages/${versionId}/1/min.jpg`,
  `${root}/pages/${versionId}/1/max.jpg`,
  `${root}/pages/${versionId}/1/text.txt`,
  `${root}/pages/${versionId}/1/words.json`,
  `${root}/pages/${versionId}/document.json`,
  `${root}/pages/${versionId}/text.json`,
  `${root}/originals/${versionId}`,
];

/** The grant a reader page gives its files: `/a/<grant>` as it appears in the HTML. */
export const grantRoot = (html: string, base: string) => {
  const found = /\/a\/([A-Za-z0-9._-]+)\/pages\//.exec(html);
  if (!found) throw new Error('no /a/<grant>/ URL in the page');
  return `${base}/a/${found[1]}`;
};

/** An answer's status, redirects not followed. */
export const statusOf = async (url: string, init: RequestInit = {}) =>
  (await appFetch(url, { redirect: 'manual', ...init })).status;

/** The password form of a share link, posted. */
export const unlock = (url: string, password: string) =>
  appFetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ password }).toString(),
  });

// Waiting for a version to be processed is every suite's (test/support/apiHelpers.ts).
export { waitDone } from './apiHelpers.ts';

/** A new share link of a flipbook (POST /flipbooks/:id/links), its answer's body. */
export const newShareLink = async (c: Client, flipbookId: string, body: Json) => {
  const reply = await c.post(`/flipbooks/${flipbookId}/links`, {
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  expectJson(reply, 201);
  return reply.body;
};
