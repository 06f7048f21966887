// What the reader's modules share while it runs, built once by ./main.ts and handed to each: the
// book, the page's elements, the zoom, where the reader is, and the views that follow from it.
// One object passed explicitly rather than globals, so each module says what it reads and changes.
import type { Beacon } from './beacon.ts';
import type { Book } from './book.ts';
import type { Dom } from './dom.ts';
import { firstOf, isSpread, lastOf, type Side, spreadOf } from './layout.ts';
import type { Zoom } from './zoom.ts';

export type Context = {
  book: Book;
  beacon: Beacon;
  dom: Dom;
  zoom: Zoom;
  /** the page the reader is at: shown with the other page of its spread, if any */
  current: number;
  /** a leaf is turning: the stage is the turn's until it ends */
  turning: boolean;
  /** Counts renders: what one waits for (its images, the structure) is dropped once another came. */
  renders: number;
  /** Counts turns and jumps: a turn ending finishes only if none came after it. */
  moves: number;
  /**
   * the stage's size as last measured: at the start of each render and turn (before they change
   * the page, where the layout is still the frame's) and as it changes (./main.ts). Read from here
   * afterwards, so that a jump's new page and chrome are laid out once, in the frame.
   */
  stage: { w: number; h: number };
  /** Measures the stage now (a panel that closed, a new render): ctx.stage. */
  measure: () => void;
  /** a page number the book has */
  clamp: (n: number) => number;
  /** whether the stage shows two-page spreads */
  spread: () => boolean;
  /** the pages shown with page n */
  visible: (n: number) => Side[];
  /** the first page after those shown, and the last before them */
  nextStart: () => number;
  prevStart: () => number;
};

export const createContext = (parts: Pick<Context, 'book' | 'beacon' | 'dom' | 'zoom'>) => {
  const { book, dom } = parts;
  const clamp = (n: number) => Math.min(Math.max(1, Math.round(n) || 1), book.total);
  // A one-page document is never a spread: its page has the whole stage.
  const spread = () =>
    book.total > 1 && !dom.sideways.matches && isSpread(ctx.stage.w, ctx.stage.h);
  const visible = (n: number) => spreadOf(n, book.total, spread());
  const ctx: Context = {
    ...parts,
    current: 1,
    turning: false,
    renders: 0,
    moves: 0,
    stage: { w: dom.stage.clientWidth, h: dom.stage.clientHeight },
    measure: () => {
      ctx.stage = { w: dom.stage.clientWidth, h: dom.stage.clientHeight };
    },
    clamp,
    spread,
    visible,
    nextStart: () => lastOf(visible(ctx.current)) + 1,
    prevStart: () => firstOf(visible(ctx.current)) - 1,
  };
  return ctx;
};
