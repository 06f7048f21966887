// The object-store primitive under the blob store: a handful of operations on keys, which a
// directory (./dirObjects.ts) and an S3-compatible bucket (./s3Objects.ts) each implement once.
// Everything the service does with files (originals by checksum, renders published page by page,
// the sweep's listings, copies between stores) is written once over it, in ./storeOperations.ts.
// Keys are `/`-separated and relative to the store's root (a bucket's prefix is the primitive's
// business); they are made by the service, never taken from a client.
import type { Readable, Writable } from 'node:stream';

/** A stored file opened for sending: its validators, and its bytes on demand. */
export type OpenedBlob = {
  size: number;
  etag: string;
  lastModified: Date;
  /** bytes start..end (inclusive), exactly these: the object the validators describe */
  read: (start: number, end: number) => Promise<Readable>;
  close: () => Promise<void>;
};

export type StoredObject = { key: string; size: number; mtimeMs: number };

export type ObjectStore = {
  /** for logs: the directory, or s3://bucket/prefix */
  describe: string;
  kind: 'dir' | 's3';
  /**
   * This process's own local folder for renders and spools, removed at close (and by the next
   * process on this host if this one is killed). On the store's own file system when it has one,
   * so that `putFile` is a rename.
   */
  scratch: string;
  head: (key: string) => Promise<StoredObject | null>;
  /** validators and ranged reads of one unchanging object, or null if there is none */
  open: (key: string) => Promise<OpenedBlob | null>;
  /** a small object whole, or null if there is none */
  get: (key: string) => Promise<Buffer | null>;
  /** stores bytes under `key`: readers see the old object or the whole new one, never a part */
  put: (key: string, body: Uint8Array | string) => Promise<void>;
  /** the local file at `path` becomes the object (as `put`); the file is gone afterwards */
  putFile: (key: string, path: string) => Promise<void>;
  /**
   * A stream into `key`, complete once the stream finishes and absent if it is destroyed. Only
   * for temporaries: a directory writes in place, so readers could see it partial. `spool`: a
   * local copy of the bytes is written there too (a store with no local file of its own).
   */
  upload: (key: string, spool?: string) => Promise<Writable>;
  /** `from` under `to`, durably (acknowledged data); `from` is gone afterwards */
  move: (from: string, to: string) => Promise<void>;
  /** every object whose key starts with `prefix`, in no particular order */
  list: (prefix: string) => AsyncIterable<StoredObject>;
  /** the names one level below `prefix` (which ends in `/`) that hold objects */
  folders: (prefix: string) => Promise<string[]>;
  /** removes an object; one that is not there is no failure */
  remove: (key: string) => Promise<void>;
  /** removes every object under `prefix` (which ends in `/`); the bytes they held */
  removeAll: (prefix: string) => Promise<number>;
  /** the object as a local file tools can read in place, or null if the store has none */
  localPath: (key: string) => string | null;
  /** throws unless the store answers and takes writes (readiness) */
  check: () => Promise<void>;
  close: () => Promise<void>;
};
