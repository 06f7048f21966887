// The zoom (./zoom.ts) on the reader's page: the zoom buttons follow the scale; once it rests the
// images' sizes follow it (srcset brings img_max) and so do deep zoom's tiles (./deepZoom.ts, a
// chunk fetched the first time a reader zooms in); it goes as far as the largest tiles stay sharp.
import { tileGrid, tileLevels } from '../../domain/page/tiles.ts';
import type { Beacon } from './beacon.ts';
import type { Book } from './book.ts';
import type { DrawTiles } from './deepZoom.ts';
import { type Dom, one } from './dom.ts';
import { imageSizes } from './layout.ts';
import { createZoom, MAX, type Zoom } from './zoom.ts';

export const createReaderZoom = ({
  book,
  beacon,
  dom: { area, view, stage },
}: {
  book: Book;
  beacon: Beacon;
  dom: Dom;
}): Zoom => {
  /** Deep zoom's tiles, fetched the first time a reader zooms in; see ./searchOnUse.ts. */
  let tiles: Promise<DrawTiles | null> | undefined;
  const loadTiles = () =>
    import('./deepZoom.ts').then(
      (m) => m.createTiles({ book, stage, area, zoomNow: () => zoom.scale }),
      () => null,
    );

  let wasZoomed = false;
  const zoom = createZoom({
    area,
    view,
    onSettle: (scale) => {
      // srcset picks img_max once the page is shown big enough to need it.
      for (const img of stage.querySelectorAll<HTMLImageElement>('img[data-n]')) {
        const width = img.parentElement?.getBoundingClientRect().width ?? 0;
        img.sizes = imageSizes(width);
      }
      // (at 1× there are no tiles: none to draw or to take away until a reader zooms in)
      if (scale > 1.001) tiles ??= loadTiles();
      tiles?.then((draw) => {
        if (draw) draw(scale);
        else tiles = undefined; // its module did not come: asked again at the next zoom
      });
    },
    // As far as the largest tiles stay sharp (16,000 px on the page's long side), at least 4×.
    most: () => {
      const page = stage.querySelector<HTMLElement>('.stage > figure[data-n]');
      const size = book.pages.get(Number(page?.dataset.n));
      if (!page || !size) return MAX;
      const { width } = tileGrid(size.w, size.h, tileLevels(size.w, size.h));
      return Math.min(16, Math.max(MAX, width / (page.offsetWidth * devicePixelRatio)));
    },
    onZoom: (scale, zoomed) => {
      if (zoomed && !wasZoomed) beacon.record({ k: 'zoom' }); // each time a reader zooms in
      wasZoomed = zoomed;
      one<HTMLButtonElement>('[data-action="zoom-out"]').disabled = !zoomed;
      one('[data-action="zoom-reset"]').hidden = !zoomed;
      // (below MAX, under every page's most: its figure is not measured, a jump lays out once)
      one<HTMLButtonElement>('[data-action="zoom-in"]').disabled =
        scale >= MAX * 0.999 && scale >= zoom.max * 0.999;
      area.tabIndex = zoomed ? 0 : -1;
    },
    bounds: () => {
      // The pages' place at 1×, from their boxes on screen and the view's scale as drawn (offsets
      // would be whole pixels: half a pixel off is two at 4×).
      const v = view.getBoundingClientRect();
      const s = v.width / (view.offsetWidth || 1);
      const box = { l: Infinity, t: Infinity, r: -Infinity, b: -Infinity };
      for (const page of stage.querySelectorAll<HTMLElement>('.stage > figure')) {
        const r = page.getBoundingClientRect();
        box.l = Math.min(box.l, (r.left - v.left) / s);
        box.t = Math.min(box.t, (r.top - v.top) / s);
        box.r = Math.max(box.r, (r.right - v.left) / s);
        box.b = Math.max(box.b, (r.bottom - v.top) / s);
      }
      return box.r > box.l ? box : null;
    },
  });
  return zoom;
};
