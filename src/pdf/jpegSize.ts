// A JPEG's pixel size from its header, without decoding it: every rendered page is checked (poppler
// "succeeds" with a 1x1 image when it runs out of memory), three files a page, so the check must
// cost next to nothing. pdftoppm writes SOI, JFIF, the tables, then the frame header: all within
// the first few hundred bytes.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** pdftoppm's frame header comes within the first kilobyte; sharp reads what this misses. */
const HEAD_BYTES = 4096;

export type PixelSize = { width: number; height: number };

/**
 * The frame's size, or null when the file is not a JPEG whose header we can read. Read with
 * synchronous calls: the file was written a moment ago (its first page is in memory), and three
 * asynchronous calls a file cost the daemon ~0.1 s of CPU over the why3 manual's 552 files.
 */
export const jpegSize = (file: string): PixelSize | null => {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(HEAD_BYTES);
    const bytesRead = readSync(fd, head, 0, HEAD_BYTES, 0);
    return frameSize(head.subarray(0, bytesRead));
  } finally {
    closeSync(fd);
  }
};

export const frameSize = (bytes: Uint8Array): PixelSize | null => {
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) return null;
  let at = 2;
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1] as number;
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    const length = ((bytes[at + 2] as number) << 8) | (bytes[at + 3] as number);
    // SOF0-SOF15, except DHT (C4), JPG (C8) and DAC (CC), which share the range
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      const height = ((bytes[at + 5] as number) << 8) | (bytes[at + 6] as number);
      const width = ((bytes[at + 7] as number) << 8) | (bytes[at + 8] as number);
      return { width, height };
    }
    if (marker === 0xda || marker === 0xd9) return null; // scan data before any frame header
    at += 2 + length;
  }
  return null;
};

/**
 * Whether a JPEG being written is complete: it ends with the EOI marker (FF D9). pdftoppm writes
 * through a stdio buffer, so a partial file ends at a 4 KB boundary; FF D9 cannot end one by
 * chance, because in the coded data every FF byte is followed by 00 (or a restart marker, which
 * pdftoppm does not write), and the tables before it all fit in the first buffer.
 */
export const endsJpeg = (file: string): boolean => {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return false;
  }
  try {
    const { size } = fstatSync(fd);
    if (size < 4) return false;
    const tail = Buffer.alloc(2);
    readSync(fd, tail, 0, 2, size - 2);
    return tail[0] === 0xff && tail[1] === 0xd9;
  } finally {
    closeSync(fd);
  }
};
