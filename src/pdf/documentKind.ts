// What an uploaded file is, from its content alone (issue 45): the name and the declared type
// are hints at most, so a `.docx` that is a PDF is a PDF and a text file named `.docx` is refused.
//
// The API is `sniffDocument(bytes, size)` over a Buffer the caller has read, not an async
// `read(offset, length)`: pure, synchronous, testable on bytes. PDFs, RTF and images are told by
// their first bytes, so the caller reads SNIFF_HEAD_BYTES first; when `needsWholeFile(head)` says
// it is a container (a ZIP, or OLE2) it reads the whole file and calls again: a ZIP's central
// directory is at its end and an OLE2 directory anywhere in it, and office files are a few MB
// (the upload limit bounds them anyway). A container passed without its whole bytes is `unknown`.
//
// - OLE2 (D0CF11E0): the names in the root storage tell `WordDocument` (.doc), `PowerPoint
//   Document` (.ppt), `Workbook`/`Book` (.xls), and `EncryptionInfo` + `EncryptedPackage`: an
//   OOXML document saved with a password (kind `ooxml-encrypted`; not refused here: Excel's
//   default password opens in LibreOffice, so the caller converts and, when no PDF comes out,
//   says "password-protected"). A .ppt with an `EncryptedSummary` is marked `encrypted`.
// - ZIP: the central directory is walked (at most MAX_ENTRIES entries): OOXML by
//   `[Content_Types].xml` and the Override naming its main part (macro-enabled variants marked
//   `macros`), ODF by its `mimetype` entry (`encrypted` when its manifest has encryption-data). The same walk sums the declared unpacked sizes for
//   `refuseUnpacked`, the ZIP-bomb check: LibreOffice itself is not bounded by one. The sizes are
//   what the directory declares; a lying directory is left to LibreOffice's memory limit.
// One file (over 300 lines): the three containers' readers are one question (what is this file?)
// and share the refusals' words.
import { inflateRawSync } from 'node:zlib';

export type DocumentKind =
  | 'pdf'
  | 'docx'
  | 'doc'
  | 'odt'
  | 'rtf'
  | 'pptx'
  | 'ppt'
  | 'odp'
  | 'xlsx'
  | 'xls'
  | 'ods'
  | 'ooxml-encrypted'
  | 'jpeg'
  | 'png'
  | 'webp'
  | 'tiff'
  /** a folder of images, zipped (told by ./zipImages.ts from the file, not here) */
  | 'zip';
export type DocumentFamily = 'pdf' | 'office' | 'image';
export type ZipTotals = { entries: number; unpackedBytes: number; largestEntryBytes: number };
export type Sniffed =
  | {
      kind: DocumentKind;
      family: DocumentFamily;
      /** a macro-enabled OOXML (docm, pptm, xlsm) or one with a vbaProject part */
      macros?: true;
      /** known to need a password (encrypted OOXML, a .ppt's EncryptedSummary) */
      encrypted?: true;
      /** for a ZIP: what its central directory declares */
      zip?: ZipTotals;
      /** for a folder of images: their names in the ZIP, in page order */
      images?: string[];
    }
  | {
      kind: 'unknown';
      why: string;
      /** `why` is a whole refusal, for the owner as it is (a folder of images over a limit) */
      refused?: true;
    };

/** How much of a file to read first: PDFs may put `%PDF-` anywhere in the first 1024 bytes. */
export const SNIFF_HEAD_BYTES = 4096;
/** The most a ZIP may unpack to (real decks: ≤ 1.5 MB for 200 slides). */
export const MAX_UNPACKED_BYTES = 1024 * 1024 * 1024;
/** The most entries a ZIP may have (the directory walk stops past it). */
export const MAX_ENTRIES = 10_000;
/** The largest `[Content_Types].xml` or `mimetype` inflated to read it. */
const MAX_PART_BYTES = 1024 * 1024;

const OLE2 = Buffer.from('d0cf11e0a1b11ae1', 'hex');
const ZIP = Buffer.from('504b0304', 'hex');

/** A ZIP or OLE2 file: sniffDocument needs all of its bytes. */
export const needsWholeFile = (head: Buffer) =>
  head.subarray(0, 8).equals(OLE2) || head.subarray(0, 4).equals(ZIP);

export const sniffDocument = (bytes: Buffer, size: number = bytes.length): Sniffed => {
  if (bytes.subarray(0, 1024).includes('%PDF-')) return { kind: 'pdf', family: 'pdf' };
  if (bytes.subarray(0, 5).toString('latin1') === '{\\rtf')
    return { kind: 'rtf', family: 'office' };
  const image = imageKind(bytes);
  if (image) return { kind: image, family: 'image' };
  if (needsWholeFile(bytes)) {
    if (bytes.length < size) {
      return {
        kind: 'unknown',
        why: 'a ZIP or OLE2 file is read whole, and only its start was given',
      };
    }
    return bytes.subarray(0, 8).equals(OLE2) ? sniffOle2(bytes) : sniffZip(bytes);
  }
  return {
    kind: 'unknown',
    why: 'not a PDF, an office document or an image (JPEG, PNG, WebP, TIFF)',
  };
};

/** Words for the owner when a ZIP unpacks to too much, or undefined when it is fine. */
export const refuseUnpacked = (
  zip: ZipTotals,
  maxBytes = MAX_UNPACKED_BYTES,
): string | undefined => {
  if (zip.entries > MAX_ENTRIES) {
    return `The document holds ${zip.entries} parts, more than the ${MAX_ENTRIES} accepted`;
  }
  if (zip.unpackedBytes > maxBytes) {
    const mb = (n: number) => `${Math.round(n / (1024 * 1024))} MB`;
    return `The document unpacks to ${mb(zip.unpackedBytes)}, more than the ${mb(maxBytes)} accepted`;
  }
  return undefined;
};

const imageKind = (b: Buffer): DocumentKind | undefined => {
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex'))) return 'png';
  if (
    b.subarray(0, 4).toString('latin1') === 'RIFF' &&
    b.subarray(8, 12).toString('latin1') === 'WEBP'
  ) {
    return 'webp';
  }
  const tiff = b.subarray(0, 4).toString('hex');
  if (tiff === '49492a00' || tiff === '4d4d002a') return 'tiff';
  return undefined;
};

// --- OLE2 (Compound File Binary): header, FAT, directory chain, the root storage's children.

const FREE_OR_END = 0xfffffffa; // sector ids at or above this end a chain
const MAX_DIRECTORY_ENTRIES = 4096;

const sniffOle2 = (b: Buffer): Sniffed => {
  const names = ole2RootNames(b);
  if (typeof names === 'string') return { kind: 'unknown', why: `a damaged OLE2 file: ${names}` };
  if (names.has('EncryptionInfo') && names.has('EncryptedPackage')) {
    return { kind: 'ooxml-encrypted', family: 'office', encrypted: true };
  }
  if (names.has('WordDocument')) return { kind: 'doc', family: 'office' };
  if (names.has('PowerPoint Document')) {
    return names.has('EncryptedSummary')
      ? { kind: 'ppt', family: 'office', encrypted: true }
      : { kind: 'ppt', family: 'office' };
  }
  if (names.has('Workbook') || names.has('Book')) return { kind: 'xls', family: 'office' };
  return { kind: 'unknown', why: 'an OLE2 file that is not a Word, PowerPoint or Excel document' };
};

/** The stream and storage names in the root storage, or what is wrong. */
const ole2RootNames = (b: Buffer): Set<string> | string => {
  if (b.length < 512) return 'shorter than its header';
  const shift = b.readUInt16LE(0x1e);
  if (shift !== 9 && shift !== 12) return `a sector size of 2^${shift}`;
  const sectorSize = 1 << shift;
  const sector = (id: number) => {
    const start = (id + 1) * sectorSize;
    return start + sectorSize <= b.length ? b.subarray(start, start + sectorSize) : undefined;
  };
  // The FAT's sectors: 109 in the header, then the DIFAT chain (its last id links on).
  const fatSectors: number[] = [];
  for (let i = 0; i < 109; i++) fatSectors.push(b.readUInt32LE(0x4c + i * 4));
  let difat = b.readUInt32LE(0x44);
  const maxSectors = Math.ceil(b.length / sectorSize);
  for (let steps = 0; difat < FREE_OR_END; steps++) {
    const s = sector(difat);
    if (!s || steps > maxSectors) return 'its DIFAT chain runs off the file';
    for (let i = 0; i < sectorSize / 4 - 1; i++) fatSectors.push(s.readUInt32LE(i * 4));
    difat = s.readUInt32LE(sectorSize - 4);
  }
  const fatCount = b.readUInt32LE(0x2c);
  const fat: number[] = [];
  for (const id of fatSectors.slice(0, fatCount)) {
    const s = sector(id);
    if (!s) return 'a FAT sector lies past its end';
    for (let i = 0; i < sectorSize / 4; i++) fat.push(s.readUInt32LE(i * 4));
  }
  // The directory: a chain of sectors of 128-byte entries.
  const entries: Buffer[] = [];
  const seen = new Set<number>();
  for (let id = b.readUInt32LE(0x30); id < FREE_OR_END; id = fat[id] ?? FREE_OR_END) {
    const s = sector(id);
    if (!s || seen.has(id)) return 'its directory chain is broken';
    seen.add(id);
    for (let i = 0; i < sectorSize; i += 128) entries.push(s.subarray(i, i + 128));
    if (entries.length > MAX_DIRECTORY_ENTRIES) return 'its directory is too long';
  }
  const root = entries[0];
  if (!root) return 'it has no directory';
  if (root[0x42] !== 5) return 'it has no root storage';
  // The root's children are a tree through the left and right sibling ids.
  const names = new Set<string>();
  const stack = [root.readUInt32LE(0x4c)];
  const visited = new Set<number>();
  while (stack.length > 0) {
    const id = stack.pop() as number;
    const entry = entries[id];
    if (id >= FREE_OR_END || !entry || visited.has(id)) continue;
    visited.add(id);
    const length = Math.min(entry.readUInt16LE(0x40), 64);
    names.add(entry.subarray(0, Math.max(length - 2, 0)).toString('utf16le'));
    stack.push(entry.readUInt32LE(0x44), entry.readUInt32LE(0x48));
  }
  return names;
};

// --- ZIP: the end-of-central-directory record, then the central directory's entries.

type ZipEntry = {
  name: string;
  method: number;
  compressed: number;
  unpacked: number;
  local: number;
};

const sniffZip = (b: Buffer): Sniffed => {
  const read = zipEntries(b);
  if (typeof read === 'string')
    return { kind: 'unknown', why: `a damaged or unusual ZIP: ${read}` };
  const { entries, totals } = read;
  const byName = new Map(entries.map((e) => [e.name, e]));
  const mimetype = byName.get('mimetype');
  if (mimetype) {
    const text = entryText(b, mimetype)?.trim();
    const kind = (
      {
        'application/vnd.oasis.opendocument.text': 'odt',
        'application/vnd.oasis.opendocument.presentation': 'odp',
        'application/vnd.oasis.opendocument.spreadsheet': 'ods',
      } as Record<string, DocumentKind>
    )[text ?? ''];
    // A password-saved ODF names how each part was encrypted in its manifest.
    const manifest = byName.get('META-INF/manifest.xml');
    const encrypted = manifest && entryText(b, manifest)?.includes('encryption-data');
    if (kind && encrypted) return { kind, family: 'office', encrypted: true, zip: totals };
    if (kind) return { kind, family: 'office', zip: totals };
    return {
      kind: 'unknown',
      why: `an OpenDocument file of a kind not accepted (${text ?? 'unreadable'})`,
    };
  }
  const types = byName.get('[Content_Types].xml');
  if (!types) return { kind: 'unknown', why: 'a ZIP archive, not an Office or OpenDocument file' };
  const xml = entryText(b, types);
  if (xml === undefined)
    return { kind: 'unknown', why: 'an Office file whose [Content_Types].xml cannot be read' };
  const macros = entries.some((e) => /(^|\/)vbaProject\.bin$/i.test(e.name));
  for (const m of xml.matchAll(/<Override\b[^>]*>/g)) {
    const part = /PartName="\/?([^"]+)"/.exec(m[0])?.[1];
    const type = /ContentType="([^"]+)"/.exec(m[0])?.[1] ?? '';
    if (!part || !byName.has(part) || !/\.main\+xml$|macroEnabled\+xml$/.test(type)) continue;
    const kind: DocumentKind | undefined = /wordprocessingml|ms-word/.test(type)
      ? 'docx'
      : /presentationml|ms-powerpoint/.test(type)
        ? 'pptx'
        : /spreadsheetml|ms-excel/.test(type)
          ? 'xlsx'
          : undefined;
    if (!kind) continue;
    const marked = macros || /macroEnabled/i.test(type);
    return marked
      ? { kind, family: 'office', macros: true, zip: totals }
      : { kind, family: 'office', zip: totals };
  }
  return { kind: 'unknown', why: 'an Office file with no Word, PowerPoint or Excel main part' };
};

const zipEntries = (b: Buffer): { entries: ZipEntry[]; totals: ZipTotals } | string => {
  // The end record is 22 bytes plus a comment of at most 65535, at the very end.
  const from = Math.max(0, b.length - 22 - 65535);
  const eocd = b.lastIndexOf(Buffer.from('504b0506', 'hex'));
  if (eocd < from || eocd + 22 > b.length) return 'no end of central directory';
  const count = b.readUInt16LE(eocd + 10);
  const cdSize = b.readUInt32LE(eocd + 12);
  const cdOffset = b.readUInt32LE(eocd + 16);
  if (count === 0xffff || cdOffset === 0xffffffff) return 'ZIP64 is not accepted';
  if (cdOffset + cdSize > b.length) return 'its central directory lies past its end';
  const entries: ZipEntry[] = [];
  let unpackedBytes = 0;
  let largestEntryBytes = 0;
  let at = cdOffset;
  for (let i = 0; i < Math.min(count, MAX_ENTRIES); i++) {
    if (at + 46 > b.length || b.readUInt32LE(at) !== 0x02014b50)
      return 'a broken central directory';
    const nameLength = b.readUInt16LE(at + 28);
    const entry = {
      method: b.readUInt16LE(at + 10),
      compressed: b.readUInt32LE(at + 20),
      unpacked: b.readUInt32LE(at + 24),
      local: b.readUInt32LE(at + 42),
      name: b.subarray(at + 46, at + 46 + nameLength).toString('utf8'),
    };
    entries.push(entry);
    unpackedBytes += entry.unpacked;
    largestEntryBytes = Math.max(largestEntryBytes, entry.unpacked);
    at += 46 + nameLength + b.readUInt16LE(at + 30) + b.readUInt16LE(at + 32);
  }
  return { entries, totals: { entries: count, unpackedBytes, largestEntryBytes } };
};

/** A small entry's text (stored or deflated), or undefined when it cannot be read. */
const entryText = (b: Buffer, e: ZipEntry): string | undefined => {
  if (e.unpacked > MAX_PART_BYTES || e.local + 30 > b.length) return undefined;
  if (b.readUInt32LE(e.local) !== 0x04034b50) return undefined;
  const start = e.local + 30 + b.readUInt16LE(e.local + 26) + b.readUInt16LE(e.local + 28);
  const data = b.subarray(start, start + e.compressed);
  try {
    if (e.method === 0) return data.toString('utf8');
    if (e.method === 8)
      return inflateRawSync(data, { maxOutputLength: MAX_PART_BYTES }).toString('utf8');
  } catch {
    return undefined;
  }
  return undefined;
};
