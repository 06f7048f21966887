// An image book's range of pages at one size (issue 45): each page of a PDF that imagesToPdf
// made is one image, so its rendition is that image made smaller, not the page drawn again.
// pdfimages takes the page's image out as it is (a JPEG's own bytes, EXIF orientation and all;
// anything else as PNG), and sharp makes the rendition of it: a JPEG is decoded straight at a
// fraction of its size (shrink-on-load), where pdftoppm decodes 12 megapixels and then scales
// them down (bench/imageBook.ts). The same contract as a pdftoppm range (./renderRange.ts): files
// in page order to `onFile`, `cut` to leave the last pages to another process, stopped by
// `signal` between pages.
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { runPoppler } from './poppler.ts';
import { RenderFailure } from './renderFailure.ts';
import type { RangeOptions, RangeRun } from './renderRange.ts';

/** The most pixels a page's image may have (imagesToPdf refused larger ones already). */
const MAX_PIXELS = 268_402_689;

export const startImageRange = (options: RangeOptions): RangeRun => {
  const state = { first: options.first, last: options.last, next: options.first };
  const renderPage = async (position: number) => {
    const dir = join(options.dir, `page-${position}`);
    await mkdir(dir, { recursive: true });
    await runPoppler(
      options.limits,
      {
        tool: 'pdfimages',
        file: options.pdfPath,
        outputPrefix: join(dir, 'image'),
        options: {
          firstPageToConvert: position,
          lastPageToConvert: position,
          jpegFile: true,
          pngFile: true,
        },
      },
      { signal: options.signal, maxBytes: 64 * 1024 },
    );
    const [image] = (await readdir(dir)).sort();
    if (!image) throw new RenderFailure(`Page ${position} has no image`);
    const file = join(options.dir, `${position}.jpg`);
    await sharp(join(dir, image), { limitInputPixels: MAX_PIXELS })
      .rotate()
      .resize(options.longSide, options.longSide, { fit: 'inside' })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: options.quality, optimiseCoding: false })
      .toFile(file);
    await rm(dir, { recursive: true, force: true });
    return file;
  };
  const done = (async () => {
    await mkdir(options.dir, { recursive: true });
    for (let position = state.first; position <= state.last; position++) {
      options.signal.throwIfAborted();
      await options.onFile(position, await renderPage(position));
      state.next = position + 1;
    }
  })();
  return {
    get first() {
      return state.first;
    },
    get last() {
      return state.last;
    },
    get next() {
      return state.next;
    },
    cut: (from) => {
      if (from > state.next && from <= state.last) state.last = from - 1;
    },
    done,
  };
};
