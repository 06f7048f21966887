// Deep zoom: zoomed past what a page's largest image shows sharply (an image pixel to a screen
// pixel), the tiles of its part on screen at the level that does (src/app/pageTiles.ts makes
// them), over it. A tile that stands in or fails is asked for again a few times (./upgrade.ts).
// Fetched the first time a reader zooms in (./readerZoom.ts): a chunk of its own.
import { TILE, tileGrid, tileLevels } from '../../domain/page/tiles.ts';
import type { Book } from './book.ts';
import { renditionWidths } from './layout.ts';
import { askedAgain, isStandInTile, mayAsk, nextTry, type Tries } from './upgrade.ts';

/** Draws the tiles of the pages on `stage` for the zoom `scale` (none at 1×). */
export type DrawTiles = (scale: number) => void;

export const createTiles = ({
  book,
  stage,
  area,
  zoomNow,
}: {
  book: Book;
  stage: HTMLElement;
  /** the book's box on screen: the tiles in it are asked for */
  area: HTMLElement;
  /** the zoom now (a tile asked again is drawn at the zoom of then) */
  zoomNow: () => number;
}): DrawTiles => {
  /** Tiles that stood in or failed, by page and name: when to ask again (null: no more). */
  const tileTries = new Map<string, Tries | null>();

  const drawTiles = (scale: number) => {
    const screen = area.getBoundingClientRect();
    for (const figure of stage.querySelectorAll<HTMLElement>('.stage > figure[data-n]')) {
      const n = Number(figure.dataset.n);
      const page = book.pages.get(n);
      const img = figure.querySelector('img');
      if (!page || !img) continue;
      let layer = figure.querySelector('.tiles');
      if (!layer) {
        layer = document.createElement('div');
        layer.className = 'tiles';
        img.after(layer);
      }
      const r = figure.getBoundingClientRect();
      const need = (r.width * devicePixelRatio) / (renditionWidths(page.w, page.h)[2] ?? 1);
      // The levels poppler can render this page at (a page under ~17.6 pt has fewer, src/domain/page/tiles.ts).
      const deepest = tileLevels(page.w, page.h);
      const level = scale > 1.001 ? Math.min(deepest, Math.ceil(Math.log2(need))) : 0;
      const wanted = new Set<string>();
      const grid = tileGrid(page.w, page.h, level);
      // the tiles from `from` to `to` (px from the page's edge on screen, of `size`; `full` px at
      // this level) along one axis
      const span = (from: number, to: number, size: number, full: number) => [
        Math.max(0, Math.floor(((from / size) * full) / TILE)),
        Math.min(Math.ceil(full / TILE), Math.ceil(((to / size) * full) / TILE)) - 1,
      ];
      const [c0 = 0, c1 = -1] = span(
        screen.left - r.left,
        screen.right - r.left,
        r.width,
        grid.width,
      );
      const [r0 = 0, r1 = -1] = span(
        screen.top - r.top,
        screen.bottom - r.top,
        r.height,
        grid.height,
      );
      for (let c = c0; level > 0 && c <= c1; c++) {
        for (let row = r0; row <= r1; row++) {
          const name = `tile-${level}-${c}-${row}.jpg`;
          const asked = `${n}/${name}`;
          wanted.add(name);
          if (layer.querySelector(`[data-t="${name}"]`)) continue;
          // One that stood in lately waits its turn; one given up on is not asked for again.
          if (!mayAsk(tileTries.get(asked), performance.now())) continue;
          const tile = new Image();
          tile.dataset.t = name;
          tile.alt = '';
          // in percent of the page; the last column and row are narrower
          const at = (px: number, size: number) => `${(px / size) * 100}%`;
          const [x, y] = [c * TILE, row * TILE];
          const expected = {
            w: Math.min(TILE, grid.width - x),
            h: Math.min(TILE, grid.height - y),
          };
          Object.assign(tile.style, {
            left: at(x, grid.width),
            top: at(y, grid.height),
            width: at(expected.w, grid.width),
            height: at(expected.h, grid.height),
          });
          // Not there yet: the server sent the page's image (which is under the tiles already) or
          // refused (a 503). Asked again later, a few times (./upgrade.ts).
          const again = () => {
            tile.remove();
            const next = nextTry(tileTries.get(asked) ?? undefined, performance.now());
            tileTries.set(asked, next);
            if (next) setTimeout(() => drawTiles(zoomNow()), next.notBefore - performance.now());
          };
          tile.onerror = again;
          tile.onload = () => {
            const natural = { w: tile.naturalWidth, h: tile.naturalHeight };
            if (isStandInTile(natural, expected)) again();
            else tileTries.delete(asked);
          };
          const tries = tileTries.get(asked)?.tries ?? 0;
          tile.src = tries > 0 ? askedAgain(book.url(n, name), tries) : book.url(n, name);
          layer.append(tile);
        }
      }
      for (const old of layer.querySelectorAll<HTMLElement>('img')) {
        if (!wanted.has(old.dataset.t ?? '')) old.remove();
      }
    }
  };
  return drawTiles;
};
