// Moving through the book: turns (the leaf between here and there curls over, ./turn.ts, or the
// pages change at once), jumps (a history entry of their own), the next and previous pages in
// reading order and on screen, and the page the address asks for.
import type { Book } from './book.ts';
import type { Context } from './context.ts';
import { firstOf, lastOf, pageForInput } from './layout.ts';
import { swing } from './leaf.ts';
import { prepareTurn } from './turn.ts';
import type { View } from './view.ts';

export type Navigation = {
  go: (n: number) => void;
  jump: (n: number) => void;
  next: () => void;
  prev: () => void;
  /** Screen directions: in a right-to-left book the next page is to the left. */
  toLeft: () => void;
  toRight: () => void;
};

export const createNavigation = (ctx: Context, view: View): Navigation => {
  const { book, zoom, clamp, visible } = ctx;

  /** Turns to page n: the leaf between here and there curls over, or the pages change at once. */
  const go = (n: number) => {
    const target = clamp(n);
    const turn = prepareTurn(ctx, view, target);
    if (!turn) {
      ctx.moves += 1; // a turn still playing must not take the reader back when it ends
      // (during a turn, another goes at once: the keys never wait for the animation)
      if (firstOf(visible(target)) !== firstOf(visible(ctx.current))) zoom.reset(false);
      ctx.current = target;
      view.render();
      return;
    }
    swing(turn.leaf, turn.from, turn.to, 650).then(turn.end);
  };

  /**
   * A jump (a link, the contents, a search result, a thumbnail, go to page) is a history entry of
   * its own, so the browser's Back comes back to where the reader was; turns only update it.
   */
  const jump = (n: number) => {
    const target = clamp(n);
    if (!visible(ctx.current).includes(target)) history.pushState(null, '', `#page=${target}`);
    go(target);
  };

  const next = () => lastOf(visible(ctx.current)) < book.total && go(ctx.nextStart());
  const prev = () => firstOf(visible(ctx.current)) > 1 && go(Math.max(1, ctx.prevStart()));
  return {
    go,
    jump,
    next,
    prev,
    toLeft: () => (book.rtl ? next() : prev()),
    toRight: () => (book.rtl ? prev() : next()),
  };
};

/** #page=N opens page N; #label=iv the page the book numbers "iv". */
export const pageFromHash = (book: Book, hash = location.hash) => {
  const page = /[#&]page=(\d+)/.exec(hash)?.[1];
  if (page) return Number(page);
  const label = /[#&]label=([^&]+)/.exec(hash)?.[1];
  if (label) {
    try {
      return pageForInput(decodeURIComponent(label), book.labels, book.total) ?? 1;
    } catch {
      return 1;
    }
  }
  return 1;
};
