// One tile of a page rendered larger than its largest image, for deep zoom: pdftoppm scales the
// page so its long side is `longSide` pixels and renders only the tile's part of it (-x -y -W -H),
// under the same limits as rendering. The JPEG's bytes, or null when it could not be made (an
// empty file is not a tile: pdftoppm exits 0 with one where it refuses the resolution); a
// MachineFailure when the temporary disk it is made on failed.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { resolve as absolute, join } from 'node:path';
import { type ProcessLimits, runPoppler } from './poppler.ts';
import { machineProblem } from './renderFailure.ts';

const TIMEOUT_MS = 20_000;

export type TileArea = { longSide: number; x: number; y: number; width: number; height: number };

export const renderTile = async (
  pdfPath: string,
  position: number,
  area: TileArea,
  options: { limits: ProcessLimits; quality: number; signal?: AbortSignal },
): Promise<Buffer | null> => {
  const dir = await mkdtemp(join(tmpdir(), `flipbook-tile-${process.pid}-`)).catch(
    (error: unknown) => {
      throw machineProblem(error) ?? error;
    },
  );
  try {
    await runPoppler(
      options.limits,
      {
        tool: 'pdftoppm',
        file: absolute(pdfPath),
        outputPrefix: join(dir, 'tile'),
        options: {
          jpegFile: true,
          jpegOptions: `quality=${options.quality},optimize=y`,
          cropBox: true,
          scalePageTo: area.longSide,
          firstPageToConvert: position,
          lastPageToConvert: position,
          singleFile: true,
          cropXAxis: area.x,
          cropYAxis: area.y,
          cropWidth: area.width,
          cropHeight: area.height,
        },
      },
      {
        signal: AbortSignal.any([
          AbortSignal.timeout(TIMEOUT_MS),
          ...(options.signal ? [options.signal] : []),
        ]),
        maxBytes: 64 * 1024,
      },
    );
    const bytes = await readFile(join(dir, 'tile.jpg'));
    return bytes.length > 0 ? bytes : null;
  } catch (error) {
    // A full TMPDIR is the machine's: said as such (a 503 the log explains), never "busy".
    const machine = machineProblem(error);
    if (machine) throw machine;
    return null;
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => {});
  }
};
