// What a file on disk is (./documentKind.ts over its bytes): its first bytes, and all of them
// only for a container (a ZIP's directory is at its end, an OLE2's anywhere). Office files are
// a few MB and the upload limit bounds them.
import { open, readFile } from 'node:fs/promises';
import { needsWholeFile, SNIFF_HEAD_BYTES, type Sniffed, sniffDocument } from './documentKind.ts';

export const sniffFile = async (file: string): Promise<Sniffed> => {
  const handle = await open(file);
  try {
    const head = Buffer.alloc(SNIFF_HEAD_BYTES);
    const { bytesRead } = await handle.read(head, 0, SNIFF_HEAD_BYTES, 0);
    if (!needsWholeFile(head.subarray(0, bytesRead))) {
      return sniffDocument(head.subarray(0, bytesRead));
    }
    return sniffDocument(await readFile(file));
  } finally {
    await handle.close();
  }
};
