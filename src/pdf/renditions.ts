// The three renditions of a rendered page: poppler's JPEG is max (re-encoded only if it
// overshot the size), mid is derived from it with sharp, min from mid.
// Page files are served while the rest of the document renders, so each one appears under its
// final name only when complete: it is written beside it and renamed (atomic on one file system).
import { mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { writeAtomically } from '../atomicFile.ts';
import type { PageGeometry } from './pageSizes.ts';
import { RenderFailure, storageProblem, withoutPaths } from './renderFailure.ts';
import type { RenderedPage } from './renderPdf.ts';

export type RenditionSizes = { max: number; mid: number; min: number };

export type PageFiles = { max: string; mid: string; min: string };

/** Letter, for pages whose PDF gives no usable size (a 0x0 MediaBox). */
const FALLBACK_PAGE = { width: 612, height: 792 };
const JPEG = { quality: 82, optimiseCoding: false } as const;

// libvips caches open input files by name: a render's deleted pages would keep their disk space
// (seen on a full disk). Every file here is read once, so the file cache buys nothing.
sharp.cache({ files: 0 });

export const deriveRenditions = async (
  file: string,
  outDir: string,
  position: number,
  geometry: PageGeometry | undefined,
  sizes: RenditionSizes,
): Promise<RenderedPage> => {
  const dir = join(outDir, String(position));
  await mkdir(dir, { recursive: true });
  const files = { max: join(dir, 'max.jpg'), mid: join(dir, 'mid.jpg'), min: join(dir, 'min.jpg') };
  // poppler's -scale-to can overshoot by a pixel (2001x2000 for some square pages).
  const limitInputPixels = (sizes.max + 2) * (sizes.max + 2);
  try {
    return await derive(file, files, position, geometry, sizes, limitInputPixels);
  } catch (error) {
    if (error instanceof RenderFailure) throw error;
    // A full disk is not the document's fault: the caller tries again later.
    const storage = storageProblem(error);
    if (storage) throw storage;
    throw new RenderFailure(
      `Page ${position} could not be converted: ${withoutPaths((error as Error).message)}`,
    );
  }
};

const derive = async (
  file: string,
  files: PageFiles,
  position: number,
  geometry: PageGeometry | undefined,
  sizes: RenditionSizes,
  limitInputPixels: number,
): Promise<RenderedPage> => {
  const meta = await sharp(file, { limitInputPixels }).metadata();
  let size = { width: geometry?.width ?? 0, height: geometry?.height ?? 0 };

  if (size.width <= 0 || size.height <= 0) size = FALLBACK_PAGE;
  if ((meta.width ?? 0) <= 1 && (meta.height ?? 0) <= 1) {
    // pdftoppm "succeeds" with a 1x1 image when it could not render. A page with no size at all
    // (0x0 MediaBox) becomes a blank Letter page; a real page that failed is a failure.
    if (geometry && geometry.width > 0 && geometry.height > 0) {
      throw new RenderFailure(
        `Page ${position} could not be rendered: the renderer hit its memory or size limit`,
      );
    }
    await blankPage(file, sizes.max);
  }

  // mid: a full-size decode (fastShrinkOnLoad off) rather than libjpeg's 1/2-scale decode, which
  // costs as much or more (bench/derive.ts), then lanczos3: a linear reduce is a little cheaper
  // but visibly greys and softens text. min comes from mid, not from max: decoding a 1000 px JPEG
  // costs a quarter of a 2000 px one. (Handing mid's pixels to JavaScript to encode both from one
  // decode cost more in garbage collection than the second decode saves.)
  await writeAtomically(files.mid, (to) =>
    sharp(file, { limitInputPixels })
      .resize(sizes.mid, sizes.mid, { fit: 'inside', fastShrinkOnLoad: false })
      .jpeg(JPEG)
      .toFile(to),
  );
  await writeAtomically(files.min, (to) =>
    sharp(files.mid).resize(sizes.min, sizes.min, { fit: 'inside' }).jpeg(JPEG).toFile(to),
  );
  if (Math.max(meta.width ?? 0, meta.height ?? 0) > sizes.max) {
    // pdftoppm's -scale-to overshoots by a pixel on some square pages (2001x2000).
    await writeAtomically(files.max, (to) =>
      sharp(file, { limitInputPixels })
        .resize(sizes.max, sizes.max, { fit: 'inside' })
        .jpeg(JPEG)
        .toFile(to),
    );
  } else {
    // poppler's finished file, on the same file system: the rename is the atomic step.
    await rename(file, files.max);
  }
  return { position, width: size.width, height: size.height, files, text: '' };
};

export const blankPage = (file: string, longSide: number) =>
  sharp({
    create: {
      width: Math.round((longSide * FALLBACK_PAGE.width) / FALLBACK_PAGE.height),
      height: longSide,
      channels: 3,
      background: '#ffffff',
    },
  })
    .jpeg(JPEG)
    .toFile(file);
