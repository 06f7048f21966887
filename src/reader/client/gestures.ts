// Pointer, wheel and touch input on the book. Pointer events cover mouse, pen and touch alike;
// the book has `touch-action: none`, so the browser neither scrolls nor zooms the page under a
// gesture and every gesture means the same everywhere on the book:
// - one finger (or the mouse): a drag sideways holds the leaf by its corner and curls it as it
//   goes (`drag`; where no curl can be, a swipe turns the page at once), mirrored in a
//   right-to-left book; zoomed (or a page taller than the book), it pans; a tap on the page (not
//   a link) is `tap`;
// - two fingers: pinch zooms about their midpoint, and moving them pans;
// - a double tap (or a double click) zooms in to that point, or back out;
// - the wheel turns pages (one turn per gesture, so a trackpad's long scroll is one turn);
//   with Ctrl (a trackpad pinch arrives so) it zooms at the pointer; zoomed, it pans.
import type { Zoom } from './zoom.ts';

/** Where a gesture turns: the side the next page comes from, or forward and back. */
export type Turn = 'left' | 'right' | 'forward' | 'backward';

type Point = { x: number; y: number };

export const attachGestures = ({
  area,
  zoom,
  turn,
  tap,
  drag,
  isTurning,
}: {
  area: HTMLElement;
  zoom: Zoom;
  turn: (direction: Turn) => void;
  tap: () => void;
  /** a leaf held by a drag: `start` says whether it could be (side: where the pointer goes) */
  drag: {
    start: (side: 'left' | 'right', y: number) => boolean;
    move: (dx: number, y: number) => void;
    end: (flick: boolean) => void;
  };
  isTurning: () => boolean;
}) => {
  const pointers = new Map<number, Point>();
  let pinch: { distance: number; scale: number; mid: Point } | null = null;
  let swipe: (Point & { time: number; type: string }) | null = null;
  let moved = false;
  let lastTap: (Point & { time: number }) | null = null;
  let tapTimer = 0;
  let dragging = false;
  let lastType = 'mouse';

  const point = (e: MouseEvent): Point => {
    const box = area.getBoundingClientRect();
    return { x: e.clientX - box.left, y: e.clientY - box.top };
  };
  const distance = (a: Point, b: Point) => Math.hypot(a.x - b.x, a.y - b.y);
  const middle = (a: Point, b: Point) => ({ x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 });

  area.addEventListener('pointerdown', (e) => {
    if (e.pointerType === 'mouse' && e.button !== 0) return;
    // a second finger while a leaf is held: the leaf is let go (falls back), then a pinch
    if (dragging) {
      dragging = false;
      drag.end(false);
    }
    lastType = e.pointerType;
    pointers.set(e.pointerId, point(e));
    moved = false;
    if (pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      if (!a || !b) return;
      pinch = { distance: distance(a, b), scale: zoom.scale, mid: middle(a, b) };
      swipe = null;
    } else if (pointers.size === 1) {
      swipe = { ...point(e), time: e.timeStamp, type: e.pointerType };
    }
  });

  area.addEventListener('pointermove', (e) => {
    const before = pointers.get(e.pointerId);
    if (!before) return;
    // the mouse's button came up where we did not hear it: let go
    if (e.pointerType === 'mouse' && e.buttons === 0) return end(e);
    const now = point(e);
    pointers.set(e.pointerId, now);
    if (Math.abs(now.x - (swipe?.x ?? now.x)) + Math.abs(now.y - (swipe?.y ?? now.y)) > 6) {
      moved = true;
    }
    if (pinch && pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      if (!a || !b) return;
      const mid = middle(a, b);
      zoom.panBy(mid.x - pinch.mid.x, mid.y - pinch.mid.y);
      zoom.zoomAt((pinch.scale * distance(a, b)) / pinch.distance, mid.x, mid.y);
      pinch.mid = mid;
      moved = true;
    } else if (
      dragging ||
      (swipe && !zoom.zoomed && !isTurning() && pointers.size === 1 && held(now))
    ) {
      if (!swipe) return;
      // held: the pointer is ours until let go, wherever it goes
      if (!area.hasPointerCapture(e.pointerId)) area.setPointerCapture(e.pointerId);
      drag.move(now.x - swipe.x, now.y);
    } else if (zoom.pannable && pointers.size === 1 && moved) {
      // Panning: the drag moves the page under the finger (or the mouse).
      zoom.panBy(now.x - before.x, now.y - before.y);
      area.classList.add('panning');
    }
  });

  /** A sideways drag begins: a leaf held, if one can be. */
  const held = (now: Point) => {
    const dx = now.x - (swipe?.x ?? now.x);
    if (Math.abs(dx) < 12 || Math.abs(dx) < Math.abs(now.y - (swipe?.y ?? now.y)) * 1.2)
      return false;
    dragging = drag.start(dx < 0 ? 'left' : 'right', swipe?.y ?? now.y);
    return dragging;
  };

  const end = (e: PointerEvent) => {
    if (!pointers.has(e.pointerId)) return;
    const at = point(e);
    pointers.delete(e.pointerId);
    area.classList.remove('panning');
    if (pointers.size < 2) pinch = null;
    if (dragging) {
      dragging = false;
      const quick = swipe && e.timeStamp - swipe.time < 300 && Math.abs(at.x - swipe.x) > 40;
      drag.end(e.type !== 'pointercancel' && !!quick);
      swipe = null;
      return;
    }
    if (e.type === 'pointercancel' || !swipe || pointers.size > 0) return;
    const dx = at.x - swipe.x;
    const dy = at.y - swipe.y;
    const type = swipe.type;
    swipe = null;
    if (!zoom.zoomed && Math.abs(dx) > 40 && Math.abs(dx) > Math.abs(dy) * 1.5) {
      // Finger to the left: the next page (in a left-to-right book; the turn mirrors it).
      turn(dx < 0 ? 'left' : 'right');
      return;
    }
    if (type === 'touch' && !moved) {
      clearTimeout(tapTimer);
      if (lastTap && e.timeStamp - lastTap.time < 320 && distance(lastTap, at) < 30) {
        zoom.toggleAt(at.x, at.y);
        lastTap = null;
      } else {
        lastTap = { ...at, time: e.timeStamp };
        // One tap, once no second one follows; on a link or a button it is theirs.
        const onControl = e.target instanceof Element && e.target.closest('a, button');
        if (!onControl) tapTimer = setTimeout(tap, 330);
      }
    }
  };
  area.addEventListener('pointerup', end);
  area.addEventListener('pointercancel', end);

  // A click that ends a drag is not a click on the link under it.
  area.addEventListener(
    'click',
    (e) => {
      if (moved) {
        e.preventDefault();
        e.stopPropagation();
        moved = false;
      }
    },
    true,
  );

  area.addEventListener('dblclick', (e) => {
    // A double tap was handled as it ended (above); mobile browsers then send a dblclick too,
    // which would zoom straight back out.
    if (lastType === 'touch' || (e.target instanceof Element && e.target.closest('a, button'))) {
      return;
    }
    const at = point(e);
    zoom.toggleAt(at.x, at.y);
  });

  let wheelTotal = 0;
  let wheelQuietAt = 0;
  let wheelTimer = 0;
  area.addEventListener(
    'wheel',
    (e) => {
      e.preventDefault(); // the stage never scrolls as a document
      const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? area.clientHeight : 1;
      const dx = e.deltaX * unit;
      const dy = e.deltaY * unit;
      if (e.ctrlKey || e.metaKey) {
        if (isTurning()) return; // never zoom under a turning leaf
        const at = point(e);
        zoom.zoomAt(zoom.scale * Math.exp(-dy * 0.01), at.x, at.y);
        return;
      }
      if (zoom.zoomed) {
        zoom.panBy(-dx, -dy);
        return;
      }
      // One turn per gesture: the gesture ends after 250 ms without a wheel event.
      clearTimeout(wheelTimer);
      wheelTimer = setTimeout(() => {
        wheelTotal = 0;
        wheelQuietAt = 0;
      }, 250);
      if (wheelQuietAt || isTurning()) return;
      // Up and down mean forward and back; sideways (a trackpad swipe) means the side the page
      // comes from, mirrored in a right-to-left book like a swipe of the finger.
      const sideways = Math.abs(dx) > Math.abs(dy);
      wheelTotal += sideways ? dx : dy;
      if (Math.abs(wheelTotal) >= 40) {
        wheelQuietAt = e.timeStamp;
        if (sideways) turn(wheelTotal > 0 ? 'left' : 'right');
        else turn(wheelTotal > 0 ? 'forward' : 'backward');
      }
    },
    { passive: false },
  );
};
