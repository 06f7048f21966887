// A share link's forms (POST /s/<token>) and the pages that ask before its book: its password,
// and (a link that asks who reads, issue 44) the reader's address, the terms, the code mailed to
// them. Each form posts here with its `step`, and is answered with a redirect to the link (its
// cookie set) or the same form again with what was wrong, in the reader's words. Every cookie is
// the link's path's only, HttpOnly, SameSite=Lax (./readerRoutes.ts reads them).
import type { ServerResponse } from 'node:http';
import { giveAddress, giveCode, waitingReader } from '../app/linkReaders.ts';
import {
  type Entry,
  type LinkProofs,
  linkOfToken,
  passwordGiven,
  unlockLink,
} from '../app/readerAccess.ts';
import { AppError, InvalidInput, NotFound } from '../domain/errors.ts';
import { frameAncestors } from '../domain/flipbook/access.ts';
import { cookieHeader, readCookie } from '../http/cookies.ts';
import { readForm } from '../http/formBody.ts';
import type { PageRoute } from '../http/pageRoute.ts';
import { clientAddress } from '../http/rateLimit.ts';
import { redirect } from '../http/respond.ts';
import { checkSameOrigin } from '../http/sameOrigin.ts';
import type { Request } from '../http/server.ts';
import { asUnavailable } from '../http/unavailable.ts';
import type { HtmlSender } from './htmlSender.ts';
import { codePage, identifyPage } from './identifyPage.ts';
import type { ReaderDeps } from './readerDeps.ts';
import { notFoundPage, PRIVATE_VIEW, passwordPage, type ReaderView } from './readerPage.ts';
import type { Language } from './words/language.ts';

/** The cookie that proves a share link's password was given: for that link's path only. */
const LINK_COOKIE = 'flipbook_link';
/** The reader identified at the link (src/app/readerCookies.ts). */
const READER_COOKIE = 'flipbook_reader';
/** The reader waiting for the code mailed to them. */
const CODE_COOKIE = 'flipbook_code';

/** The path of the share link a request came to, as it was sent (the token is ours to check). */
export const linkPath = (req: Request) => `/s/${encodeURIComponent(req.params.token ?? '')}`;

/** What the browser brings to a link: its cookies. */
export const linkProofsOf = (req: Request): LinkProofs => ({
  password: readCookie(req, LINK_COOKIE),
  reader: readCookie(req, READER_COOKIE),
  code: readCookie(req, CODE_COOKIE),
});

/**
 * How a link's pages before its book are seen: framed as its book is (its flipbook's embedding
 * sites, else its own site only), so a link with a password works where its book is embedded.
 */
export const linkView = (link: { embed_origins: string[] } | null): ReaderView =>
  link
    ? {
        isPublic: false,
        frameAncestors: frameAncestors({ visibility: 'links', embedOrigins: link.embed_origins }),
      }
    : PRIVATE_VIEW;

/** The page a link shows before its book, when it shows one (else null), and how it is seen. */
export const beforeTheBook = (entry: Entry, action: string) => {
  if (entry.kind === 'password') {
    return { page: (l: Language) => passwordPage(l, action), view: linkView(entry.link) };
  }
  if (entry.kind !== 'identify') return null;
  const { link, waiting } = entry;
  const view = linkView(link);
  if (waiting)
    return { page: (l: Language) => codePage(l, { action, email: waiting.email }), view };
  return {
    page: (l: Language) =>
      identifyPage(l, {
        action,
        verify: link.identify === 'verified_email',
        watermark: link.watermark,
        terms: link.terms,
      }),
    view,
  };
};

export const linkFormRoute = (deps: ReaderDeps, sendHtml: HtmlSender): PageRoute => ({
  method: 'post',
  path: '/s/:token',
  who: 'anyone',
  answers: 'page',
  body: 'form',
  handler: async (req, res) => {
    const action = linkPath(req);
    const secure = deps.urls.reader('').startsWith('https:');
    const cookie = (name: string, value: string, seconds: number) =>
      cookieHeader(name, value, { path: action, sameSite: 'Lax', secure, maxAgeSeconds: seconds });
    const done = (...cookies: string[]) =>
      redirect(res, action, { 'Set-Cookie': cookies, 'Referrer-Policy': 'no-referrer' });
    const token = req.params.token ?? '';
    const address = clientAddress(req, deps.trustProxy ?? false);
    let form: URLSearchParams | null = null;
    try {
      // Another site cannot make a visitor's browser give a password or an address here.
      checkSameOrigin(req, new URL(deps.urls.reader('')).origin);
      form = await readForm(req);
      const step = form.get('step') ?? 'password';
      if (step === 'password') {
        const { proof, maxAgeSeconds } = await unlockLink(
          deps.access,
          token,
          form.get('password') ?? '',
          address,
        );
        return done(cookie(LINK_COOKIE, proof, maxAgeSeconds));
      }
      const link = await linkOfToken(deps.access, token);
      if (!link || link.expired || link.identify === 'none') throw new NotFound('Not found');
      // The password first: nothing a link asks after it is taken without it.
      if (!passwordGiven(deps.access, link, readCookie(req, LINK_COOKIE))) {
        return sendHtml(req, res, 401, (l) => passwordPage(l, action), linkView(link));
      }
      if (step === 'restart') return done(cookie(CODE_COOKIE, '', 0));
      if (step === 'email') {
        const given = {
          email: form.get('email') ?? '',
          accepted: form.get('accept') === 'yes',
          token,
        };
        const identified = await giveAddress(deps.access, link, given, address);
        const name = identified.kind === 'reader' ? READER_COOKIE : CODE_COOKIE;
        return done(cookie(name, identified.cookie.value, identified.cookie.seconds));
      }
      if (step === 'code') {
        const waiting = await waitingReader(deps.access, link, readCookie(req, CODE_COOKIE));
        // The code cookie gone (ten minutes passed): the address form again.
        if (!waiting) return done(cookie(CODE_COOKIE, '', 0));
        const identified = await giveCode(
          deps.access,
          link,
          waiting,
          form.get('code') ?? '',
          address,
        );
        return done(
          cookie(READER_COOKIE, identified.cookie.value, identified.cookie.seconds),
          cookie(CODE_COOKIE, '', 0),
        );
      }
      throw new InvalidInput('Unknown step');
    } catch (error) {
      if (error instanceof NotFound) return sendHtml(req, res, 404, notFoundPage, PRIVATE_VIEW);
      const inWords = error instanceof AppError && error.name === 'CodeNeedsMail';
      if (!(error instanceof AppError) || (asUnavailable(error) && !inWords)) throw error;
      await refusedForm(deps, sendHtml, req, res, error, form);
    }
  },
});

/** A form sent back with what was wrong, in the reader's words (a status of its own). */
const refusedForm = async (
  deps: ReaderDeps,
  sendHtml: HtmlSender,
  req: Request,
  res: ServerResponse,
  error: AppError,
  form: URLSearchParams | null,
) => {
  const action = linkPath(req);
  for (const [name, value] of Object.entries(error.headers ?? {})) res.setHeader(name, value);
  const { status } = error;
  const link = await linkOfToken(deps.access, req.params.token ?? '');
  // A form refused before it was read (another site's, too large, not UTF-8) says so: in English
  // which it was, in the reader's other languages in general words.
  const unread = (l: Language) => (l.lang.startsWith('en') ? error.message : l.words.formRefused);
  const waitingFor = async () =>
    link && (await waitingReader(deps.access, link, readCookie(req, CODE_COOKIE)));
  let step = form ? (form.get('step') ?? 'password') : null;
  let waiting: Awaited<ReturnType<typeof waitingFor>> | undefined;
  if (step === null) {
    // Answered with the page the link shows now.
    if (!link) return sendHtml(req, res, 404, notFoundPage, PRIVATE_VIEW);
    if (!passwordGiven(deps.access, link, readCookie(req, LINK_COOKIE))) step = 'password';
    else if (link.identify === 'none')
      return redirect(res, action); // it asks nothing
    else {
      waiting = await waitingFor();
      step = waiting ? 'code' : 'email';
    }
  }
  if (step === 'password') {
    const problem = (l: Language) =>
      status === 401
        ? l.words.passwordWrong
        : status === 429
          ? l.words.passwordThrottled
          : form
            ? error.message
            : unread(l);
    return sendHtml(req, res, status, (l) => passwordPage(l, action, problem(l)), linkView(link));
  }
  if (!link) return sendHtml(req, res, 404, notFoundPage, PRIVATE_VIEW);
  if (step === 'code') {
    const waited = waiting ?? (await waitingFor());
    const problem = (l: Language) =>
      status === 429 ? l.words.tooBusy : form ? l.words.codeWrong : unread(l);
    if (waited) {
      return sendHtml(
        req,
        res,
        status,
        (l) => codePage(l, { action, email: waited.email, problem: problem(l) }),
        linkView(link),
      );
    }
  }
  const problem = (l: Language) =>
    !form
      ? unread(l)
      : error.name === 'NotAllowedReader'
        ? l.words.notAllowed
        : error.name === 'CodeNeedsMail'
          ? l.words.codeNoMail
          : error.name === 'TermsNotAccepted'
            ? l.words.termsRequired
            : error.name === 'LinkFull'
              ? l.words.linkFull
              : status === 429
                ? l.words.tooBusy
                : // the address's refusal says why in English (src/domain/readerEmail.ts)
                  l.lang.startsWith('en')
                  ? error.message
                  : l.words.emailInvalid;
  // What was typed goes back to this browser's own form, escaped; never anywhere else.
  const email = (form?.get('email') ?? '').slice(0, 254);
  return sendHtml(
    req,
    res,
    status,
    (l) =>
      identifyPage(l, {
        action,
        verify: link.identify === 'verified_email',
        watermark: link.watermark,
        terms: link.terms,
        email,
        problem: problem(l),
      }),
    linkView(link),
  );
};
