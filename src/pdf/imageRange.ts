// An image book's range of pages at one size (issue 45): each page of a PDF that imagesToPdf
// made is one image, so its rendition is that image made smaller, not the page drawn again.
// pdfimages takes the page's image out as it is (a JPEG's own bytes, EXIF orientation and all;
// anything else as PNG), and sharp makes the rendition of it: a JPEG is decoded straight at a
// fraction of its size (shrink-on-load), where pdftoppm decodes 12 megapixels and then scales
// them down (bench/imageBook.ts). The same contract as a pdftoppm range (./renderRange.ts): files
// in page order to `onFile`, `cut` to leave the last pages to another process, stopped by
// `signal` between pages. A page's image is taken out once for all its renditions, and an
// image book has no text to extract (renderPdf skips pdftotext for it).
import { access, copyFile, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { type ProcessLimits, runPoppler } from './poppler.ts';
import { RenderFailure } from './renderFailure.ts';
import { type RangeOptions, type RangeRun, rangeRun } from './renderRange.ts';

/** The most pixels a page's image may have (imagesToPdf refused larger ones already). */
const MAX_PIXELS = 268_402_689;

/**
 * Each page's image, taken out of the PDF once for all its renditions (each rendition's range
 * asks for it; the first ask extracts it), and removed once the page is done.
 */
export const pageImages = (limits: ProcessLimits, pdfPath: string, dir: string) => {
  const taken = new Map<number, Promise<string>>();
  const extract = async (position: number, signal: AbortSignal) => {
    const folder = join(dir, `page-${position}`);
    await mkdir(folder, { recursive: true });
    await runPoppler(
      limits,
      {
        tool: 'pdfimages',
        file: pdfPath,
        outputPrefix: join(folder, 'image'),
        options: {
          firstPageToConvert: position,
          lastPageToConvert: position,
          jpegFile: true,
          pngFile: true,
        },
      },
      { signal, maxBytes: 64 * 1024 },
    );
    const [image] = (await readdir(folder)).sort();
    if (!image) throw new RenderFailure(`Page ${position} has no image`);
    return join(folder, image);
  };
  return {
    of: (position: number, signal: AbortSignal) => {
      let image = taken.get(position);
      if (!image) {
        image = extract(position, signal);
        // A failed extraction is not kept: the range that retries (a cut range's taker) tries again.
        image.catch(() => taken.delete(position));
        taken.set(position, image);
      }
      return image;
    },
    /** the page is done: its image goes */
    forget: async (position: number) => {
      taken.delete(position);
      // Best effort, never a rejection: the render's work folder goes whole at its end.
      await rm(join(dir, `page-${position}`), { recursive: true, force: true }).catch(() => {});
    },
  };
};
export type PageImages = ReturnType<typeof pageImages>;

export const startImageRange = (
  options: RangeOptions & {
    images: PageImages;
    /** where this rendition of a page may have been made already (`{position}` in it) */
    made?: string;
  },
): RangeRun => {
  const renderPage = async (position: number) => {
    const made = options.made?.replace('{position}', String(position));
    if (
      made &&
      (await access(made).then(
        () => true,
        () => false,
      ))
    ) {
      // Copied into the range's own folder: the one it was made in may be on another disk (a
      // rename across them fails), and the render's files are moved from there.
      const file = join(options.dir, `${position}.jpg`);
      await mkdir(options.dir, { recursive: true });
      await copyFile(made, file);
      return file;
    }
    const image = await options.images.of(position, options.signal);
    const file = join(options.dir, `${position}.jpg`);
    await mkdir(options.dir, { recursive: true });
    await sharp(image, { limitInputPixels: MAX_PIXELS })
      .rotate()
      .resize(options.longSide, options.longSide, { fit: 'inside' })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: options.quality, optimiseCoding: false })
      .toFile(file);
    return file;
  };
  return rangeRun(options, async (state) => {
    for (let position = state.first; position <= state.last; position++) {
      options.signal.throwIfAborted();
      await options.onFile(position, await renderPage(position));
      state.next = position + 1;
    }
  });
};
