// What the access suites (test/spec/access.spec.test.ts in process, test/e2e/accessBrowser on
// daemons) ask of a non-public book's URLs. Through appFetch: an app in process or a daemon alike.
import { expect } from 'vitest';
import {
  type Client,
  createFlipbook,
  expectJson,
  type Json,
  pdf,
  SMALL_PDF,
  waitDone,
} from './apiHelpers.ts';
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

/** Every URL of a book at `base`: its reader, text and status, its page under its slug, and its
 * files (a links-only book answers 404 at each without a link). */
export const bookUrls = (
  base: string,
  book: { flipbookId: string; versionId: string },
  slug: string,
) => [
  `${base}/f/${book.flipbookId}`,
  `${base}/f/${book.flipbookId}/text`,
  `${base}/f/${book.flipbookId}/status.json`,
  `${base}/w/acme/${slug}`,
  ...fileUrls(`${base}/files`, book.versionId),
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
export const unlock = (url: string, password: string, headers: Record<string, string> = {}) =>
  appFetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ password }).toString(),
  });

// Waiting for a version to be processed is every suite's (test/support/apiHelpers.ts).
export { waitDone } from './apiHelpers.ts';

/** A flipbook of the small PDF with the fields given (visibility, title), made and processed. */
export const processedBook = async (c: Client, fields: Record<string, string> = {}) => {
  const book = await createFlipbook(c, fields, pdf(SMALL_PDF));
  await waitDone(c, book.flipbookId, book.versionId);
  return book;
};

/**
 * A workspace book's visibility changed by its publisher, felt at once: made links-only, a member
 * still reads it (`src`, an image their page showed) and others get 404 at its `reader`; made
 * public, its own file URL `own` answers; made private again, that URL stops.
 */
export const expectVisibilityFelt = async (
  c: Client,
  flipbookId: string,
  urls: { src: string; reader: string; own: string },
) => {
  const edit = (visibility: string) => c.patch(`/flipbooks/${flipbookId}`, { visibility });
  expectJson(await edit('links'), 200);
  expect(await statusOf(urls.src)).toBe(200);
  expect(await statusOf(urls.reader)).toBe(404);
  expectJson(await edit('public'), 200);
  expect(await statusOf(urls.own)).toBe(200);
  expectJson(await edit('workspace'), 200);
  expect(await statusOf(urls.own)).toBe(404);
};

/** A new share link of a flipbook (POST /flipbooks/:id/links), its answer's body. */
export const newShareLink = async (c: Client, flipbookId: string, body: Json) => {
  const reply = await c.post(`/flipbooks/${flipbookId}/links`, {
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  expectJson(reply, 201);
  return reply.body;
};
