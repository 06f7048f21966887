// What a file on disk is (./documentKind.ts over its bytes): its first bytes, and all of them
// only for a container (a ZIP's directory is at its end, an OLE2's anywhere). Office files are
// a few MB and the upload limit bounds them. A ZIP's directory is read first (./zipImages.ts):
// a folder of images (hundreds of MB of photos) is told from it without reading it whole.
import { open, readFile } from 'node:fs/promises';
import { needsWholeFile, SNIFF_HEAD_BYTES, type Sniffed, sniffDocument } from './documentKind.ts';
import { listZip } from './zipImages.ts';

const ZIP = Buffer.from('504b0304', 'hex');

export const sniffFile = async (file: string): Promise<Sniffed> => {
  const handle = await open(file);
  try {
    const head = Buffer.alloc(SNIFF_HEAD_BYTES);
    const { bytesRead } = await handle.read(head, 0, SNIFF_HEAD_BYTES, 0);
    const start = head.subarray(0, bytesRead);
    if (!needsWholeFile(start)) return sniffDocument(start);
    if (start.subarray(0, 4).equals(ZIP)) {
      const listed = await listZip(file);
      if (listed.kind === 'refused') return { kind: 'unknown', why: listed.why, refused: true };
      if (listed.kind === 'images') {
        return {
          kind: 'zip',
          family: 'image',
          images: listed.names,
          zip: {
            entries: listed.names.length,
            unpackedBytes: listed.unpackedBytes,
            largestEntryBytes: 0,
          },
        };
      }
    }
    return sniffDocument(await readFile(file));
  } finally {
    await handle.close();
  }
};
