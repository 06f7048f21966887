// Checks a file before a byte is sent: it must exist, be a PDF, and fit the upload limit.
import { open, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { CliError, EXIT } from './cliErrors.ts';

export const MAX_UPLOAD_BYTES = 512 * 1024 * 1024;

export type PdfFile = { path: string; name: string; size: number };

export const checkPdfFile = async (path: string): Promise<PdfFile> => {
  const info = await stat(path).catch(() => null);
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
    if (!head.subarray(0, bytesRead).includes('%PDF-')) {
      throw new CliError(EXIT.usage, `${path} is not a PDF (no %PDF- header)`);
    }
  } finally {
    await handle.close();
  }
  return { path, name: basename(path), size: info.size };
};
