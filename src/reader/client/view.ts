// The view: the pages shown with page `current` drawn on the stage, each at its own shape (one
// page, or a spread with the cover alone), and the chrome around them updated; then, once their
// images are in, their links, the search's highlights and the pages one turn away.
import { updateChrome } from './chrome.ts';
import type { Context } from './context.ts';
import { firstOf, onScreen, pageForInput, type Side, type Slot, slotSizes } from './layout.ts';
import { drawPageLinks } from './pageLinks.ts';
import { createPreloads } from './preload.ts';
import { pageFigure, settled } from './stage.ts';

/** The i-th of the sizes slotSizes gives (one per page shown: always there). */
export const slot = (sizes: Slot[], i: number): Slot => sizes[i] ?? { w: 0, h: 0 };

/** The side each page shown stands on. */
export const sides = (count: number) => (count === 2 ? ['left', 'right'] : ['single']);

export type View = {
  /** Draws the pages shown with page `current`, then their links and hits, then preloads. */
  render: () => void;
  /** Puts pages on the stage; focus that was on one of them (a link) stays on the book. */
  show: (nodes: HTMLElement[]) => void;
  /** Says that `pages` are shown (./chrome.ts). */
  updateChrome: (pages: Side[]) => void;
  /** The links of the pages on the stage, once the document's structure is here. */
  drawPageLinks: () => void;
};

export const createView = (
  ctx: Context,
  {
    onShown,
    onSettled,
  }: {
    /** the pages shown changed (the panels, the beacon and the reader's listeners follow) */
    onShown: (shown: number[]) => void;
    /** the images of a render are in (the search lights its hits) */
    onSettled: () => void;
  },
): View => {
  const { book, zoom } = ctx;
  const { area, stage, sideways } = ctx.dom;
  const { preload, stopPreloads } = createPreloads(ctx);
  // The text ahead is a chunk of its own (./wordsAhead.ts), fetched once the first pages are in:
  // nothing of it is needed before.
  let ahead: Promise<(shown: Side[]) => Promise<void>> | null = null;
  const wordsAhead = (pages: Side[]) => {
    ahead ??= import('./wordsAhead.ts').then((m) =>
      m.createWordsAhead(ctx, (input) => pageForInput(input, book.labels, book.total)),
    );
    ahead.then((run) => run(pages)).catch(() => {});
  };

  const render = () => {
    ctx.measure();
    const pages = ctx.visible(ctx.current);
    stopPreloads(pages);
    const screen = onScreen(pages, book.rtl);
    const sizes = slotSizes(screen, book.aspect, ctx.stage.w, ctx.stage.h);
    const lead = firstOf(pages);
    const side = sides(screen.length);
    const figures = screen.map((n, i) =>
      pageFigure(book, n, side[i] ?? 'single', slot(sizes, i), {
        priority: n === lead ? 'high' : 'auto',
        scale: zoom.scale,
      }),
    );
    // A page alone beside an empty side (the cover, a last even page) stands in the middle, at
    // the size it has in the spreads: no half-empty book.
    show(figures.filter((f) => !f.classList.contains('blank')));
    stage.classList.toggle('spread', screen.length === 2 && !screen.includes(null));
    // On a phone held sideways the page is as wide as the book, its top first.
    const fitted = slot(sizes, 0).w;
    zoom.setBase(
      sideways.matches && screen.length === 1 && fitted > 0
        ? Math.max(1, area.clientWidth / fitted)
        : 1,
    );
    updateChrome(ctx, pages, onShown);
    const shownNow = ++ctx.renders;
    // Links, highlights and the pages one turn away only once these images are in: nothing
    // competes with the cover.
    Promise.all([...stage.querySelectorAll('img')].map(settled)).then(() => {
      if (shownNow !== ctx.renders) return;
      preload();
      wordsAhead(pages);
      drawPageLinks(ctx, shownNow);
      onSettled();
    });
  };

  const show = (nodes: HTMLElement[]) => {
    const hadFocus = stage.contains(document.activeElement);
    stage.replaceChildren(...nodes);
    if (hadFocus) area.focus({ preventScroll: true });
  };

  return {
    render,
    show,
    updateChrome: (pages) => updateChrome(ctx, pages, onShown),
    drawPageLinks: () => drawPageLinks(ctx),
  };
};
