// How the reader's pages for people go out: in the reader's language (which they vary by), with
// an ETag, compressed as negotiated, and the reader's headers for their view (./readerPage.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendBody } from '../http/sendBody.ts';
import { PUBLIC_VIEW, type ReaderView, readerHeaders } from './readerPage.ts';
import { type Language, languageFor } from './words/language.ts';

/** The language a person's page is in (src/reader/words). */
export const languageOf = (req: IncomingMessage) => languageFor(req.headers['accept-language']);

export type HtmlSender = ReturnType<typeof htmlSender>;

/** Sends a page for people: made in the reader's language, which it varies by. */
export const htmlSender =
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
