// Page sizes as a reader sees them: pdfinfo's size per page, turned upright by its /Rotate.
export type PageGeometry = { position: number; width: number; height: number; rotation: number };

/** Parses `pdfinfo -f 1 -l N` output. Sizes are PDF points, rounded; rotation is in degrees. */
export const parsePageSizes = (text: string): PageGeometry[] => {
  const pages = new Map<number, PageGeometry>();
  for (const line of text.split('\n')) {
    const size = /^Page\s+(\d+)\s+size:\s+([\d.]+)\s+x\s+([\d.]+)\s+pts/.exec(line);
    if (size) {
      const position = Number(size[1]);
      const page = pages.get(position) ?? { position, width: 0, height: 0, rotation: 0 };
      page.width = Number(size[2]);
      page.height = Number(size[3]);
      pages.set(position, page);
      continue;
    }
    const rot = /^Page\s+(\d+)\s+rot:\s+(-?\d+)/.exec(line);
    if (rot) {
      const position = Number(rot[1]);
      const page = pages.get(position) ?? { position, width: 0, height: 0, rotation: 0 };
      page.rotation = ((Number(rot[2]) % 360) + 360) % 360;
      pages.set(position, page);
    }
  }
  return [...pages.values()]
    .sort((a, b) => a.position - b.position)
    .map((p) => {
      const sideways = p.rotation === 90 || p.rotation === 270;
      return {
        position: p.position,
        width: Math.round(sideways ? p.height : p.width),
        height: Math.round(sideways ? p.width : p.height),
        rotation: p.rotation,
      };
    });
};
