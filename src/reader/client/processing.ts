// While the version is still processing, pick up newly ready pages now and then from the status
// JSON (a 304 when nothing changed). The stage is redrawn only when a page it shows became ready,
// and the notice floats over the book: when processing ends, nothing on screen moves.
import type { FlipbookData } from './book.ts';
import type { Context } from './context.ts';
import type { SizeRun } from './layout.ts';
import { say } from './say.ts';
import type { View } from './view.ts';

/** The status JSON (/f/:id/status.json, src/reader/readerRoutes.ts). */
type ReaderStatus = {
  versionId: string | null;
  status: string;
  pageCount: number;
  ready: number;
  runs: SizeRun[];
};

export const followProcessing = (ctx: Context, data: FlipbookData, view: View) => {
  if (!data.processing) return;
  const { book } = ctx;
  const poll = async () => {
    const answer = await fetch(data.status, { cache: 'no-cache' }).catch(() => null);
    // Gone (the only version failed, the flipbook archived or deleted): stop asking, and say so.
    if (answer?.status === 404 || answer?.status === 410) {
      const notice = document.querySelector('.notice');
      if (notice) notice.textContent = say('failed');
      return;
    }
    const status: ReaderStatus | null = answer?.ok ? await answer.json().catch(() => null) : null;
    if (status && status.versionId !== data.versionId) {
      location.reload(); // another version is shown now: the page holds another book
      return;
    }
    if (status) {
      const missing = ctx
        .visible(ctx.current)
        .filter((n): n is number => n !== null && !book.pages.has(n));
      const before = book.pages.size;
      book.addRuns(status.runs);
      if (book.pages.size !== before) book.forgetTexts(); // the text JSON has more pages now
      const total = Math.max(status.pageCount, status.ready, book.total);
      const grown = total !== book.total;
      book.total = total;
      if (!ctx.turning && (grown || missing.some((n) => book.pages.has(n)))) view.render();
      if (status.status === 'done') {
        document.querySelector('.notice')?.remove();
        data.processing = false;
        // Contents and links exist now: read them, and draw the links of the pages shown
        // (over the images as they are: nothing on screen moves).
        book.documentReady();
        if (!ctx.turning) view.drawPageLinks();
      }
      if (status.status === 'error') {
        const notice = document.querySelector('.notice');
        if (notice) notice.textContent = say('restFailed');
      }
      if (status.status === 'done' || status.status === 'error') return;
    }
    setTimeout(poll, 5000);
  };
  setTimeout(poll, 5000);
};
