// The reader page's elements the script works with, and the media queries it reads: looked up
// once, at start, in ./main.ts, and handed to the modules that use them.

/** An element of the reader's page, which always renders it (src/reader/readerPage.ts). */
export const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
export const one = <T extends HTMLElement>(selector: string) =>
  document.querySelector(selector) as T;

export type Dom = ReturnType<typeof findDom>;

const coarse = '(pointer: coarse) and ';

export const findDom = () => ({
  area: byId('book'),
  view: byId('view'),
  stage: byId('stage'),
  slider: byId<HTMLInputElement>('slider'),
  counter: byId('counter'),
  pager: one('.pager'),
  live: byId('live'),
  reducedMotion: window.matchMedia('(prefers-reduced-motion: reduce)'),
  phone: window.matchMedia(`${coarse}(max-width: 719px), ${coarse}(max-height: 500px)`),
  /** A phone on its side: one page fitted to the width, read from its top down. */
  sideways: window.matchMedia(`${coarse}(max-height: 500px) and (orientation: landscape)`),
});
