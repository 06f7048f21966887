// The pages one turn away, loaded ahead (not in the document) so a turn finds them in the
// browser's cache; stopped when a jump elsewhere makes them unwanted.
import type { Context } from './context.ts';
import type { Side } from './layout.ts';
import { pageFigure } from './stage.ts';

export const createPreloads = (ctx: Context) => {
  const { book } = ctx;
  /** Images loading for the pages one turn away (not in the document). */
  let preloading: HTMLImageElement[] = [];

  /** Warms the browser cache for the pages one turn away, at the size they will be shown. */
  const preload = () => {
    const { clamp, visible } = ctx;
    const box = ctx.dom.stage.querySelector('figure[data-n]')?.getBoundingClientRect();
    const size = { w: box?.width || 300, h: box?.height || 400 };
    const shown = visible(ctx.current);
    for (const n of [...visible(clamp(ctx.nextStart())), ...visible(clamp(ctx.prevStart()))]) {
      // An image that is not in the document still loads: the browser keeps it for the turn.
      if (n && !shown.includes(n) && book.pages.has(n)) {
        const figure = pageFigure(book, n, 'single', size, { priority: 'low', interactive: false });
        const img = figure.querySelector('img');
        if (img) preloading.push(img);
      }
    }
  };

  /**
   * Stops the preloads still under way: after a jump elsewhere they would share a slow link with
   * the pages now wanted (on slow 4G, two of them made a jump take twice as long). One that is the
   * page now shown is left to finish.
   */
  const stopPreloads = (wanted: Side[]) => {
    for (const img of preloading) {
      if (img.complete || wanted.includes(Number(img.dataset.n))) continue;
      img.removeAttribute('srcset');
      img.removeAttribute('src');
    }
    preloading = [];
  };

  return { preload, stopPreloads };
};
