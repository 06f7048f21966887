// Zoom and pan: a scale and an offset, applied as one transform to the view that holds the
// pages, so the pages, their links and their highlights grow together. Pinch and double-tap on
// touch screens, Ctrl+wheel (a trackpad pinch is one) or the buttons on desktop, always centred
// where the reader points; drag (or the wheel, once zoomed) pans within the pages: where they
// are larger than the book their edges never come inside it, where smaller they stay wholly on
// screen. The pages' `sizes` follow the scale, so srcset brings img_max when zoomed.
//
// The scale starts from a base: 1 (the pages fit the book), or more on a phone held sideways,
// where a page is fitted to the width and read from its top down (the drag pans it).
/** Zoomed in at most this much, or more where the page needs it (`most`: a strip, a poster). */
export const MAX = 4;

export type Zoom = ReturnType<typeof createZoom>;

type Box = { l: number; t: number; r: number; b: number };

export const createZoom = ({
  area,
  view,
  onZoom,
  onSettle,
  bounds,
  most = () => MAX,
}: {
  /** the book: the zoom's frame, its size the view's at 1× */
  area: HTMLElement;
  /** what grows and moves */
  view: HTMLElement;
  onZoom: (scale: number, zoomed: boolean) => void;
  onSettle: (scale: number) => void;
  /** the pages' box in the area at 1× (null: none shown) */
  bounds: () => Box | null;
  /** how far the pages may be zoomed in (at least MAX) */
  most?: () => number;
}) => {
  let base = 1;
  let scale = 1;
  let x = 0;
  let y = 0;
  let settle = 0;

  const box = (): Box => bounds() ?? { l: 0, t: 0, r: area.clientWidth, b: area.clientHeight };

  /** An offset along one axis that keeps the pages (from lo to hi at 1×) where they belong. */
  const within = (offset: number, size: number, lo: number, hi: number) => {
    const [a, b] = [lo * scale, hi * scale];
    return b - a >= size
      ? Math.min(-a, Math.max(size - b, offset))
      : Math.min(size - b, Math.max(-a, offset));
  };

  const apply = (animate = false) => {
    if (scale === 1) {
      // Not moved at 1×: nothing to measure (a jump lays its new pages out once, not twice).
      x = 0;
      y = 0;
    } else {
      const { l, t, r, b } = box();
      x = within(x, area.clientWidth, l, r);
      y = within(y, area.clientHeight, t, b);
    }
    view.classList.toggle('animate', animate);
    view.style.transform = scale === 1 ? '' : `translate(${x}px, ${y}px) scale(${scale})`;
    area.classList.toggle('zoomed', zoom.zoomed);
    onZoom(scale, zoom.zoomed);
    // The bigger images once the gesture rests, not on every frame of it.
    clearTimeout(settle);
    settle = setTimeout(() => onSettle(scale), 120);
  };

  /** Zooms to `next`, keeping the point (px, py) of the area where it is on screen. */
  const zoomAt = (next: number, px: number, py: number, animate = false) => {
    const target = Math.min(zoom.max, Math.max(base, next));
    x = px - ((px - x) * target) / scale;
    y = py - ((py - y) * target) / scale;
    scale = target;
    apply(animate);
  };

  /** Back to the base: the pages centred, from their top. */
  const home = (animate = false) => {
    scale = base;
    if (base !== 1) {
      const { l, t, r } = box();
      x = (area.clientWidth - base * (l + r)) / 2;
      y = -base * t;
    }
    apply(animate);
  };

  const centre = () => ({ px: area.clientWidth / 2, py: area.clientHeight / 2 });

  const zoom = {
    get scale() {
      return scale;
    },
    /** zoomed in past the base */
    get zoomed() {
      return scale > base * 1.001;
    },
    get max() {
      // (`most` is of the page at 1×: a base already on the way counts toward it)
      return Math.max(most(), MAX * base);
    },
    /** whether a drag moves the pages: zoomed, or a page taller than the book at its base */
    get pannable() {
      return scale > 1.001;
    },
    zoomAt,
    panBy: (dx: number, dy: number) => {
      x += dx;
      y += dy;
      apply();
    },
    zoomIn: () => {
      const { px, py } = centre();
      zoomAt(scale * 1.5, px, py, true);
    },
    zoomOut: () => {
      const { px, py } = centre();
      zoomAt(scale / 1.5, px, py, true);
    },
    reset: (animate = true) => {
      if (zoom.zoomed) home(animate);
    },
    /** The scale the pages start from; the view goes back to it (a new page, a new shape). */
    setBase: (next: number) => {
      if (next === base && zoom.zoomed) return apply(); // the reader's own zoom stays
      base = next;
      home();
    },
    /** Double-tap or double-click: in to 2.5× at that point, or back out. */
    toggleAt: (px: number, py: number) =>
      zoom.zoomed ? home(true) : zoomAt(scale * 2.5, px, py, true),
    refit: () => apply(),
  };
  return zoom;
};
