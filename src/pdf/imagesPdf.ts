// An image upload (JPEG, PNG, WebP, TIFF with any number of pages) made into a PDF of one page
// per image, each page at the image's own proportions (issue 45), so that everything after it
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
import { readFile } from 'node:fs/promises';
import PDFDocument from 'pdfkit';
import sharp, { type Metadata } from 'sharp';

/** The most pages an image upload may hold (a TIFF's frames). */
export const MAX_IMAGE_PAGES = 2000;
/** Decoded pixels one image may have (sharp's own default: 268 MP). */
const MAX_PIXELS = 268_402_689;
const DEFAULT_DPI = 150;
/** PDF readers refuse pages over 14,400 points (200 inches) a side. */
const MAX_POINTS = 14_400;

export class ImageUnreadable extends Error {
  override name = 'ImageUnreadable';
}

/**
 * An image upload's page count from its header (nothing decoded), or why it is refused, in
 * words: unreadable, too many pages, too many pixels.
 */
export const imagePages = async (input: string): Promise<number | string> => {
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
  return pages;
};

/** Writes the PDF of the image at `input` to `output`; resolves with its page count. */
export const imagesToPdf = async (
  input: string,
  output: string,
  options: { signal?: AbortSignal } = {},
): Promise<{ pages: number }> => {
  const bytes = await readFile(input);
  const meta = await sharp(bytes, { limitInputPixels: MAX_PIXELS })
    .metadata()
    .catch((error: Error) => {
      throw new ImageUnreadable(`The image could not be read: ${error.message}`);
    });
  const pages = meta.pages ?? 1;
  if (pages > MAX_IMAGE_PAGES) {
    throw new ImageUnreadable(
      `The image has ${pages} pages, more than the ${MAX_IMAGE_PAGES} accepted`,
    );
  }
  const doc = new PDFDocument({
    autoFirstPage: false,
    compress: true,
    info: { Producer: 'flipbook' },
  });
  const out = createWriteStream(output);
  doc.pipe(out);
  try {
    for (let page = 0; page < pages; page++) {
      options.signal?.throwIfAborted();
      const image = await pageImage(bytes, meta, page);
      const dpi = meta.density && meta.density >= 30 ? meta.density : DEFAULT_DPI;
      const scale = Math.min(72 / dpi, MAX_POINTS / Math.max(image.width, image.height));
      const size: [number, number] = [image.width * scale, image.height * scale];
      doc.addPage({ size, margin: 0 });
      doc.image(image.data, 0, 0, { width: size[0], height: size[1] });
    }
  } finally {
    doc.end();
    await once(out, 'close');
  }
  return { pages };
};

/**
 * One page's image as PDFKit takes it (a JPEG or a PNG), with its upright size in pixels. A
 * JPEG's EXIF orientation is applied by PDFKit, so its size is given upright here.
 */
const pageImage = async (
  bytes: Buffer,
  meta: Metadata,
  page: number,
): Promise<{ data: Buffer; width: number; height: number }> => {
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  const turned = (meta.orientation ?? 1) >= 5;
  if (meta.format === 'jpeg') {
    return { data: bytes, width: turned ? height : width, height: turned ? width : height };
  }
  if (meta.format === 'png' && !meta.hasAlpha && meta.isProgressive !== true) {
    return { data: bytes, width, height };
  }
  const one = sharp(bytes, { page, limitInputPixels: MAX_PIXELS }).rotate();
  const lossless = meta.format === 'png';
  const flat = one.flatten({ background: '#ffffff' });
  const { data, info } = await (lossless
    ? flat.png({ compressionLevel: 6 })
    : flat.jpeg({ quality: 92, chromaSubsampling: '4:4:4' })
  ).toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
};
