// A leaf held by a drag (a finger or the mouse, ./gestures.ts): its corner follows the pointer;
// let go past the middle (or flicked) it turns, otherwise it falls back.
import { showBars } from './bars.ts';
import type { Context } from './context.ts';
import type { Pt } from './curl.ts';
import { firstOf, lastOf } from './layout.ts';
import { swing } from './leaf.ts';
import { prepareTurn, type Turn } from './turn.ts';
import type { View } from './view.ts';

export type Drag = ReturnType<typeof createDrag>;

export const createDrag = (ctx: Context, view: View) => {
  const { book } = ctx;
  const { area } = ctx.dom;
  let held: { turn: Turn; at: Pt } | null = null;
  return {
    start: (side: 'left' | 'right', y: number) => {
      // a pointer moving left brings the next page in a left-to-right book
      const forward = (side === 'left') !== book.rtl;
      const shown = ctx.visible(ctx.current);
      if (forward ? lastOf(shown) >= book.total : firstOf(shown) <= 1) return false;
      const turn = prepareTurn(
        ctx,
        view,
        forward ? ctx.nextStart() : Math.max(1, ctx.prevStart()),
        y < area.clientHeight / 2,
        true,
      );
      if (!turn) return false;
      held = { turn, at: turn.from };
      return true;
    },
    /** The pointer moved `dx` sideways since it took hold, and is at `y` in the book. */
    move: (dx: number, y: number) => {
      if (!held) return;
      const { turn } = held;
      // The corner goes as far sideways as the pointer went, and up or down to its height: held
      // low, the leaf turns from its bottom corner; raised, it curls toward the pointer.
      const top = turn.box.getBoundingClientRect().top - area.getBoundingClientRect().top;
      held.at = { x: turn.from.x + (turn.fromRight ? dx : -dx), y: y - top };
      turn.leaf.set(held.at);
    },
    end: (flick: boolean) => {
      if (!held) return;
      const { turn, at } = held;
      held = null;
      // a quarter of the way, the corner half a page across: for a page alone the spine is its
      // outer edge, which no finger reaches
      const quarter = turn.from.x + (turn.to.x - turn.from.x) / 4;
      const past = turn.to.x < turn.from.x ? at.x < quarter : at.x > quarter;
      const done = past || flick;
      if (done) {
        showBars(ctx.dom, false);
        turn.tell();
      }
      swing(turn.leaf, at, done ? turn.to : turn.from, 300).then(done ? turn.end : turn.undo);
    },
  };
};
