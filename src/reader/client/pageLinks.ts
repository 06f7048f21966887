// The links of the pages on the stage (real <a> elements over the images, ./stage.ts): drawn once
// the document's structure is here, and one stop for Tab (a contents page can have a hundred):
// the arrow keys go from one to the next.
import type { Context } from './context.ts';
import { drawLinks } from './stage.ts';

const pageLinks = (stage: HTMLElement) => [...stage.querySelectorAll<HTMLElement>('a.link')];

/** Draws the links of the pages shown, unless another render came since render `shownNow`. */
export const drawPageLinks = (ctx: Context, shownNow = ctx.renders) => {
  const { book } = ctx;
  const { stage } = ctx.dom;
  return book.structure().then((structure) => {
    if (shownNow !== ctx.renders) return;
    for (const figure of stage.querySelectorAll<HTMLElement>('figure[data-n]')) {
      if (figure.querySelector('.link')) continue;
      drawLinks(figure, structure.links?.[Number(figure.dataset.n) - 1], book);
    }
    pageLinks(stage).forEach((a, i) => {
      a.tabIndex = i ? -1 : 0;
    });
  });
};

/** An arrow key on a page's link: the next or previous link gets focus (and the Tab stop). */
export const moveAmongLinks = (stage: HTMLElement, from: HTMLElement, key: string) => {
  const step = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 }[key];
  if (!step) return false;
  const links = pageLinks(stage);
  const to = links[(links.indexOf(from) + step + links.length) % links.length];
  if (!to) return false;
  from.tabIndex = -1;
  to.tabIndex = 0;
  to.focus();
  return true;
};
