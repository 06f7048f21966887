// What the reader's book addresses answer, shared by the flipbook's own (/f/:id), its share links'
// (/s/<token>, ./readerRoutes.ts) and its previews' (/p/<token>, ./previewRoutes.ts): the reader
// or the page that says why not, the text page, a version's page text as JSON.
import type { ServerResponse } from 'node:http';
import { renderSVG } from 'uqr';
import type { Entry } from '../app/readerAccess.ts';
import { loadPageTexts } from '../app/readerBooks.ts';
import { NotFound } from '../domain/errors.ts';
import type { FileGate } from '../http/fileGates.ts';
import { gatedVersion, PRIVATE } from '../http/files.ts';
import { redirect, sendJson } from '../http/respond.ts';
import { sendBody } from '../http/sendBody.ts';
import { queryOf, type Request } from '../http/server.ts';
import { IMMUTABLE } from '../http/staticAssets.ts';
import { type HtmlSender, languageOf } from './htmlSender.ts';
import type { ReaderBook } from './readerData.ts';
import type { ReaderDeps } from './readerDeps.ts';
import {
  notFoundPage,
  PRIVATE_VIEW,
  PUBLIC_VIEW,
  readerPage,
  unavailablePage,
} from './readerPage.ts';
import { textPage } from './textPage.ts';
import type { Language } from './words/language.ts';

export type Entered = { entry: Entry; book: ReaderBook | 'archived' | null };

export const bookAnswers = (deps: ReaderDeps, sendHtml: HtmlSender) => {
  /**
   * What a reader's address answers: the book, or the page that says why not. A workspace's book
   * with no one signed in sends to the sign-in page, and back here after.
   */
  const answer = async (
    req: Request,
    res: ServerResponse,
    { entry, book }: Entered,
    show: (book: ReaderBook, l: Language) => Promise<string>,
    back: string,
  ) => {
    if (entry.kind === 'sign-in') return toSignIn(res, back);
    const view =
      book && book !== 'archived' ? book : entry.kind !== 'public' ? PRIVATE_VIEW : PUBLIC_VIEW;
    // Not there, or not for this person: one answer, headers and all, so that no one can tell
    // a private book from an id that never was.
    if (!book) return sendHtml(req, res, 404, notFoundPage, PRIVATE_VIEW);
    // Gone for now, not unknown: 410 tells crawlers to drop it; the link works again on restore.
    if (book === 'archived') return sendHtml(req, res, 410, unavailablePage, view);
    // No version could be processed: nothing to read (a new version brings the link to life).
    if (book.status === 'error') return sendHtml(req, res, 404, notFoundPage, view);
    const l = languageOf(req);
    await sendHtml(req, res, 200, await show(book, l), view);
  };

  const toSignIn = (res: ServerResponse, back: string) =>
    redirect(res, `/login?next=${encodeURIComponent(back)}`);

  /**
   * The reader, with the token its beacons are counted by when its workspace counts. A preview's
   * readers are counted apart, under the preview's version (never in the book's figures).
   */
  const readerWith =
    (linkId: string | null, readerId: string | null = null) =>
    async (book: ReaderBook, l: Language): Promise<string> => {
      const counted = deps.analytics && book.counted && book.versionId;
      if (!counted) return readerPage(book, l);
      const pages = Math.max(book.pageCount, book.ready);
      const key = book.preview ? book.preview.versionId : book.id;
      const token = deps.analytics?.tokenFor(
        { flipbookId: key, versionId: counted, pages },
        book.preview ? null : linkId,
        book.preview ? null : readerId,
      );
      return readerPage(token ? { ...book, beacon: { url: `${root()}/b`, token } } : book, l);
    };
  const root = () => deps.urls.reader('').replace(/\/f\/$/, '');
  /** The text page; `watermark`: the reader's address and day, across it (a link's). */
  const textOf = async (book: ReaderBook, l: Language, watermark: string | null = null) =>
    textPage(
      book,
      book.versionId ? await loadPageTexts(deps.db, deps.blobs, book.versionId) : [],
      l,
      watermark,
    );

  // A version's page text, built from each page's text.txt. Like the page files: a 404 once the
  // version is deleted or its flipbook archived; immutable once the version is done (public).
  const textJson =
    (gateOf: (req: Request) => FileGate) => async (req: Request, res: ServerResponse) => {
      const found = await gatedVersion(deps.db, req.params.versionId ?? '', gateOf(req));
      if (!found) throw new NotFound('Not found');
      const pages = await loadPageTexts(deps.db, deps.blobs, found.id);
      const cache = found.private
        ? PRIVATE
        : found.version.status === 'done'
          ? IMMUTABLE
          : 'no-cache';
      await sendJson(res, 200, { versionId: found.id, pages }, { req, cache });
    };

  // A QR code of the link to a page of the book (the reader's Share panel): to whoever may read
  // it, at its public URL or its share link. `page` out of range or absent: the book's link.
  const qrOf = async (req: Request, res: ServerResponse, entered: Entered) => {
    const { book } = entered;
    if (!book || book === 'archived' || book.status === 'error') throw new NotFound('Not found');
    // Digits only: Number() would also read `1e1`, ` 7` or `0x9` as a page.
    const text = queryOf(req).get('page') ?? '';
    const asked = /^[1-9]\d{0,5}$/.test(text) ? Number(text) : 0;
    const page =
      asked >= 1 && asked <= Math.max(book.pageCount, book.ready) ? `#page=${asked}` : '';
    await sendBody(
      req,
      res,
      200,
      {
        'Content-Type': 'image/svg+xml',
        'Cache-Control': book.isPublic ? 'public, max-age=86400' : 'no-store',
        'Content-Security-Policy': "default-src 'none'",
        'X-Content-Type-Options': 'nosniff',
      },
      renderSVG(`${book.url}${page}`, { border: 2 }),
    );
  };

  return { answer, toSignIn, readerWith, textOf, textJson, qrOf };
};
