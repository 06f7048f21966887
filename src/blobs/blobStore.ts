// The blob store: originals (named by their SHA-256, so a key never changes meaning and an
// identical upload is stored once) and each version's page files. Written once
// (./storeOperations.ts) over a small object-store primitive (./objectStore.ts) that a directory
// (./dirObjects.ts, the default) and an S3-compatible bucket (./s3Objects.ts) implement. Keys are
// made here, from hashes, ids and positions we generate or validate, never from anything a client
// sends.
import type { Readable, Writable } from 'node:stream';
import { BlobStoreUnavailable } from '../domain/errors.ts';
import { logger } from '../log.ts';
import { blobStoreErrors } from '../metrics.ts';
import type { Original, PageFolder, Temporary } from './listing.ts';
import type { OpenedBlob } from './objectStore.ts';

export type { OpenedBlob } from './objectStore.ts';

export type PageFile =
  | 'max.jpg'
  | 'mid.jpg'
  | 'min.jpg'
  | 'text.txt'
  | 'words.json'
  /**
   * a preview's page against the one before it (src/app/comparison.ts): the page before at mid
   * and min size, and this page with the changed areas marked
   */
  | 'before.jpg'
  | 'before-min.jpg'
  | 'diff.jpg'
  /** a tile of the page rendered larger than max.jpg, for deep zoom (src/app/pageTiles.ts) */
  | `tile-${number}-${number}-${number}.jpg`;

/**
 * Where one processing attempt writes. The renderer writes into `dir`, this process's own local
 * folder; each page becomes visible when it is published (a rename into a directory store, an
 * upload to a bucket).
 */
/** The files a finished version has beside its pages. */
export type DocumentFile = 'document.json' | 'lines.json';

export type RenderTarget = {
  dir: string;
  /** makes `dir`, before the renderer writes into it */
  activate: () => Promise<void>;
  /** page `position`'s images in `dir/<position>/` (those rendered now) are complete: make them visible */
  publishPage: (position: number) => Promise<void>;
  /**
   * page `position`'s `files` were published by an earlier attempt, which this one resumes:
   * `verify` checks them with this attempt's own
   */
  adopt: (position: number, files: PageFile[]) => void;
  /** a small file (`<position>/text.txt`, `document.json`), visible only once whole */
  writeFile: (relative: string, content: string) => Promise<void>;
  /**
   * throws (BlobStoreUnavailable) unless everything this attempt published is still there: a
   * folder removed under a render by hand is a render to do again, not a version done without
   * its pages
   */
  verify: () => Promise<void>;
  /** the attempt finished: its local files go */
  finish: () => Promise<void>;
  /** the attempt stops: its unpublished files go (what is published stays) */
  abandon: () => Promise<void>;
  /** on every path, last: local files the attempt held go (the visible ones stay) */
  release: () => Promise<void>;
};

/**
 * An upload on its way into the store; the stream finishes once the bytes are stored. `path` is
 * a local file of the same bytes while the upload is inspected (pdfinfo reads files): the file
 * itself in a directory store, a spooled copy beside a bucket's (gone at commit or discard).
 */
export type Incoming = { ref: string; path: string; stream: Writable };

export type BlobStore = {
  /** for logs: the directory, or s3://bucket/prefix */
  describe: string;
  kind: 'dir' | 's3';
  /**
   * A fresh temporary for an upload, named after its owner (`<host>.<pid>.<uuid>.part`) so a
   * sweep can tell a dead process's leftovers from a live one's upload.
   */
  temporary: () => Promise<Incoming>;
  /** moves a finished temporary to the original's content address */
  commitOriginal: (ref: string, sha256: string) => Promise<void>;
  discard: (ref: string) => Promise<void>;
  /** the original as a local file (poppler reads files) until `release` */
  localOriginal: (sha256: string) => Promise<{ path: string; release: () => Promise<void> }>;
  openOriginal: (sha256: string) => Promise<OpenedBlob | null>;
  removeOriginal: (sha256: string) => Promise<void>;
  renderTarget: (versionId: string, attempt: number) => Promise<RenderTarget>;
  openPageFile: (versionId: string, position: number, file: PageFile) => Promise<OpenedBlob | null>;
  /** a page file's bytes (a page image to compare), or null if there is none */
  readPageBytes: (versionId: string, position: number, file: PageFile) => Promise<Buffer | null>;
  /** a small page file (text.txt, words.json) as text, or null if there is none */
  readPageFile: (versionId: string, position: number, file: PageFile) => Promise<string | null>;
  /**
   * keeps a page file made after processing (words.json on a reader's first search, max.jpg when
   * first asked for or filled in), visible only once whole
   */
  writePageFile: (
    versionId: string,
    position: number,
    file: PageFile,
    content: string | Uint8Array,
  ) => Promise<void>;
  /**
   * the version's document.json (title, direction, outline, page labels, links), or its
   * lines.json (every page's lines, ../pdf/pageLines.ts)
   */
  readDocument: (versionId: string, file?: DocumentFile) => Promise<string | null>;
  /** a preview's compare.json (src/app/comparison.ts), or null if it has none yet */
  readComparison: (versionId: string) => Promise<string | null>;
  writeComparison: (versionId: string, content: string) => Promise<void>;
  /** removes one page file made after processing (a tile the cache evicts); none there is no failure */
  removePageFile: (versionId: string, position: number, file: PageFile) => Promise<void>;
  removePages: (versionId: string) => Promise<void>;
  /** what the sweep looks at (see sweep.ts): temporaries, originals, page folders */
  listTemporaries: () => Promise<Temporary[]>;
  listOriginals: () => Promise<Original[]>;
  listPageFolders: () => Promise<PageFolder[]>;
  /** removes a listed item (a page folder whole) and says how many bytes went */
  removeListed: (ref: string) => Promise<number>;
  /** bytes a listed item holds */
  sizeOfListed: (ref: string) => Promise<number>;
  /** every stored file under its store-independent key, for `flipbook blobs copy` */
  entries: () => AsyncIterable<{ key: string; size: number }>;
  readKey: (key: string) => Promise<Readable>;
  writeKey: (key: string, body: Readable, size: number) => Promise<void>;
  hasKey: (key: string) => Promise<number | null>;
  /**
   * The store's owner mark (`flipbook-store.json` at its root): which installation's database its
   * files belong to. null if unmarked.
   */
  readMark: () => Promise<string | null>;
  writeMark: (content: string) => Promise<void>;
  /** throws unless the store answers and takes writes (readiness) */
  check: () => Promise<void>;
  close: () => Promise<void>;
};

/**
 * The original a version needs is not in the store (removed by hand, a restore without its
 * blobs): no retry will bring it, so processing records it as the version's failure.
 */
export class OriginalMissing extends Error {
  override name = 'OriginalMissing';
  constructor() {
    super('The uploaded PDF is missing from the file store');
  }
}

export const SHA256 = /^[0-9a-f]{64}$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const FILES = new Set([
  'max.jpg',
  'mid.jpg',
  'min.jpg',
  'text.txt',
  'words.json',
  'before.jpg',
  'before-min.jpg',
  'diff.jpg',
]);
/** `tile-<level>-<column>-<row>.jpg` (src/app/pageTiles.ts says which exist) */
export const TILE_FILE = /^tile-[1-3]-\d{1,3}-\d{1,3}\.jpg$/;

/** `originals/ab/<sha256>.pdf`: the same relative key in a directory and in a bucket. */
export const originalKey = (sha256: string) => {
  if (!SHA256.test(sha256)) throw new Error(`not a SHA-256: ${sha256}`);
  return `originals/${sha256.slice(0, 2)}/${sha256}.pdf`;
};

export const versionKey = (versionId: string) => {
  if (!UUID.test(versionId)) throw new Error(`not a version id: ${versionId}`);
  return `pages/${versionId}`;
};

/** `pages/<version>/<position>/<file>` */
export const pageKey = (versionId: string, position: number, file: PageFile) => {
  if (!Number.isInteger(position) || position < 1) throw new Error(`not a page: ${position}`);
  if (!FILES.has(file) && !TILE_FILE.test(file)) throw new Error(`not a page file: ${file}`);
  return `${versionKey(versionId)}/${position}/${file}`;
};

/** Whether a key is one this service makes (what `copy` moves; anything else is left alone). */
export const isStoreKey = (key: string) =>
  /^originals\/([0-9a-f]{2})\/\1[0-9a-f]{62}\.pdf$/.test(key) ||
  /^pages\/[0-9a-f-]{36}\/(?:document\.json|lines\.json|compare\.json|[1-9]\d{0,5}\/(?:max\.jpg|mid\.jpg|min\.jpg|text\.txt|words\.json|before\.jpg|before-min\.jpg|diff\.jpg|tile-[1-3]-\d{1,3}-\d{1,3}\.jpg))$/.test(
    key,
  );

/** Removals whose callers go on without them (the deletion is recorded): logged here. */
const REMOVALS = new Set(['removePages', 'removeOriginal', 'discard']);

const failed = (operation: string, error: unknown) => {
  blobStoreErrors.inc({ operation });
  if (REMOVALS.has(operation)) {
    logger.warn(
      {
        operation,
        cause: error instanceof BlobStoreUnavailable ? error.detail : String(error),
      },
      'the blob store could not remove files: `flipbook blobs gc` (or the next start) will',
    );
  }
};

/**
 * The store with its failures counted by operation (`flipbook_blob_store_errors_total`): a disk
 * filling up or a bucket going away shows in the metrics before anyone reads the logs.
 */
export const counted = (store: BlobStore): BlobStore =>
  Object.fromEntries(
    Object.entries(store).map(([operation, value]) => [
      operation,
      typeof value !== 'function' || operation === 'entries'
        ? value
        : (...args: unknown[]) => {
            try {
              const result = (value as (...a: unknown[]) => unknown)(...args);
              if (result instanceof Promise) {
                return result.catch((error: unknown) => {
                  failed(operation, error);
                  throw error;
                });
              }
              return result;
            } catch (error) {
              failed(operation, error);
              throw error;
            }
          },
    ]),
  ) as BlobStore;
