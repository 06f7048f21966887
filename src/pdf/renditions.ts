// A page's renditions: each one is pdftoppm's own JPEG at its size, moved into place as it is.
// Page files are served while the rest of the document renders, so each one appears under its
// final name only when complete: pdftoppm's finished file is renamed (atomic on one file system),
// and anything we write ourselves is written beside its name and renamed.
import { rename } from 'node:fs/promises';
import sharp from 'sharp';
import { writeAtomically } from '../atomicFile.ts';
import { jpegSize } from './jpegSize.ts';
import { MEMORY_LIMIT, RenderFailure, storageProblem, withoutPaths } from './renderFailure.ts';

export type RenditionName = 'max' | 'mid' | 'min';

export const RENDITIONS: RenditionName[] = ['max', 'mid', 'min'];

export type RenditionSizes = Record<RenditionName, number>;

export type PageFiles = Record<RenditionName, string>;

/** Letter, for pages whose PDF gives no usable size (a 0x0 MediaBox). */
export const FALLBACK_PAGE = { width: 612, height: 792 };

/** poppler's quality for max (as a person's own pdftoppm run would have it); ours for the others. */
export const QUALITY: Record<RenditionName, number> = { max: 75, mid: 82, min: 82 };

// libvips caches open input files by name: a render's deleted pages would keep their disk space
// (seen on a full disk). Every file here is read once, so the file cache buys nothing.
sharp.cache({ files: 0 });

/**
 * Moves a finished page file to `target`, after checking what poppler made: a 1x1 image is
 * poppler's silent failure (it exits 0 when an allocation failed), a blank page for a page with
 * no size; an image a pixel over its size (`-scale-to` overshoots on some square pages) is
 * scaled down.
 */
export const placeRendition = async (
  file: string,
  target: string,
  longSide: number,
  page: { position: number; sized: boolean; rendition: RenditionName },
) => {
  try {
    const size = jpegSize(file) ?? (await sharp(file).metadata());
    const width = size.width ?? 0;
    const height = size.height ?? 0;
    if (width <= 1 && height <= 1) {
      if (page.sized) throw new RenderFailure(`${MEMORY_LIMIT} (page ${page.position})`);
      await blankPage(target, longSide, page.rendition);
    } else if (Math.max(width, height) > longSide) {
      const limitInputPixels = (longSide + 2) * (longSide + 2);
      await writeAtomically(target, (to) =>
        sharp(file, { limitInputPixels })
          .resize(longSide, longSide, { fit: 'inside' })
          .jpeg({ quality: QUALITY[page.rendition], optimiseCoding: false })
          .toFile(to),
      );
    } else {
      await rename(file, target);
    }
  } catch (error) {
    if (error instanceof RenderFailure) throw error;
    // A full disk is not the document's fault: the caller tries again later.
    const storage = storageProblem(error);
    if (storage) throw storage;
    throw new RenderFailure(
      `Page ${page.position} could not be converted: ${withoutPaths((error as Error).message)}`,
    );
  }
};

/** A white Letter page, for a page whose PDF gives it no size. */
export const blankPage = (target: string, longSide: number, rendition: RenditionName) =>
  writeAtomically(target, (to) =>
    sharp({
      create: {
        width: Math.round((longSide * FALLBACK_PAGE.width) / FALLBACK_PAGE.height),
        height: longSide,
        channels: 3,
        background: '#ffffff',
      },
    })
      .jpeg({ quality: QUALITY[rendition], optimiseCoding: false })
      .toFile(to),
  );
