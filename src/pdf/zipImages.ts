// A folder of images, zipped (issue 45: "catalogues are folders of images"): one page per image,
// in the order of their names as people read them (page2 before page10), folders flattened.
// yauzl reads the ZIP (a maintained library: docs/architecture.md, "Images"): its central
// directory from the file, never the whole file in memory, and each entry checked against the
// size its directory declares while it is inflated (a lying directory is an error, not a bomb).
// What is not an image is left out (a `__MACOSX/` folder, `.DS_Store`, `Thumbs.db`, a text file);
// what is an image is told by its name here and by its content when it is made a page.
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import yauzl, { type Entry, type ZipFile } from 'yauzl';

/** The most images one ZIP may hold, and what they may unpack to together. */
export const MAX_ZIP_IMAGES = 2000;
export const MAX_ZIP_IMAGE_BYTES = 1024 * 1024 * 1024;

const IMAGE_NAME = /\.(jpe?g|png|webp|tiff?)$/i;
const IGNORED = /(^|\/)(__MACOSX\/|\.[^/]*$|Thumbs\.db$|desktop\.ini$)/i;

/** An entry of the ZIP could not be unpacked: the file is damaged, or it lied about a size. */
export class ZipDamaged extends Error {
  override name = 'ZipDamaged';
}

export type ZipListing =
  /** an office document or an OpenDocument (their markers): not a folder of images */
  | { kind: 'office' }
  | { kind: 'images'; names: string[]; unpackedBytes: number }
  | { kind: 'refused'; why: string }
  /** not a ZIP yauzl can read (cut short, damaged): ./documentKind.ts says what it is */
  | { kind: 'unreadable'; why: string };

const open = (path: string) =>
  new Promise<ZipFile>((resolve, reject) =>
    yauzl.open(path, { lazyEntries: true, autoClose: false }, (error, zip) =>
      error || !zip ? reject(error ?? new Error('unreadable')) : resolve(zip),
    ),
  );

/** Every entry of a ZIP, from its central directory (at most MAX_ZIP_IMAGES × 5 of them). */
const entries = async (path: string): Promise<Entry[]> => {
  const zip = await open(path);
  try {
    return await new Promise<Entry[]>((resolve, reject) => {
      const all: Entry[] = [];
      zip.on('entry', (entry: Entry) => {
        all.push(entry);
        if (all.length > MAX_ZIP_IMAGES * 5) {
          reject(new Error(`more than ${MAX_ZIP_IMAGES * 5} entries`));
          return;
        }
        zip.readEntry();
      });
      zip.on('end', () => resolve(all));
      zip.on('error', reject);
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
};

/** An entry's size found other than its directory says (yauzl's words), or anything else. */
const unpackFault = (error: Error) =>
  /too many bytes|too few bytes|expected \d+/i.test(error.message)
    ? 'its size is not the one the ZIP file’s directory gives (a damaged or misleading file)'
    : 'the ZIP file is damaged there';

/** yauzl's refusal of an entry's name: one that would leave the folder it is unpacked to. */
const UNSAFE_NAME = /^(?:absolute path|invalid relative path|invalid characters in fileName): /;

/** What a ZIP is: an office file, a folder of images (their names in page order), or refused. */
export const listZip = async (path: string): Promise<ZipListing> => {
  let all: Entry[];
  try {
    all = await entries(path);
  } catch (error) {
    const { message } = error as Error;
    // (entries are never written by their names here, but a name like that is no folder of
    // images a person made: it is refused in words, not as a file of no known kind)
    if (UNSAFE_NAME.test(message)) {
      const name = message.replace(UNSAFE_NAME, '').slice(0, 200);
      return {
        kind: 'refused',
        why: `The ZIP file names an entry by a path that is not safe to unpack (${JSON.stringify(name)}: a “..” or a path from the root): it is not taken`,
      };
    }
    return { kind: 'unreadable', why: `The ZIP file cannot be read: ${message}` };
  }
  if (all.some((e) => e.fileName === '[Content_Types].xml' || e.fileName === 'mimetype')) {
    return { kind: 'office' };
  }
  const images = all.filter(
    (e) => !e.fileName.endsWith('/') && !IGNORED.test(e.fileName) && IMAGE_NAME.test(e.fileName),
  );
  if (images.length === 0) {
    return {
      kind: 'refused',
      why: 'The ZIP file holds no images (JPEG, PNG, WebP, TIFF) and is not an office document',
    };
  }
  if (images.length > MAX_ZIP_IMAGES) {
    return {
      kind: 'refused',
      why: `The ZIP file holds ${images.length} images, more than the ${MAX_ZIP_IMAGES} accepted`,
    };
  }
  const unpackedBytes = images.reduce((sum, e) => sum + e.uncompressedSize, 0);
  if (unpackedBytes > MAX_ZIP_IMAGE_BYTES) {
    const mb = (n: number) => `${Math.round(n / (1024 * 1024))} MB`;
    return {
      kind: 'refused',
      why: `The images unpack to ${mb(unpackedBytes)}, more than the ${mb(MAX_ZIP_IMAGE_BYTES)} accepted`,
    };
  }
  const names = images
    .map((e) => e.fileName)
    .sort(new Intl.Collator('en', { numeric: true, sensitivity: 'base' }).compare);
  return { kind: 'images', names, unpackedBytes };
};

/**
 * Each image of a folder-of-images ZIP, in page order, unpacked to `file(index)` one at a time
 * and handed to `each` (which may remove it): never more than one image on disk beyond the ZIP.
 */
export const eachZipImage = async (
  path: string,
  names: string[],
  file: (index: number) => string,
  each: (index: number, path: string) => Promise<void>,
  signal?: AbortSignal,
) => {
  const byName = new Map((await entries(path)).map((e) => [e.fileName, e]));
  const zip = await open(path);
  try {
    for (const [index, name] of names.entries()) {
      signal?.throwIfAborted();
      const entry = byName.get(name);
      if (!entry) throw new Error(`${name} is missing from the ZIP`);
      const to = file(index);
      try {
        const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) =>
          zip.openReadStream(entry, (error, s) =>
            error || !s ? reject(error ?? new Error('unreadable')) : resolve(s),
          ),
        );
        await pipeline(stream, createWriteStream(to));
      } catch (error) {
        // The disk's failures are the machine's (processing puts the job off); the rest is
        // the ZIP's: a damaged entry, or one larger than its directory said.
        if ((error as NodeJS.ErrnoException).code) throw error;
        // (yauzl's words, "too many bytes in the stream. expected 27972…", stay the cause's)
        throw new ZipDamaged(`${name} cannot be unpacked: ${unpackFault(error as Error)}`, {
          cause: error,
        });
      }
      await each(index, to);
    }
  } finally {
    zip.close();
  }
};
