// The reader: GET /f/:id (the flipbook's link), its status JSON (polled while processing) and its
// text page; the same at a share link (/s/<token>, with its password form); a version's page
// text as JSON (fetched by the reader when search first needs it); GET /w/:workspace/:slug (a
// readable address that redirects to it); and the reader's two static assets. Who may read a
// non-public book is src/app/readerAccess.ts's to say. Every body here goes through sendBody: an
// ETag (304s), compressed as negotiated.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { renderSVG } from 'uqr';
import { findFlipbookBySlug } from '../../projections/flipbooks.ts';
import type { Db } from '../../projections/readTable.ts';
import { findBrandByKey, findWorkspaceByName } from '../../projections/workspaces.ts';
import type { Analytics } from '../app/analytics/analytics.ts';
import {
  type AccessDeps,
  type Entry,
  enterByBook,
  enterByLink,
  unlockLink,
} from '../app/readerAccess.ts';
import type { Urls } from '../app/urls.ts';
import type { BlobStore } from '../blobs/blobStore.ts';
import { readForm } from '../dashboard/request.ts';
import { AppError, NotFound } from '../domain/errors.ts';
import { isUuid } from '../domain/uuid.ts';
import { cookieHeader, readCookie, sessionTokenOf } from '../http/cookies.ts';
import { type FileGate, gatedVersion, grantGate, PRIVATE } from '../http/files.ts';
import { clientAddress } from '../http/rateLimit.ts';
import { sendJson } from '../http/respond.ts';
import { sendBody } from '../http/sendBody.ts';
import type { Request, Routes } from '../http/server.ts';
import { asUnavailable } from '../http/unavailable.ts';
import { findAsset } from './assets.ts';
import { brandStylesheet } from './brandStyle.ts';
import { oembedOf, pixels, readerIdOf } from './oembed.ts';
import { loadPageTexts, loadReaderBook, type ReaderBook, readerStatus } from './readerData.ts';
import {
  notFoundPage,
  PRIVATE_VIEW,
  PUBLIC_VIEW,
  passwordPage,
  type ReaderView,
  readerHeaders,
  readerPage,
  stalledPage,
  unavailablePage,
} from './readerPage.ts';
import { textPage } from './textPage.ts';
import { type Language, languageFor } from './words/language.ts';

const IMMUTABLE = 'public, max-age=31536000, immutable';

export type ReaderDeps = {
  /** reader analytics (src/app/analytics): the token its page carries; absent: none counted */
  analytics?: Pick<Analytics, 'tokenFor'>;
  db: Db;
  blobs: BlobStore;
  urls: Urls;
  access: AccessDeps;
  trustProxy?: boolean;
};

export const mountReader = (routes: Routes, deps: ReaderDeps) => {
  const sendHtml = htmlSender(deps.urls.imageOrigin);

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

  /** The same at a share link (/s/<token>): its book, under a grant, whatever its visibility. */
  const enterLink = async (req: Request, opened: boolean, withLeadTexts = true) => {
    const token = req.params.token ?? '';
    const { entry, flipbookId, linkId } = await enterByLink(
      deps.access,
      token,
      readCookie(req, LINK_COOKIE),
      opened,
    );
    if (entry.kind !== 'granted' || !flipbookId) return { entry, book: null, linkId: null };
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
    return { entry, book, linkId: linkId ?? null };
  };

  /**
   * A page for people: when the service cannot answer (503), a browser gets a page in words with
   * the same status and Retry-After; any other client the JSON every route gives.
   */
  const page =
    (handler: (req: Request, res: ServerResponse) => Promise<void>) =>
    async (req: Request, res: ServerResponse) => {
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

  type Entered = { entry: Entry; book: ReaderBook | 'archived' | null };
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

  const toSignIn = (res: ServerResponse, back: string) => {
    res.writeHead(303, {
      Location: `/login?next=${encodeURIComponent(back)}`,
      'Cache-Control': 'no-store',
      'Content-Length': 0,
    });
    res.end();
  };

  /** The reader, with the token its beacons are counted by when its workspace counts. */
  const readerWith =
    (linkId: string | null) =>
    async (book: ReaderBook, l: Language): Promise<string> => {
      const counted = deps.analytics && book.counted && book.versionId;
      if (!counted) return readerPage(book, l);
      const pages = Math.max(book.pageCount, book.ready);
      const token = deps.analytics?.tokenFor(
        { flipbookId: book.id, versionId: counted, pages },
        linkId,
      );
      return readerPage(token ? { ...book, beacon: { url: `${root()}/b`, token } } : book, l);
    };
  const root = () => deps.urls.reader('').replace(/\/f\/$/, '');
  const textOf = async (book: ReaderBook, l: Language) =>
    textPage(
      book,
      book.versionId ? await loadPageTexts(deps.db, deps.blobs, book.versionId) : [],
      l,
    );

  routes.get(
    '/f/:id',
    page(async (req, res) => {
      const id = req.params.id ?? '';
      await answer(req, res, await enterBook(req, id), readerWith(null), `/f/${id}`);
    }),
  );

  // The text of every page, as a document: for search engines, screen readers, no JavaScript.
  routes.get(
    '/f/:id/text',
    page(async (req, res) => {
      const id = req.params.id ?? '';
      await answer(req, res, await enterBook(req, id, false), textOf, `/f/${id}/text`);
    }),
  );

  // Polled by the reader while its version is processing: a few hundred bytes, and a 304 when
  // nothing changed, instead of the whole page again.
  routes.get('/f/:id/status.json', async (req, res) => {
    const { book } = await enterBook(req, req.params.id ?? '', false);
    if (!book || book === 'archived' || book.status === 'error') throw new NotFound('Not found');
    await sendJson(res, 200, readerStatus(book), {
      req,
      cache: book.isPublic ? 'no-cache' : 'no-store',
    });
  });

  // A QR code of the link to a page of the book (the reader's Share panel): to whoever may read
  // it, at its public URL or its share link. `page` out of range or absent: the book's link.
  const qrOf = async (req: Request, res: ServerResponse, entered: Entered) => {
    const { book } = entered;
    if (!book || book === 'archived' || book.status === 'error') throw new NotFound('Not found');
    // Digits only: Number() would also read `1e1`, ` 7` or `0x9` as a page.
    const text = new URL(req.url ?? '/', 'http://x').searchParams.get('page') ?? '';
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
  routes.get('/f/:id/qr.svg', async (req, res) =>
    qrOf(req, res, await enterBook(req, req.params.id ?? '', false)),
  );
  routes.get('/s/:token/qr.svg', async (req, res) =>
    qrOf(req, res, await enterLink(req, false, false)),
  );

  // A share link: its book's reader, or first the password it asks for.
  routes.get(
    '/s/:token',
    page(async (req, res) => {
      const entered = await enterLink(req, true);
      if (entered.entry.kind === 'password') {
        return sendHtml(req, res, 200, (l) => passwordPage(l, linkPath(req)), PRIVATE_VIEW);
      }
      await answer(req, res, entered, readerWith(entered.linkId ?? null), linkPath(req));
    }),
  );
  routes.post(
    '/s/:token',
    page(async (req, res) => {
      const action = linkPath(req);
      try {
        const form = await readForm(req);
        const { proof, maxAgeSeconds } = await unlockLink(
          deps.access,
          req.params.token ?? '',
          form.get('password') ?? '',
          clientAddress(req, deps.trustProxy ?? false),
        );
        // For this link's address only: its reader, its text and its status poll.
        const cookie = cookieHeader(LINK_COOKIE, proof, {
          path: action,
          sameSite: 'Lax',
          secure: deps.urls.reader('').startsWith('https:'),
          maxAgeSeconds,
        });
        res.writeHead(303, {
          Location: action,
          'Set-Cookie': cookie,
          'Cache-Control': 'no-store',
          'Referrer-Policy': 'no-referrer',
          'Content-Length': 0,
        });
        res.end();
      } catch (error) {
        if (error instanceof NotFound) return sendHtml(req, res, 404, notFoundPage, PRIVATE_VIEW);
        if (!(error instanceof AppError) || asUnavailable(error)) throw error;
        for (const [name, value] of Object.entries(error.headers ?? {})) res.setHeader(name, value);
        // in the reader's words: a wrong password, too many tries (anything else as it was said)
        const { status, message } = error;
        const problem = (l: Language) =>
          status === 401
            ? l.words.passwordWrong
            : status === 429
              ? l.words.passwordThrottled
              : message;
        await sendHtml(req, res, status, (l) => passwordPage(l, action, problem(l)), PRIVATE_VIEW);
      }
    }),
  );
  routes.get(
    '/s/:token/text',
    page(async (req, res) => {
      const entered = await enterLink(req, false, false);
      if (entered.entry.kind === 'password') {
        return sendHtml(req, res, 200, (l) => passwordPage(l, linkPath(req)), PRIVATE_VIEW);
      }
      await answer(req, res, entered, textOf, `${linkPath(req)}/text`);
    }),
  );
  routes.get('/s/:token/status.json', async (req, res) => {
    const { book } = await enterLink(req, false, false);
    if (!book || book === 'archived' || book.status === 'error') throw new NotFound('Not found');
    await sendJson(res, 200, readerStatus(book), { req, cache: 'no-store' });
  });

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
  routes.get(
    '/files/pages/:versionId/text.json',
    textJson(() => publicOnly),
  );
  routes.get(
    '/a/:grant/pages/:versionId/text.json',
    textJson((req) => grantGate(deps.access, req.params.grant ?? '')),
  );

  // The readable address of a flipbook: its workspace's name and its slug. It follows the slug
  // (which may change) to the share link (which never does), so it is a 302 and never cached.
  // A non-public book's leads only those who may read it to its id: no one signed in is sent to
  // sign in (a workspace book) and back here; anyone else gets the same 404 as a wrong slug.
  routes.get(
    '/w/:workspace/:slug',
    page(async (req, res) => {
      const name = decodeParam(req.params.workspace);
      const slug = decodeParam(req.params.slug);
      const workspace = name ? await findWorkspaceByName(deps.db, name) : null;
      const found =
        workspace && slug ? await findFlipbookBySlug(deps.db, workspace.id, slug) : null;
      const entry = found
        ? await enterByBook(deps.access, found.flipbook_id, sessionTokenOf(req))
        : null;
      if (entry?.kind === 'sign-in') return toSignIn(res, req.url ?? '/');
      if (!found || (entry?.kind !== 'public' && entry?.kind !== 'granted')) {
        return sendHtml(req, res, 404, notFoundPage, PRIVATE_VIEW);
      }
      res.writeHead(302, {
        Location: deps.urls.reader(found.flipbook_id),
        'Cache-Control': 'no-cache',
        'Content-Length': 0,
      });
      res.end();
    }),
  );

  // oEmbed for public flipbooks (./oembed.ts): how a pasted link unfurls.
  routes.get('/oembed', async (req, res) => {
    const query = new URL(req.url ?? '/', 'http://x').searchParams;
    const format = query.get('format') ?? 'json';
    if (format !== 'json') throw new AppError(501, 'Only format=json is answered');
    const id = readerIdOf(query.get('url') ?? '', deps.urls.reader('').replace(/\/f\/$/, ''));
    const entry = id ? await enterByBook(deps.access, id, null) : null;
    const book =
      id && entry?.kind === 'public'
        ? await loadReaderBook(deps.db, deps.blobs, deps.urls, id, false)
        : null;
    if (!book || book === 'archived' || book.status === 'error' || !book.isPublic) {
      throw new NotFound('Not found');
    }
    const limits = {
      maxWidth: pixels(query.get('maxwidth')),
      maxHeight: pixels(query.get('maxheight')),
    };
    const provider = deps.urls.reader('').replace(/\/f\/$/, '/');
    await sendJson(res, 200, oembedOf(book, provider, limits), {
      req,
      cache: 'public, max-age=300',
    });
  });

  // No icon of our own; answering stops browsers from logging a 404 on every visit.
  routes.get('/favicon.ico', (_req, res) => {
    res.writeHead(204, { 'Cache-Control': 'public, max-age=86400' });
    res.end();
  });

  // A workspace's branding (src/reader/brandStyle.ts): named by a hash of what it holds, so
  // immutable; a new branding is a new name.
  routes.get('/reader/brand/:file', async (req, res) => {
    const [, key, kind] = /^([0-9a-f]{20})\.(css|webp)$/.exec(req.params.file ?? '') ?? [];
    const brand = key ? await findBrandByKey(deps.db, key) : null;
    const body = kind === 'css' ? brand && brandStylesheet(brand) : brand?.logo;
    if (!body) return sendHtml(req, res, 404, notFoundPage);
    await sendBody(
      req,
      res,
      200,
      {
        'Content-Type': kind === 'css' ? 'text/css; charset=utf-8' : 'image/webp',
        'Cache-Control': IMMUTABLE,
        'X-Content-Type-Options': 'nosniff',
      },
      body,
    );
  });

  // reader.<hash>.js and .css are immutable; the plain names answer too, revalidated.
  routes.get('/reader/:file', async (req, res) => {
    const found = findAsset(req.params.file ?? '');
    if (!found) return sendHtml(req, res, 404, notFoundPage);
    await sendBody(
      req,
      res,
      200,
      {
        'Content-Type': found.asset.type,
        'Cache-Control': found.immutable ? IMMUTABLE : 'public, no-cache',
        'X-Content-Type-Options': 'nosniff',
      },
      found.asset.body,
    );
  });
};

/** The cookie that proves a share link's password was given: for that link's path only. */
const LINK_COOKIE = 'flipbook_link';
/** The path of the share link a request came to, as it was sent (the token is ours to check). */
const linkPath = (req: Request) => `/s/${encodeURIComponent(req.params.token ?? '')}`;

/** A public book's files only (the text JSON of the reader at its public URL). */
const publicOnly: FileGate = async (version) =>
  version.visibility === 'public' ? { download: version.download_allowed, private: false } : null;

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

/** The language a person's page is in (src/reader/words). */
const languageOf = (req: IncomingMessage) => languageFor(req.headers['accept-language']);

/** Sends a page for people: made in the reader's language, which it varies by. */
const htmlSender =
  (imageOrigin: string | null) =>
  (
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    html: string | ((l: Language) => string),
    view: ReaderView = PUBLIC_VIEW,
  ) => {
    const l = languageOf(req);
    return sendBody(
      req,
      res,
      status,
      {
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Language': l.lang,
        Vary: 'Accept-Language',
        // Shows the active version: must be revalidated (its ETag) when another version is activated.
        'Cache-Control': 'no-cache',
        // (a private page is never stored: its headers say no-store)
        ...readerHeaders(imageOrigin, view),
      },
      typeof html === 'string' ? html : html(l),
    );
  };
