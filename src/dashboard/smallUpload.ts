// A small multipart form read into memory: a few fields and at most one file of `maxFileBytes`
// (a logo), within 30 s. Anything else in the body is read and forgotten; a file too large, a
// malformed or cut-short body, a body that never ends are refusals in words, never a crash.
import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { AppError, InvalidInput } from '../domain/errors.ts';
import { drain } from '../http/upload.ts';

export type SmallForm = { fields: URLSearchParams; file: Buffer | null };

const TIME_LIMIT_MS = 30_000;

export const readSmallMultipart = (
  req: IncomingMessage,
  fileField: string,
  maxFileBytes: number,
): Promise<SmallForm> => {
  // Refused at once, unread: a body that never comes must not hold the answer.
  if (!/^multipart\/form-data\s*;/i.test(req.headers['content-type'] ?? '')) {
    return Promise.reject(new AppError(415, 'This form is sent as multipart/form-data'));
  }
  if (Number(req.headers['content-length']) > maxFileBytes + 64 * 1024) {
    return Promise.reject(new AppError(413, 'This form is too large'));
  }
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: { fileSize: maxFileBytes, files: 1, fields: 20, fieldSize: 4096, parts: 30 },
      });
    } catch {
      drain(req).then(() => reject(new InvalidInput('Malformed form')));
      return;
    }
    const fields = new URLSearchParams();
    const chunks: Buffer[] = [];
    let hasFile = false;
    let failure: Error | null = null;
    const fail = (error: Error) => {
      failure ??= error;
    };
    const timer = setTimeout(() => {
      fail(new AppError(408, 'The form took too long to arrive'));
      req.unpipe(parser);
      req.destroy();
      finish(); // (a request destroyed already says nothing more)
    }, TIME_LIMIT_MS);
    const finish = () => {
      clearTimeout(timer);
      if (failure) reject(failure);
      else resolve({ fields, file: hasFile ? Buffer.concat(chunks) : null });
    };

    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) fail(new InvalidInput(`Field "${name}" is too long`));
      else fields.append(name, value);
    });
    parser.on('file', (name, stream, info) => {
      stream.on('error', (error: Error) =>
        fail(new InvalidInput(`Malformed form: ${error.message}`)),
      );
      // A form's empty file input sends a part with no name and no bytes: no file.
      if (name !== fileField || !info.filename) {
        stream.resume();
        return;
      }
      hasFile = true;
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => fail(new AppError(413, 'The file is too large')));
    });
    parser.on('error', (error: Error) => {
      fail(new InvalidInput(`Malformed form: ${error.message}`));
      req.unpipe(parser);
      drain(req).then(finish);
    });
    parser.on('close', finish);
    req.on('error', (error) => {
      fail(error);
      finish();
    });
    req.on('aborted', () => {
      fail(new InvalidInput('The form was cut short'));
      finish();
    });
    // Gone already, while the request was checked: nothing would ever flow.
    if (req.destroyed && !req.readableEnded) {
      fail(new InvalidInput('The form was cut short'));
      return finish();
    }
    req.pipe(parser);
  });
};
