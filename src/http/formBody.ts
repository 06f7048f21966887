// Small bodies a person's browser or a page's script sends (a form, a passkey ceremony's JSON):
// one content type, at most 64 KB, within 30 s; for the dashboard and the reader's password form.
import type { IncomingMessage } from 'node:http';
import { AppError, InvalidInput } from '../domain/errors.ts';
import { readBody } from './bodyLimit.ts';
import { NOT_UTF8, utf8Text } from './utf8.ts';

const MAX_SMALL_BODY_BYTES = 64 * 1024;

/**
 * A form's or a script's body of one content type, at most 64 KB, within 30 s, as text; the
 * refusals name it (`noun`) and say which type to send.
 */
export const readSmallBody = async (
  req: IncomingMessage,
  type: string,
  refusals: { wrongType: string; noun: string },
): Promise<string> => {
  const given = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (given !== type) {
    req.resume();
    throw new AppError(415, refusals.wrongType);
  }
  const body = await readBody(req, {
    limit: MAX_SMALL_BODY_BYTES,
    tooLarge: () => new AppError(413, `This ${refusals.noun} is too large`),
    tooSlow: () => new AppError(408, `The ${refusals.noun} took too long to arrive`),
  });
  const text = utf8Text(body);
  if (text === null) throw new InvalidInput(`The ${refusals.noun} cannot be read: ${NOT_UTF8}`);
  return text;
};

/** An application/x-www-form-urlencoded body, at most 64 KB, within 30 s. */
export const readForm = async (req: IncomingMessage): Promise<URLSearchParams> => {
  const text = await readSmallBody(req, 'application/x-www-form-urlencoded', {
    wrongType: 'Send the form as application/x-www-form-urlencoded',
    noun: 'form',
  });
  if (text.includes('\u0000') || text.includes('%00'))
    throw new InvalidInput('The form holds a NUL character');
  const form = new URLSearchParams();
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const at = pair.indexOf('=');
    const name = formText(at < 0 ? pair : pair.slice(0, at));
    const value = formText(at < 0 ? '' : pair.slice(at + 1));
    if (name === null || value === null) {
      throw new InvalidInput(`The form cannot be read: ${NOT_UTF8}`);
    }
    form.append(name, value);
  }
  return form;
};

const PERCENT = 0x25;
const isHex = (byte: number | undefined) =>
  byte !== undefined &&
  ((byte >= 0x30 && byte <= 0x39) ||
    (byte >= 0x41 && byte <= 0x46) ||
    (byte >= 0x61 && byte <= 0x66));

/**
 * A form's name or value decoded as URLSearchParams decodes it (+ a space, %XX a byte), but
 * strictly: bytes that are not UTF-8 ("Caf%E9", from a page sent in Latin-1) are null, where
 * URLSearchParams would keep U+FFFD in what is stored.
 */
const formText = (part: string): string | null => {
  const spaced = part.replaceAll('+', ' ');
  if (!spaced.includes('%')) return spaced;
  const raw = Buffer.from(spaced, 'utf8');
  const bytes = Buffer.alloc(raw.length);
  let length = 0;
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] === PERCENT && isHex(raw[i + 1]) && isHex(raw[i + 2])) {
      bytes[length++] = Number.parseInt(raw.toString('latin1', i + 1, i + 3), 16);
      i += 2;
    } else {
      bytes[length++] = raw[i] as number;
    }
  }
  return utf8Text(bytes.subarray(0, length));
};
