// Zoom and pan: a scale from 1× to 4× and an offset, applied as one transform to the view that
// holds the pages, so the pages, their links and their highlights grow together. Pinch and
// double-tap on touch screens, Ctrl+wheel (a trackpad pinch is one) or the buttons on desktop,
// always centred where the reader points; drag (or the wheel, once zoomed) pans, never past the
// page's edges. The pages' `sizes` follow the scale, so srcset brings img_max when zoomed.
export const MIN = 1;
export const MAX = 4;

export type Zoom = ReturnType<typeof createZoom>;

export const createZoom = ({
  area,
  view,
  onZoom,
  onSettle,
}: {
  /** the book: the zoom's frame, its size the view's at 1× */
  area: HTMLElement;
  /** what grows and moves */
  view: HTMLElement;
  onZoom: (scale: number) => void;
  onSettle: (scale: number) => void;
}) => {
  let scale = 1;
  let x = 0;
  let y = 0;
  let settle = 0;

  const clampOffset = () => {
    // The view is the size of the area at 1×: zoomed, it may move until its edge meets the area's.
    const w = area.clientWidth;
    const h = area.clientHeight;
    x = Math.min(0, Math.max(w - w * scale, x));
    y = Math.min(0, Math.max(h - h * scale, y));
  };

  const apply = (animate = false) => {
    clampOffset();
    view.classList.toggle('animate', animate);
    view.style.transform = scale === 1 ? '' : `translate(${x}px, ${y}px) scale(${scale})`;
    area.classList.toggle('zoomed', scale > 1);
    onZoom(scale);
    // The bigger images once the gesture rests, not on every frame of it.
    clearTimeout(settle);
    settle = setTimeout(() => onSettle(scale), 120);
  };

  /** Zooms to `next`, keeping the point (px, py) of the area where it is on screen. */
  const zoomAt = (next: number, px: number, py: number, animate = false) => {
    const target = Math.min(MAX, Math.max(MIN, next));
    if (target === 1) {
      x = 0;
      y = 0;
    } else {
      x = px - ((px - x) * target) / scale;
      y = py - ((py - y) * target) / scale;
    }
    scale = target;
    apply(animate);
  };

  const centre = () => ({ px: area.clientWidth / 2, py: area.clientHeight / 2 });

  return {
    get scale() {
      return scale;
    },
    get zoomed() {
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
      if (scale === 1) return;
      scale = 1;
      x = 0;
      y = 0;
      apply(animate);
    },
    /** Double-tap or double-click: in to 2.5× at that point, or back out. */
    toggleAt: (px: number, py: number) => zoomAt(scale > 1.001 ? 1 : 2.5, px, py, true),
    refit: () => apply(),
  };
};
