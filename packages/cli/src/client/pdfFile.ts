// Checks a file before a byte is sent: it must exist, look like something the service takes (a
// PDF, an office document, an image: by its first bytes, as the server tells them; the server
// has the last word, a server run with --no-convert refuses office documents), and fit the
// upload limit.
import { open, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { CliError, EXIT } from './cliErrors.ts';

export const MAX_UPLOAD_BYTES = 512 * 1024 * 1024;

export type PdfFile = {
  path: string;
  name: string;
  size: number;
  /** removes what was made to send it (a folder's ZIP) */
  cleanup?: () => Promise<void>;
};

export const checkPdfFile = async (path: string): Promise<PdfFile> => {
  const info = await stat(path).catch(() => null);
  // A folder of images: sent as one ZIP of them, one page an image (./folderZip.ts).
  // (Loaded only then: the admin command's --help and --version stay light.)
  if (info?.isDirectory()) {
    const { zipFolder } = await import('./folderZip.ts');
    return checkSize(path, await zipFolder(path));
  }
  if (!info?.isFile()) throw new CliError(EXIT.usage, `No such file: ${path}`);
  if (info.size > MAX_UPLOAD_BYTES) {
    throw new CliError(
      EXIT.usage,
      `${path} is ${(info.size / 2 ** 20).toFixed(0)} MB; uploads are limited to 512 MB`,
    );
  }
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(1024);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    if (!taken(head.subarray(0, bytesRead))) {
      throw new CliError(
        EXIT.usage,
        `${path} is not a PDF, an office document or an image (JPEG, PNG, WebP, TIFF)`,
      );
    }
  } finally {
    await handle.close();
  }
  return { path, name: basename(path), size: info.size };
};

/** A folder's ZIP over the limit is removed and refused like a file. */
const checkSize = async (path: string, file: PdfFile): Promise<PdfFile> => {
  if (file.size > MAX_UPLOAD_BYTES) {
    await file.cleanup?.();
    throw new CliError(
      EXIT.usage,
      `${path} zips to ${(file.size / 2 ** 20).toFixed(0)} MB; uploads are limited to 512 MB`,
    );
  }
  return file;
};

/**
 * The starts of what the service takes: a PDF (`%PDF-` anywhere in the first 1024 bytes), a ZIP
 * (OOXML, OpenDocument), an OLE2 file (.doc, .xls, .ppt), RTF, JPEG, PNG, WebP, TIFF.
 */
const taken = (head: Buffer) => {
  if (head.includes('%PDF-')) return true;
  const hex = head.subarray(0, 8).toString('hex');
  const starts = ['504b0304', 'd0cf11e0a1b11ae1', '7b5c727466', 'ffd8ff', '89504e470d0a1a0a'];
  if (starts.some((start) => hex.startsWith(start))) return true;
  if (['49492a00', '4d4d002a'].includes(hex.slice(0, 8))) return true;
  return (
    head.subarray(0, 4).toString('latin1') === 'RIFF' &&
    head.subarray(8, 12).toString('latin1') === 'WEBP'
  );
};
