// Deep zoom's tiles, one definition for the server that renders them (src/app/pageTiles.ts) and
// the reader that asks for them (src/reader/client/main.ts): level z shows the page 2000 × 2^z
// px on its long side (4,000 to 16,000), cut into squares of TILE px from its top-left corner.

export const TILE = 1024;
export const TILE_LEVELS = 3;

/** A page of `width` × `height` (any unit: its shape) at level z: its size and its tiles. */
export const tileGrid = (width: number, height: number, level: number) => {
  const longSide = 2000 * 2 ** level;
  const ratio = width > 0 && height > 0 ? width / height : 0.75;
  const w = ratio >= 1 ? longSide : Math.max(1, Math.round(longSide * ratio));
  const h = ratio >= 1 ? Math.max(1, Math.round(longSide / ratio)) : longSide;
  return { longSide, width: w, height: h, columns: Math.ceil(w / TILE), rows: Math.ceil(h / TILE) };
};
