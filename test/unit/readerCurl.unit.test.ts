// The page curl's geometry (src/reader/client/curl.ts): where the fold falls, what stays flat and
// what folds over, where the leaf's back goes, and how far paper lets the corner go.
import { describe, expect, it } from 'vitest';
import { fold, type Matrix, type Pt, reach } from '../../src/reader/client/curl.ts';

const apply = ([a, b, c, d, e, f]: Matrix, p: Pt) => ({
  x: a * p.x + c * p.y + e,
  y: b * p.x + d * p.y + f,
});
const area = (points: Pt[]) =>
  Math.abs(
    points.reduce((s, p, i) => {
      const q = points[(i + 1) % points.length] as Pt;
      return s + p.x * q.y - q.x * p.y;
    }, 0),
  ) / 2;
const W = 400;
const H = 600;

describe('the page curl', () => {
  it('lies flat with its corner at rest, and is turned over with it at the spine’s mirror', () => {
    const flat = fold({ x: W, y: H }, W, H, H);
    expect(area(flat.keep)).toBeCloseTo(W * H);
    expect(flat.flap).toEqual([]);
    const over = fold({ x: -W, y: H }, W, H, H);
    expect(area(over.keep)).toBeCloseTo(0);
    expect(area(over.flap)).toBeCloseTo(W * H);
  });

  it('folds along the line halfway between the corner and the pointer, the two parts the whole page', () => {
    const f = fold({ x: 250, y: 500 }, W, H, H);
    expect(area(f.keep) + area(f.flap)).toBeCloseTo(W * H);
    expect(area(f.flap)).toBeGreaterThan(0);
    // the back's corner (at x = 0 once mirrored) lands on the pointer
    const corner = apply(f.back, { x: 0, y: H });
    expect(corner.x).toBeCloseTo(250);
    expect(corner.y).toBeCloseTo(500);
    // points on the fold stay where they are: the back meets the front there
    for (const p of f.flap.filter((q) =>
      f.keep.some((k) => Math.hypot(k.x - q.x, k.y - q.y) < 1e-6),
    )) {
      const mirrored = { x: W - p.x, y: p.y };
      const landed = apply(f.back, mirrored);
      expect(landed.x).toBeCloseTo(p.x);
      expect(landed.y).toBeCloseTo(p.y);
    }
  });

  it('never lets the corner farther from the spine than the paper reaches', () => {
    const p = reach({ x: -2000, y: 2000 }, W, H, H);
    expect(Math.hypot(p.x, p.y - H)).toBeLessThanOrEqual(W + 1e-6);
    const top = reach({ x: 5000, y: -5000 }, W, H, 0);
    expect(Math.hypot(top.x, top.y)).toBeLessThanOrEqual(W + 1e-6);
    expect(Math.hypot(top.x, top.y - H)).toBeLessThanOrEqual(Math.hypot(W, H) + 1e-6);
    expect(reach({ x: 300, y: 550 }, W, H, H)).toEqual({ x: 300, y: 550 });
  });
});
