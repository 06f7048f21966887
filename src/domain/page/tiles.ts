// Deep zoom's tiles, one definition for the server that renders them (src/app/pageTiles.ts) and
// the reader that asks for them (src/reader/client/readerZoom.ts): level z shows the page 2000 × 2^z
// px on its long side (4,000 to 16,000), cut into squares of TILE px from its top-left corner.
// A page has the levels poppler can render (tileLevels): a JPEG's resolution field holds at most
// 65,535 dpi, so pdftoppm refuses a page whose long side is under ~17.6 pt at 16,000 px (and
// writes an empty file); such a page offers fewer levels, a page under ~4.4 pt none.

export const TILE = 1024;
/** The deepest level any page has. */
export const TILE_LEVELS = 3;
/** The most dots per inch pdftoppm writes in a JPEG (its resolution field is 16 bits). */
export const MAX_JPEG_DPI = 65_535;

/** A page of `width` × `height` (any unit: its shape) at level z: its size and its tiles. */
export const tileGrid = (width: number, height: number, level: number) => {
  const longSide = 2000 * 2 ** level;
  const ratio = width > 0 && height > 0 ? width / height : 0.75;
  const w = ratio >= 1 ? longSide : Math.max(1, Math.round(longSide * ratio));
  const h = ratio >= 1 ? Math.max(1, Math.round(longSide / ratio)) : longSide;
  return { longSide, width: w, height: h, columns: Math.ceil(w / TILE), rows: Math.ceil(h / TILE) };
};

/**
 * The deepest level a page of `width` × `height` PDF points has (0: none). Sizes are stored
 * rounded to the point, so the page may be half a point shorter than said: counted so. A page
 * with no size (0 × 0) has none either: pdftoppm cannot scale it.
 */
export const tileLevels = (width: number, height: number) => {
  const longestPt = Math.max(width, height) - 0.5;
  if (!(longestPt > 0)) return 0;
  let level = 0;
  while (level < TILE_LEVELS && (2000 * 2 ** (level + 1) * 72) / longestPt <= MAX_JPEG_DPI) {
    level += 1;
  }
  return level;
};
