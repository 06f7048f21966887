// The page curl: a leaf folded along the line halfway between its corner and where that corner
// is now (the pointer, or an animation's path). Worked out in the leaf's own frame, lifting from
// its right edge with the spine at x = 0; a leaf lifting from its left edge is the same mirrored.
// The part of the page beyond the fold shows its back, reflected across the fold; the rest of
// the page stays. Pure geometry here (unit-tested); ./main.ts puts it on the page.

export type Pt = { x: number; y: number };
/** A 2D affine transform as CSS's matrix(a, b, c, d, e, f) takes it. */
export type Matrix = [number, number, number, number, number, number];

export type Fold = {
  /** the page's part still lying flat, in the leaf's frame */
  keep: Pt[];
  /** the part folded over, where it was before folding */
  flap: Pt[];
  /** where the back of the leaf goes: mirrored, then reflected across the fold */
  back: Matrix;
  /** the corner, held where the paper lets it go */
  corner: Pt;
};

/**
 * The corner a leaf W × H held at its top (cy = 0) or bottom (cy = H) corner can reach at `p`:
 * no farther from the spine's end beside it than the page's width, nor from the other end than
 * its diagonal (paper does not stretch).
 */
export const reach = (p: Pt, w: number, h: number, cy: number): Pt => {
  const within = (q: Pt, anchor: Pt, most: number) => {
    const d = Math.hypot(q.x - anchor.x, q.y - anchor.y);
    return d <= most
      ? q
      : {
          x: anchor.x + ((q.x - anchor.x) * most) / d,
          y: anchor.y + ((q.y - anchor.y) * most) / d,
        };
  };
  return within(within(p, { x: 0, y: cy }, w), { x: 0, y: h - cy }, Math.hypot(w, h));
};

/** The points of `polygon` on the side of the line (through m, normal n) where side(x) <= 0. */
const clip = (polygon: Pt[], m: Pt, n: Pt, keepPositive: boolean): Pt[] => {
  const side = (p: Pt) => ((p.x - m.x) * n.x + (p.y - m.y) * n.y) * (keepPositive ? -1 : 1);
  const out: Pt[] = [];
  polygon.forEach((a, i) => {
    const b = polygon[(i + 1) % polygon.length] as Pt;
    const [sa, sb] = [side(a), side(b)];
    if (sa <= 0) out.push(a);
    if ((sa < 0 && sb > 0) || (sa > 0 && sb < 0)) {
      const t = sa / (sa - sb);
      out.push({ x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t });
    }
  });
  return out;
};

/** The fold of a leaf w × h whose corner (w, cy) is pulled to `to`. */
export const fold = (to: Pt, w: number, h: number, cy: number): Fold => {
  const page = [
    { x: 0, y: 0 },
    { x: w, y: 0 },
    { x: w, y: h },
    { x: 0, y: h },
  ];
  const p = reach(to, w, h, cy);
  const length = Math.hypot(w - p.x, cy - p.y);
  if (length < 0.5) return { keep: page, flap: [], back: [1, 0, 0, 1, 0, 0], corner: p };
  const n = { x: (w - p.x) / length, y: (cy - p.y) / length }; // toward the corner
  const m = { x: (w + p.x) / 2, y: (cy + p.y) / 2 };
  // Reflection across the fold (I - 2nnᵀ, then back to m), after mirroring the back page
  // (x -> w - x) so that it is seen from behind.
  const [r11, r12, r22] = [1 - 2 * n.x * n.x, -2 * n.x * n.y, 1 - 2 * n.y * n.y];
  const k = 2 * (m.x * n.x + m.y * n.y);
  const [tx, ty] = [k * n.x, k * n.y];
  return {
    keep: clip(page, m, n, false),
    flap: clip(page, m, n, true),
    back: [-r11, -r12, r12, r22, r11 * w + tx, r12 * w + ty],
    corner: p,
  };
};

/** A polygon as clip-path takes it. */
export const polygon = (points: Pt[]) =>
  points.length ? `polygon(${points.map((p) => `${p.x}px ${p.y}px`).join(',')})` : 'polygon(0 0)';
