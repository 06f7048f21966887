// A multipart/form-data body streamed from disk, counting the bytes as they go: the file is never
// read into memory, and the count drives the progress bar.
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import type { PdfFile } from './pdfFile.ts';

export type MultipartBody = {
  body: Readable;
  contentType: string;
  length: number;
};

// Control characters too (a file named with an ESC in it, say): raw in a header line, the server's
// multipart parser refuses the whole part ("Malformed part header"). filename* carries the name.
const quote = (value: string) =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: those are what it replaces
  value.replace(/["\\\x00-\x1f\x7f]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`);

export const multipartBody = (
  file: PdfFile,
  fields: Record<string, string>,
  onProgress: (sent: number, total: number) => void,
): MultipartBody => {
  const boundary = `----flipbook${randomBytes(12).toString('hex')}`;
  const head =
    Object.entries(fields)
      .map(
        ([name, value]) =>
          `--${boundary}\r\nContent-Disposition: form-data; name="${quote(name)}"\r\n\r\n${value}\r\n`,
      )
      .join('') +
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quote(file.name)}"; filename*=UTF-8''${extValue(file.name)}\r\n` +
    'Content-Type: application/octet-stream\r\n\r\n';
  const tail = `\r\n--${boundary}--\r\n`;
  const headBytes = Buffer.from(head);
  const tailBytes = Buffer.from(tail);
  const total = file.size;
  let sent = 0;
  async function* parts() {
    yield headBytes;
    for await (const chunk of createReadStream(file.path, { highWaterMark: 256 * 1024 })) {
      sent += (chunk as Buffer).length;
      onProgress(sent, total);
      yield chunk as Buffer;
    }
    yield tailBytes;
  }
  return {
    body: Readable.from(parts()),
    contentType: `multipart/form-data; boundary=${boundary}`,
    length: headBytes.length + file.size + tailBytes.length,
  };
};

/**
 * RFC 5987's ext-value: percent-encoded UTF-8 with only attr-chars left as they are.
 * encodeURIComponent leaves ' ( ) * ! alone, and a quote there ends the value for a parser.
 */
const extValue = (name: string) =>
  encodeURIComponent(name).replace(
    /['()*!]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
