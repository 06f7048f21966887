// A preview's reader (issue "Review a PDF change like a code change"; docs/ci.md): /p/<token>
// opens the preview's version without signing in, whatever the flipbook's visibility, as a share
// link opens a book: never indexed, no Open Graph, never stored by anyone but the browser, its
// files under /p/<token>/ (src/http/files.ts). It carries a banner saying what it is a preview
// of, and its comparison with the live version (/p/<token>/compare.json) for the Changes panel
// and the compare view. Promoted or deleted, the address answers 404 from that event on.
import type { ServerResponse } from 'node:http';
import { presentCompare } from '../app/previews.ts';
import { enterByPreview } from '../app/readerAccess.ts';
import { NotFound } from '../domain/errors.ts';
import { previewGate } from '../http/fileGates.ts';
import type { PageRoute } from '../http/pageRoute.ts';
import { sendJson } from '../http/respond.ts';
import type { Request } from '../http/server.ts';
import { bookAnswers, type Entered } from './bookAnswers.ts';
import type { HtmlSender } from './htmlSender.ts';
import { loadReaderBook, type ReaderBook, readerStatus } from './readerData.ts';
import type { ReaderDeps } from './readerDeps.ts';
import type { Language } from './words/language.ts';

export const previewRoutes = (deps: ReaderDeps, sendHtml: HtmlSender): PageRoute[] => {
  const { answer, readerWith, textOf, textJson, qrOf } = bookAnswers(deps, sendHtml);

  /** The preview a request's token opens, as a book let in with a grant; else a 404's entry. */
  const enterPreview = async (req: Request, withLeadTexts = true): Promise<Entered> => {
    const token = req.params.token ?? '';
    const preview = await enterByPreview(deps.access, token);
    if (!preview) return { entry: { kind: 'not-found' }, book: null };
    const url = deps.urls.preview(preview.versionId);
    const book = await loadReaderBook(
      deps.db,
      deps.blobs,
      deps.urls.previewed(token),
      preview.flipbookId,
      withLeadTexts,
      {
        url,
        download: true,
        preview: {
          name: preview.name,
          versionId: preview.versionId,
          liveUrl: deps.urls.reader(preview.flipbookId),
          compare: `${url}/compare.json`,
        },
      },
    );
    return { entry: { kind: 'granted', grant: '', download: true }, book };
  };

  /** A GET under the preview's address: a page for people, or data for its reader's script. */
  const route = (
    answers: 'page' | 'data',
    tail: string,
    handler: (req: Request, res: ServerResponse) => Promise<void>,
  ): PageRoute => ({
    method: 'get',
    path: `/p/:token${tail}`,
    who: 'anyone',
    answers,
    body: 'none',
    handler,
  });
  const page = (tail: string, show: (book: ReaderBook, l: Language) => Promise<string>) =>
    route('page', tail, async (req, res) =>
      answer(req, res, await enterPreview(req, tail === ''), show, req.url ?? '/'),
    );
  const data = (tail: string, handler: (req: Request, res: ServerResponse) => Promise<void>) =>
    route('data', tail, handler);

  const ready = async (req: Request) => {
    const { book } = await enterPreview(req, false);
    if (!book || book === 'archived' || book.status === 'error') throw new NotFound('Not found');
    return book;
  };

  return [
    page('', readerWith(null)),
    page('/text', textOf),
    // Polled by the reader while the preview processes, as a book's.
    data('/status.json', async (req, res) => {
      await sendJson(res, 200, readerStatus(await ready(req)), { req, cache: 'no-store' });
    }),
    data('/qr.svg', async (req, res) => qrOf(req, res, await enterPreview(req, false))),
    // What changed against the live version (null until compared): the Changes panel's list.
    data('/compare.json', async (req, res) => {
      const book = await ready(req);
      const compare = book.preview ? await presentCompare(deps, book.preview.versionId) : null;
      await sendJson(res, 200, { compare }, { req, cache: 'no-store' });
    }),
    data(
      '/pages/:versionId/text.json',
      textJson((req) => previewGate(deps.access, req.params.token ?? '')),
    ),
  ];
};
