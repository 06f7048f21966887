// A page turn with a curl: the leaf between here and there lifts over the pages it reveals and
// lands as the page it becomes. Set up here, moved by ./navigation.ts (a swing) or ./drag.ts (a
// pointer); where no leaf can turn (reduced motion, zoomed, a hidden tab, pages of other shapes)
// there is none, and the pages change at once.
import type { Book } from './book.ts';
import type { Context } from './context.ts';
import type { Pt } from './curl.ts';
import { firstOf, onScreen, type Side, slotSizes } from './layout.ts';
import { curlLeaf, type Leaf } from './leaf.ts';
import { pageFigure } from './stage.ts';
import { sides, slot, type View } from './view.ts';

/**
 * Whether a leaf can turn between these views: a rigid leaf has one shape, so the pages it
 * carries and the ones beneath must share theirs (a portrait page turning onto a landscape one
 * would be drawn stretched), and no side may be empty (a lone page stands centred). Otherwise
 * the pages change at once.
 */
const sameShapes = (book: Book, from: Side[], to: Side[]) => {
  if (from.length !== to.length || from.includes(null) || to.includes(null)) {
    return (
      from.length === 1 &&
      to.length === 1 &&
      close(book.aspect(firstOf(from)), book.aspect(firstOf(to)))
    );
  }
  const ratios = [...from, ...to].map((n) => book.aspect(n ?? 1));
  return ratios.every((r) => close(r, ratios[0] ?? r));
};
const close = (a: number, b: number) => Math.abs(a - b) / Math.max(a, b) < 0.03;

/** A turn set up on the stage: its leaf, where its corner starts and ends, and its ways out. */
export type Turn = {
  leaf: Leaf;
  box: HTMLElement;
  from: Pt;
  to: Pt;
  fromRight: boolean;
  end: () => void;
  undo: () => void;
  /** the counter and the spoken page say where the turn goes */
  tell: () => void;
};

/**
 * Sets up the turn to page `target`: beneath, the pages it reveals (and, in a spread, the page it
 * lands on); over them, clipped to the book, the leaf: the page lifting, its back the page it
 * becomes (blank paper for a page alone). Held at its top or bottom corner (`top`). Null when the
 * pages change at once instead: reduced motion, zoomed, a hidden tab, pages of other shapes.
 */
export const prepareTurn = (
  ctx: Context,
  view: View,
  target: number,
  top = false,
  held = false,
): Turn | null => {
  const { book, zoom } = ctx;
  const { stage, reducedMotion } = ctx.dom;
  ctx.measure();
  const from = ctx.visible(ctx.current);
  const to = ctx.visible(target);
  if (
    ctx.turning ||
    firstOf(to) === firstOf(from) ||
    reducedMotion.matches ||
    zoom.pannable ||
    !stage.firstElementChild ||
    document.hidden ||
    !sameShapes(book, from, to)
  ) {
    return null;
  }
  const forward = firstOf(to) > firstOf(from);
  const single = to.length === 1;
  // A page alone turns about its spine edge (its left, or its right in a right-to-left book),
  // forward by lifting, back by coming down again; a spread's leaf lifts from the side it leaves.
  const fromRight = single ? !book.rtl : forward !== book.rtl;
  const screenTo = onScreen(to, book.rtl);
  const sizes = slotSizes(screenTo, book.aspect, ctx.stage.w, ctx.stage.h);
  const side = sides(screenTo.length);
  const liftIndex = single ? 0 : fromRight ? 1 : 0;
  const fromScreen = onScreen(from, book.rtl);
  const under = single
    ? [pageFigure(book, forward ? target : firstOf(from), 'single', slot(sizes, 0))]
    : screenTo.map((n, i) =>
        pageFigure(
          book,
          i === liftIndex ? n : (fromScreen[i] ?? null),
          side[i] ?? 'single',
          slot(sizes, i),
        ),
      );
  const size = slot(sizes, liftIndex);
  const face = (n: Side) => pageFigure(book, n, 'face', size, { interactive: false });
  const front = face(single ? (forward ? firstOf(from) : target) : (fromScreen[liftIndex] ?? null));
  const back = face(single ? null : (screenTo[1 - liftIndex] ?? null));
  back.className = back.className.replace(' blank', ''); // a page alone shows paper behind
  const frame = document.createElement('div');
  frame.className = 'turn';
  frame.setAttribute('aria-hidden', 'true');
  const leafBox = document.createElement('div');
  leafBox.className = 'leaf';
  frame.append(leafBox);
  const was = ctx.current;
  ctx.current = target;
  ctx.turning = true;
  view.show([...under, frame]);
  stage.classList.toggle('spread', !single);
  // Over the pages beneath, clipped to them: the leaf never leaves the book.
  const box = stage.getBoundingClientRect();
  const rects = under.map((f) => f.getBoundingClientRect());
  const place = (
    el: HTMLElement,
    r: { left: number; top: number; width: number; height: number },
    o: { left: number; top: number },
  ) =>
    Object.assign(el.style, {
      left: `${r.left - o.left}px`,
      top: `${r.top - o.top}px`,
      width: `${r.width}px`,
      height: `${r.height}px`,
    });
  const left = Math.min(...rects.map((r) => r.left));
  const topEdge = Math.min(...rects.map((r) => r.top));
  const all = {
    left,
    top: topEdge,
    width: Math.max(...rects.map((r) => r.right)) - left,
    height: Math.max(...rects.map((r) => r.bottom)) - topEdge,
  };
  place(frame, all, box);
  place(leafBox, rects[liftIndex] ?? all, all);
  const leaf = curlLeaf(leafBox, front, back, fromRight, top ? 0 : size.h);
  const [start, end] = single && !forward ? [leaf.over, leaf.rest] : [leaf.rest, leaf.over];
  leaf.set(start);
  // The counter says where the turn goes as it starts; a held leaf's only once let go past
  // the middle (one that falls back would have said a page never shown).
  const tell = () => view.updateChrome(to);
  if (!held) tell();
  // A turn or jump asked for meanwhile has already happened: the last one wins.
  const ticket = ++ctx.moves;
  const finish = (n: number) => () => {
    ctx.turning = false;
    if (ticket !== ctx.moves) return;
    ctx.current = n;
    view.render();
  };
  return {
    leaf,
    box: leafBox,
    from: start,
    to: end,
    fromRight,
    end: finish(target),
    undo: finish(was),
    tell,
  };
};
