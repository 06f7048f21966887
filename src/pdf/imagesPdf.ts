// An image upload (JPEG, PNG, WebP, TIFF with any number of pages, or a ZIP of them: a folder of
// images) made into a PDF of one page per image, each page at the image's own proportions (issue 45), so that everything after it
// (pages, downloads, the reader's marked copy, comparisons) reads a PDF as for any upload.
//
// PDFKit writes the PDF (a maintained library: docs/architecture.md, "Office documents and
// images"). A JPEG goes in as its own bytes (no second lossy pass; PDFKit reads its EXIF
// orientation), and so does a PNG without transparency (its compressed data is copied). What a
// PDF cannot hold as is goes through sharp first: WebP and TIFF pages as JPEG at quality 92 (they
// are photographs or scans), a PNG with transparency flattened on white and kept lossless.
// Pages are sized from the image's own resolution (150 dpi when it says none), at most 200
// inches a side as PDF readers expect.

import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import PDFDocument from 'pdfkit';
import sharp, { type Metadata } from 'sharp';
import { eachZipImage } from './zipImages.ts';

/** The most pages an image upload may hold (a TIFF's frames). */
export const MAX_IMAGE_PAGES = 2000;
/**
 * Decoded pixels one image (one frame) may have: 100 MP, an A3 scan at 600 dpi is 70 (sharp's
 * own default, 268 MP, let a 250 KB TIFF of ten 16000 x 16000 frames hold 3.4 GB in the daemon).
 */
const MAX_PIXELS = 100_000_000;
const DEFAULT_DPI = 150;
/** PDF readers refuse pages over 14,400 points (200 inches) a side. */
const MAX_POINTS = 14_400;

/** An image whose header read and whose data does not. */
const DATA_UNREADABLE = 'The image could not be read: its data is damaged or cut short';

export class ImageUnreadable extends Error {
  override name = 'ImageUnreadable';
}

/**
 * Why an image cannot be pages, in words (unreadable, too many frames, too many pixels), or its
 * header's facts. Nothing is decoded.
 */
const examine = async (input: string): Promise<Metadata | string> => {
  const meta = await sharp(input, { limitInputPixels: false })
    .metadata()
    .catch(() => null);
  if (!meta?.width || !meta.height)
    return 'The image could not be read: it is damaged or cut short';
  const pages = meta.pages ?? 1;
  if (pages > MAX_IMAGE_PAGES) {
    return `The image has ${pages} pages, more than the ${MAX_IMAGE_PAGES} accepted`;
  }
  if (meta.width * meta.height > MAX_PIXELS) {
    const mp = (n: number) => `${Math.round(n / 1_000_000)} megapixels`;
    return `The image has ${mp(meta.width * meta.height)}, more than the ${mp(MAX_PIXELS)} accepted`;
  }
  return meta;
};

/** An image upload's page count (a TIFF's frames), or why it is refused, in words. */
export const imagePages = async (input: string): Promise<number | string> => {
  const meta = await examine(input);
  return typeof meta === 'string' ? meta : (meta.pages ?? 1);
};

/**
 * Writes the PDF of an image upload to `output`: the image at `input`, or, given `zipNames`, the
 * images of the ZIP at `input` in that order (./zipImages.ts), each unpacked into `scratch` in
 * its turn. Resolves with the page count; an image that cannot be a page rejects with
 * ImageUnreadable, naming it.
 */
export const imagesToPdf = async (
  input: string,
  output: string,
  options: {
    signal?: AbortSignal;
    zipNames?: string[];
    scratch?: string;
    /** renditions made on the way (./imageRange.ts takes them) */
    renditions?: Renditions;
  } = {},
): Promise<{ pages: number }> => {
  const doc = new PDFDocument({
    autoFirstPage: false,
    compress: true,
    info: { Producer: 'flipbook' },
  });
  const out = createWriteStream(output);
  // A failed write (a full disk) is kept and thrown once the PDF is closed: an 'error' with
  // no listener would end the process.
  let written: Error | null = null;
  out.on('error', (error) => {
    written ??= error;
  });
  doc.pipe(out);
  let pages = 0;
  // Each page's renditions are made while the next page goes into the PDF: two at a time, so
  // both cores work (sharp runs on libuv's threads).
  const making: Promise<void>[] = [];
  const made = async (work: Promise<void>) => {
    making.push(work);
    if (making.length >= 2) await making.shift();
  };
  // By path, never read whole: a 100-frame TIFF stays on disk, one frame in memory at a time
  // (PDFKit writes each image's data out as it is placed, and lets it go).
  const place = async (file: string, name?: string): Promise<Promise<void>[]> => {
    const renditions: Promise<void>[] = [];
    const meta = await examine(file);
    if (typeof meta === 'string') {
      throw new ImageUnreadable(name ? `${name}: ${lowerFirst(meta)}` : meta);
    }
    const dpi = meta.density && meta.density >= 30 ? meta.density : DEFAULT_DPI;
    for (let page = 0; page < (meta.pages ?? 1); page++) {
      options.signal?.throwIfAborted();
      // Every frame of a TIFF has its own size: each is held to the limit before it is decoded
      // (the header's answer is the first frame's).
      if (page > 0) await frameWithinLimit(file, page, name);
      if (++pages > MAX_IMAGE_PAGES) {
        throw new ImageUnreadable(`More than ${MAX_IMAGE_PAGES} pages: too many images`);
      }
      try {
        const image = await pageImage(file, meta, page);
        const scale = Math.min(72 / dpi, MAX_POINTS / Math.max(image.width, image.height));
        const size: [number, number] = [image.width * scale, image.height * scale];
        doc.addPage({ size, margin: 0 });
        doc.image(image.data, 0, 0, { width: size[0], height: size[1] });
        if (options.renditions) {
          const work = renditionsOf(image.data, pages, options.renditions);
          // (awaited below, with the PDF: a failure there is this image's too)
          work.catch(() => {});
          renditions.push(work);
          await made(work);
        }
      } catch (error) {
        // A header that read and data that does not (sharp's, PDFKit's words): the image's
        // fault; the disk's failures are the machine's.
        if ((error as NodeJS.ErrnoException).code) throw error;
        // (the library's words, "vipspng: libpng read error…", stay the cause's)
        const why = DATA_UNREADABLE;
        throw new ImageUnreadable(name ? `${name}: ${lowerFirst(why)}` : why, { cause: error });
      }
    }
    return renditions;
  };
  try {
    if (options.zipNames) {
      const scratch = options.scratch ?? dirname(output);
      await eachZipImage(
        input,
        options.zipNames,
        (index) => join(scratch, `image-${index}`),
        async (index, file) => {
          const renditions = await place(file, options.zipNames?.[index]);
          // The unpacked image goes once its renditions are made from it.
          // (best effort: the conversion's scratch folder goes whole afterwards)
          void Promise.allSettled(renditions)
            .then(() => rm(file, { force: true }))
            .catch(() => {});
        },
        options.signal,
      );
    } else {
      await place(input);
    }
    await Promise.all(making).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code) throw error;
      throw new ImageUnreadable(DATA_UNREADABLE, { cause: error });
    });
  } finally {
    doc.end();
    if (!out.closed) await once(out, 'close');
    await Promise.allSettled(making);
  }
  if (written) throw written;
  return { pages };
};

/**
 * Where the renditions made on the way go (`<dir>/<position>/<name>.jpg`), and their sizes, the
 * largest first (each smaller one is made from the one before it: decoded once, small).
 */
export type Renditions = {
  dir: string;
  sizes: { name: string; longSide: number; quality: number }[];
};

const renditionsOf = async (source: string | Buffer, position: number, to: Renditions) => {
  const folder = join(to.dir, String(position));
  await mkdir(folder, { recursive: true });
  let from: string | Buffer = source;
  for (const { name, longSide, quality } of to.sizes) {
    // A JPEG is decoded at a fraction of its size (shrink-on-load); EXIF orientation applied.
    const made: Buffer = await sharp(from, { limitInputPixels: MAX_PIXELS })
      .rotate()
      .resize(longSide, longSide, { fit: 'inside' })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality, optimiseCoding: false })
      .toBuffer();
    const file = join(folder, `${name}.jpg`);
    await writeFile(`${file}.part`, made);
    await rename(`${file}.part`, file);
    from = made;
  }
};

const frameWithinLimit = async (file: string, page: number, name?: string) => {
  const frame = await sharp(file, { page, limitInputPixels: false })
    .metadata()
    .catch(() => null);
  const pixels = (frame?.width ?? 0) * (frame?.pageHeight ?? frame?.height ?? 0);
  if (pixels > MAX_PIXELS) {
    const mp = (n: number) => `${Math.round(n / 1_000_000)} megapixels`;
    const why = `Page ${page + 1} of the image has ${mp(pixels)}, more than the ${mp(MAX_PIXELS)} accepted`;
    throw new ImageUnreadable(name ? `${name}: ${lowerFirst(why)}` : why);
  }
};

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

/**
 * One page's image as PDFKit takes it (a JPEG or a PNG), with its upright size in pixels. A
 * JPEG's EXIF orientation is applied by PDFKit, so its size is given upright here.
 */
const pageImage = async (
  input: string,
  meta: Metadata,
  page: number,
): Promise<{ data: string | Buffer; width: number; height: number }> => {
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  const turned = (meta.orientation ?? 1) >= 5;
  if (meta.format === 'jpeg') {
    return { data: input, width: turned ? height : width, height: turned ? width : height };
  }
  if (meta.format === 'png' && !meta.hasAlpha && meta.isProgressive !== true) {
    return { data: input, width, height };
  }
  const one = sharp(input, { page, limitInputPixels: MAX_PIXELS }).rotate();
  const lossless = meta.format === 'png';
  const flat = one.flatten({ background: '#ffffff' });
  const { data, info } = await (lossless
    ? flat.png({ compressionLevel: 6 })
    : flat.jpeg({ quality: 92, chromaSubsampling: '4:4:4' })
  ).toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
};
