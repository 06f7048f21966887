// The page curl on the page: a leaf's two faces clipped and placed by the fold (./curl.ts) as
// its corner moves, after the pointer or along an animation's path.
import { fold, type Matrix, type Pt, polygon } from './curl.ts';

/** m1 after m2. */
const times = (m1: Matrix, m2: Matrix): Matrix => {
  const [a, b, c, d, e, f] = m1;
  const [A, B, C, D, E, F] = m2;
  return [
    a * A + c * B,
    b * A + d * B,
    a * C + c * D,
    b * C + d * D,
    a * E + c * F + e,
    b * E + d * F + f,
  ];
};

/** A leaf on the stage, curled by `set` with its corner at a point of its own frame. */
export type Leaf = {
  set: (p: Pt) => void;
  /** the corner at rest, and turned over onto the other side */
  rest: Pt;
  over: Pt;
  w: number;
  h: number;
};

/**
 * Puts `front` (the page lifting) and `back` (what its other side shows) into `leaf`, a box of
 * the page's size over it; the leaf lifts from its right edge, or its left (`fromRight` false),
 * held at its top or bottom corner (cy).
 */
export const curlLeaf = (
  leaf: HTMLElement,
  front: HTMLElement,
  back: HTMLElement,
  fromRight: boolean,
  cy: number,
): Leaf => {
  const w = leaf.offsetWidth;
  const h = leaf.offsetHeight;
  const flap = document.createElement('div');
  flap.className = 'flap';
  flap.append(back);
  leaf.append(front, flap);
  // A leaf lifting from its left edge is the same fold, mirrored (x -> w - x).
  const mirror: Matrix = [-1, 0, 0, 1, w, 0];
  const local = (points: Pt[], flip: boolean) =>
    flip ? points.map((p) => ({ x: w - p.x, y: p.y })) : points;
  return {
    w,
    h,
    rest: { x: w, y: cy },
    over: { x: -w, y: cy },
    set: (p) => {
      const f = fold(p, w, h, cy);
      front.style.clipPath = polygon(local(f.keep, !fromRight));
      back.style.clipPath = polygon(local(f.flap, fromRight));
      const m = fromRight ? f.back : times(mirror, times(f.back, mirror));
      back.style.transform = `matrix(${m.join(',')})`;
    },
  };
};

/** Moves a leaf's corner from `from` to `to`, lifting it on the way; resolves when there. */
export const swing = (leaf: Leaf, from: Pt, to: Pt, ms: number) =>
  new Promise<void>((done) => {
    const start = performance.now();
    const lift = (from.y > leaf.h / 2 ? -1 : 1) * leaf.h * 0.1;
    const step = (now: number) => {
      const t = Math.min(1, (now - start) / ms);
      const e = t < 0.5 ? 2 * t * t : 1 - (2 - 2 * t) ** 2 / 2;
      leaf.set({
        x: from.x + (to.x - from.x) * e,
        y: from.y + (to.y - from.y) * e + Math.sin(Math.PI * e) * lift,
      });
      if (t < 1) requestAnimationFrame(step);
      else done();
    };
    requestAnimationFrame(step);
    setTimeout(done, ms + 1500); // a frame never comes (a tab hidden meanwhile): end anyway
  });
