// The reader: GET /f/:id (the flipbook's link), its status JSON (polled while processing) and its
// text page; the same at a share link (/s/<token>, with its password form); a version's page
// text as JSON (fetched by the reader when search first needs it); GET /w/:workspace/:slug (a
// readable address that redirects to it); mounted with the previews' (./previewRoutes.ts) and the
// reader's static assets (./assetRoutes.ts). What these addresses answer is ./bookAnswers.ts's;
// who may read a non-public book is src/app/readerAccess.ts's to say. Every body here goes
// through sendBody: an ETag (304s), compressed as negotiated.
// One file (over 300 lines): the book pages' routes share who may enter and the page that says why
// not.
import { bookAtAddress } from '../app/flipbooks.ts';
import { readerOpened } from '../app/linkReaders.ts';
import { type Entry, enterByBook, enterByLink } from '../app/readerAccess.ts';
import { NotFound } from '../domain/errors.ts';
import { isUuid } from '../domain/uuid.ts';
import { sessionTokenOf } from '../http/cookies.ts';
import { type FileGate, grantGate } from '../http/fileGates.ts';
import { mountPageRoutes, type PageRoute } from '../http/pageRoute.ts';
import { sendJson } from '../http/respond.ts';
import type { Handler, Request, Routes } from '../http/server.ts';
import { markAhead } from '../http/stampedFiles.ts';
import { asUnavailable } from '../http/unavailable.ts';
import { readerAssetRoutes } from './assetRoutes.ts';
import { bookAnswers } from './bookAnswers.ts';
import { type HtmlSender, htmlSender } from './htmlSender.ts';
import { beforeTheBook, linkFormRoute, linkPath, linkProofsOf } from './linkForms.ts';
import { previewRoutes } from './previewRoutes.ts';
import { loadReaderBook, type ReaderBook, readerStatus } from './readerData.ts';
import type { ReaderDeps } from './readerDeps.ts';
import { notFoundPage, PRIVATE_VIEW, stalledPage } from './readerPage.ts';
import type { Language } from './words/language.ts';

/** The reader's routes, mounted once: its pages in words when the service is away. */
export const mountReader = (routes: Routes, deps: ReaderDeps) => {
  const sendHtml = htmlSender(deps.urls.imageOrigin);
  mountPageRoutes(
    routes,
    [
      ...readerRoutes(deps, sendHtml),
      ...previewRoutes(deps, sendHtml),
      ...readerAssetRoutes(deps, sendHtml),
    ],
    {
      page: asPage(sendHtml),
      data: (handler) => handler,
    },
  );
};

/**
 * A page for people: when the service cannot answer (503), a browser gets a page in words with
 * the same status and Retry-After; any other client the JSON every route gives.
 */
const asPage =
  (sendHtml: HtmlSender) =>
  (handler: Handler): Handler =>
  async (req, res) => {
    try {
      await handler(req, res);
    } catch (error) {
      const unavailable = asUnavailable(error);
      if (!unavailable || res.headersSent || !/\btext\/html\b/.test(req.headers.accept ?? '')) {
        throw error;
      }
      for (const [name, value] of Object.entries(unavailable.headers)) res.setHeader(name, value);
      await sendHtml(req, res, 503, stalledPage);
    }
  };

/** Every route of the reader, declared (src/http/pageRoute.ts). */
export const readerRoutes = (deps: ReaderDeps, sendHtml: HtmlSender): PageRoute[] => {
  const declared: PageRoute[] = [];

  /**
   * The book someone entering at /f/:id may read, with the URLs they are given: a public book's
   * own, or (a workspace's members, signed in) its files under a grant. Otherwise why not.
   */
  const enterBook = async (req: Request, rawId: string, withLeadTexts = true) => {
    if (!isUuid(rawId)) return { entry: { kind: 'not-found' } as Entry, book: null };
    const id = rawId.toLowerCase();
    const entry = await enterByBook(deps.access, id, sessionTokenOf(req));
    if (entry.kind === 'public') {
      return {
        entry,
        book: await loadReaderBook(deps.db, deps.blobs, deps.urls, id, withLeadTexts),
      };
    }
    if (entry.kind !== 'granted') return { entry, book: null };
    const urls = deps.urls.granted(entry.grant);
    const granted = { url: deps.urls.reader(id), download: entry.download };
    return {
      entry,
      book: await loadReaderBook(deps.db, deps.blobs, urls, id, withLeadTexts, granted),
    };
  };

  /**
   * The same at a share link (/s/<token>): its book, under a grant, whatever its visibility; and
   * the reader it knows, when it asks who reads (their opening counted and told).
   */
  const enterLink = async (req: Request, opened: boolean, withLeadTexts = true) => {
    const token = req.params.token ?? '';
    const { entry, flipbookId, linkId, link, reader } = await enterByLink(
      deps.access,
      token,
      linkProofsOf(req),
      opened,
    );
    if (entry.kind !== 'granted' || !flipbookId) {
      return { entry, book: null, linkId: null, reader: null };
    }
    const urls = deps.urls.granted(entry.grant);
    const granted = { url: deps.urls.shareLink(token), download: entry.download };
    const book = await loadReaderBook(
      deps.db,
      deps.blobs,
      urls,
      flipbookId,
      withLeadTexts,
      granted,
    );
    if (opened && reader?.watermark && book && book !== 'archived' && book.versionId) {
      const pages = Math.max(book.pageCount, book.ready);
      markAhead(deps.blobs, { id: book.versionId, pages }, reader.watermark);
    }
    if (opened && link && reader && book && book !== 'archived') {
      await readerOpened(deps.access, link, reader, Math.max(book.pageCount, book.ready));
    }
    return { entry, book, linkId: linkId ?? null, reader: reader ?? null };
  };

  const { answer, toSignIn, readerWith, textOf, textJson, qrOf } = bookAnswers(deps, sendHtml);

  /** A page of a book at /f/:id (and after it `tail`), made by `show` once the book is entered. */
  const bookPage = (
    tail: string,
    show: (book: ReaderBook, l: Language) => Promise<string>,
    withLeadTexts: boolean,
  ) =>
    declared.push({
      method: 'get',
      path: `/f/:id${tail}`,
      who: 'anyone',
      answers: 'page',
      body: 'none',
      handler: async (req, res) => {
        const id = req.params.id ?? '';
        const entered = await enterBook(req, id, withLeadTexts);
        await answer(req, res, entered, show, `/f/${id}${tail}`);
      },
    });
  bookPage('', readerWith(null), true);
  // The text of every page, as a document: for search engines, screen readers, no JavaScript.
  bookPage('/text', textOf, false);

  // Polled by the reader while its version is processing: a few hundred bytes, and a 304 when
  // nothing changed, instead of the whole page again.
  declared.push({
    method: 'get',
    path: '/f/:id/status.json',
    who: 'anyone',
    answers: 'data',
    body: 'none',
    handler: async (req, res) => {
      const { book } = await enterBook(req, req.params.id ?? '', false);
      if (!book || book === 'archived' || book.status === 'error') throw new NotFound('Not found');
      await sendJson(res, 200, readerStatus(book), {
        req,
        cache: book.isPublic ? 'no-cache' : 'no-store',
      });
    },
  });

  declared.push({
    method: 'get',
    path: '/f/:id/qr.svg',
    who: 'anyone',
    answers: 'data',
    body: 'none',
    handler: async (req, res) => qrOf(req, res, await enterBook(req, req.params.id ?? '', false)),
  });
  declared.push({
    method: 'get',
    path: '/s/:token/qr.svg',
    who: 'anyone',
    answers: 'data',
    body: 'none',
    handler: async (req, res) => qrOf(req, res, await enterLink(req, false, false)),
  });

  // A share link: its book's reader, or first the password, the address or the code it asks for.
  declared.push({
    method: 'get',
    path: '/s/:token',
    who: 'anyone',
    answers: 'page',
    body: 'none',
    handler: async (req, res) => {
      const entered = await enterLink(req, true);
      const first = beforeTheBook(entered.entry, linkPath(req));
      if (first) return sendHtml(req, res, 200, first.page, first.view);
      const show = readerWith(entered.linkId ?? null, entered.reader?.readerId ?? null);
      await answer(req, res, entered, show, linkPath(req));
    },
  });
  declared.push(linkFormRoute(deps, sendHtml));
  declared.push({
    method: 'get',
    path: '/s/:token/text',
    who: 'anyone',
    answers: 'page',
    body: 'none',
    handler: async (req, res) => {
      const entered = await enterLink(req, false, false);
      const first = beforeTheBook(entered.entry, linkPath(req));
      if (first) return sendHtml(req, res, 200, first.page, first.view);
      const marked = entered.reader?.watermark ?? null;
      await answer(
        req,
        res,
        entered,
        (book, l) => textOf(book, l, marked),
        `${linkPath(req)}/text`,
      );
    },
  });
  declared.push({
    method: 'get',
    path: '/s/:token/status.json',
    who: 'anyone',
    answers: 'data',
    body: 'none',
    handler: async (req, res) => {
      const { book } = await enterLink(req, false, false);
      if (!book || book === 'archived' || book.status === 'error') throw new NotFound('Not found');
      await sendJson(res, 200, readerStatus(book), { req, cache: 'no-store' });
    },
  });

  declared.push({
    method: 'get',
    path: '/files/pages/:versionId/text.json',
    who: 'anyone',
    answers: 'data',
    body: 'none',
    handler: textJson(() => publicOnly),
  });
  declared.push({
    method: 'get',
    path: '/a/:grant/pages/:versionId/text.json',
    who: 'anyone',
    answers: 'data',
    body: 'none',
    handler: textJson((req) => grantGate(deps.access, req.params.grant ?? '')),
  });

  // The readable address of a flipbook: its workspace's name and its slug. It follows the slug
  // (which may change) to the share link (which never does), so it is a 302 and never cached.
  // A non-public book's leads only those who may read it to its id: no one signed in is sent to
  // sign in (a workspace book) and back here; anyone else gets the same 404 as a wrong slug.
  declared.push({
    method: 'get',
    path: '/w/:workspace/:slug',
    who: 'anyone',
    answers: 'page',
    body: 'none',
    handler: async (req, res) => {
      const name = decodeParam(req.params.workspace);
      const slug = decodeParam(req.params.slug);
      const found = name && slug ? await bookAtAddress(deps.db, name, slug) : null;
      const entry = found ? await enterByBook(deps.access, found, sessionTokenOf(req)) : null;
      if (entry?.kind === 'sign-in') return toSignIn(res, req.url ?? '/');
      if (!found || (entry?.kind !== 'public' && entry?.kind !== 'granted')) {
        return sendHtml(req, res, 404, notFoundPage, PRIVATE_VIEW);
      }
      res.writeHead(302, {
        Location: deps.urls.reader(found),
        'Cache-Control': 'no-cache',
        'Content-Length': 0,
      });
      res.end();
    },
  });

  return declared;
};

/** A public book's files only (the text JSON of the reader at its public URL). */
const publicOnly: FileGate = async (version) =>
  version.visibility === 'public' && !version.preview
    ? { download: version.download_allowed, private: false }
    : null;

/**
 * A path segment as the client meant it; null when it is not valid percent-encoding or holds a
 * NUL, which no name or slug can (and PostgreSQL would refuse as text).
 */
const decodeParam = (raw = '') => {
  try {
    const value = decodeURIComponent(raw);
    return value.includes('\u0000') ? null : value;
  } catch {
    return null;
  }
};
