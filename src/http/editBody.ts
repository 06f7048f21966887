// The body of PATCH /api/v1/flipbooks/:id: a JSON object with any of the editable fields. Every
// refusal is a 400 naming the field (or a 413 for a body past 64 KB, which no edit needs).
import type { IncomingMessage } from 'node:http';
import type { FlipbookEdits } from '../app/manageFlipbooks.ts';
import { InvalidInput } from '../domain/errors.ts';
import * as fields from '../domain/flipbookFields.ts';
import { PayloadTooLarge } from './upload.ts';

const MAX_BYTES = 64 * 1024;
export const EDITABLE = ['title', 'slug', 'description', 'status', 'allow_download'] as const;

export const readEdits = async (req: IncomingMessage): Promise<FlipbookEdits> => {
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new InvalidInput('The body must be JSON (Content-Type: application/json)');
  }
  let value: unknown;
  try {
    value = JSON.parse(await readText(req));
  } catch (error) {
    if (error instanceof PayloadTooLarge) throw error;
    throw new InvalidInput('Malformed JSON body');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidInput(`The body must be a JSON object with any of ${EDITABLE.join(', ')}`);
  }
  const body = value as Record<string, unknown>;
  for (const key of Object.keys(body)) {
    if (!(EDITABLE as readonly string[]).includes(key)) {
      throw new InvalidInput(`Unknown field "${key}": give any of ${EDITABLE.join(', ')}`);
    }
  }
  const text = (name: string) => {
    const raw = body[name];
    if (raw === undefined) return undefined;
    if (typeof raw !== 'string') throw new InvalidInput(`Invalid ${name}: must be a string`);
    return raw;
  };
  const edits: FlipbookEdits = {};
  const title = text('title');
  if (title !== undefined) edits.title = fields.title(title);
  const slug = text('slug');
  if (slug !== undefined) edits.slug = fields.slug(slug);
  const description = text('description');
  if (description !== undefined) edits.description = fields.description(description);
  const status = text('status');
  if (status !== undefined) {
    if (status !== 'published' && status !== 'archived') {
      throw new InvalidInput('Invalid status: must be "published" or "archived"');
    }
    edits.status = status;
  }
  if (body.allow_download !== undefined) {
    if (typeof body.allow_download !== 'boolean') {
      throw new InvalidInput('Invalid allow_download: must be true or false');
    }
    edits.allow_download = body.allow_download;
  }
  return edits;
};

const readText = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > MAX_BYTES) {
      req.resume();
      return reject(tooLarge());
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BYTES) {
        req.removeAllListeners('data');
        req.resume();
        reject(tooLarge());
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });

const tooLarge = () => new PayloadTooLarge(`Request body too large: an edit is at most 64 KB`);
