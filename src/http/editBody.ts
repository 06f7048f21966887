// The body of PATCH /api/v1/flipbooks/:id (and of the dashboard's edit form): a JSON object with
// any of the editable fields, checked against the contract's schema (src/contract/flipbooks.ts),
// then each field by the domain's own rules (flipbookFields.ts). Every refusal is a 400 naming
// the field, in the words below (or a 413 for a body past 64 KB, which no edit needs).
import { FlipbookEdits } from '../contract/flipbooks.ts';
import { type Failure, validator } from '../contract/validate.ts';
import { InvalidInput } from '../domain/errors.ts';
import { embedOrigins, MAX_EMBED_ORIGINS, VISIBILITIES } from '../domain/flipbook/access.ts';
import * as fields from '../domain/flipbookFields.ts';

export const MAX_EDIT_BYTES = 64 * 1024;
export const EDITABLE = Object.keys(FlipbookEdits.properties) as (keyof FlipbookEdits)[];
const check = validator(FlipbookEdits);

/** What a field's wrong type (or value outside its enum) is called; lengths and patterns are the domain's. */
const WRONG: Record<keyof FlipbookEdits, string> = {
  title: 'Invalid title: must be a string',
  slug: 'Invalid slug: must be a string',
  description: 'Invalid description: must be a string',
  status: 'Invalid status: must be "published" or "archived"',
  allow_download: 'Invalid allow_download: must be true or false',
  direction: fields.INVALID_DIRECTION,
  visibility: `Invalid visibility: one of ${VISIBILITIES.join(', ')}`,
  embed_origins: `Invalid embed_origins: give a list of at most ${MAX_EMBED_ORIGINS} sites, e.g. ["https://example.com"]`,
};

/** The edits in a parsed body, or the first refusal: the body's shape, then field by field. */
export const editsFrom = (value: unknown, failures = check(value)): FlipbookEdits => {
  if (failures.some((f) => f.instancePath === '' && f.keyword === 'type')) {
    throw new InvalidInput(`The body must be a JSON object with any of ${EDITABLE.join(', ')}`);
  }
  const unknown = failures.find((f) => f.keyword === 'additionalProperties');
  if (unknown) {
    const key = (unknown.params as { additionalProperty: string }).additionalProperty;
    throw new InvalidInput(`Unknown field "${key}": give any of ${EDITABLE.join(', ')}`);
  }
  const body = value as FlipbookEdits;
  // Field by field, each checked and then cleaned, so the first bad field is the one named.
  const field = <K extends keyof FlipbookEdits>(name: K): FlipbookEdits[K] => {
    const raw = body[name];
    if (raw === undefined || !wrongType(failures, name)) return raw;
    // a status or direction that is no string at all is told so, like the other text fields
    throw new InvalidInput(
      (name === 'status' || name === 'direction' || name === 'visibility') &&
        typeof raw !== 'string'
        ? `Invalid ${name}: must be a string`
        : WRONG[name],
    );
  };
  const edits: FlipbookEdits = {};
  const title = field('title');
  if (title !== undefined) edits.title = fields.title(title);
  const slug = field('slug');
  if (slug !== undefined) edits.slug = fields.slug(slug);
  const description = field('description');
  if (description !== undefined) edits.description = fields.description(description);
  const status = field('status');
  if (status !== undefined) edits.status = status;
  const allowDownload = field('allow_download');
  if (allowDownload !== undefined) edits.allow_download = allowDownload;
  const direction = field('direction');
  if (direction !== undefined) edits.direction = direction;
  const visibility = field('visibility');
  if (visibility !== undefined) edits.visibility = visibility;
  const origins = field('embed_origins');
  if (origins !== undefined) edits.embed_origins = embedOrigins(origins);
  return edits;
};

const wrongType = (failures: Failure[], name: string) =>
  failures.some(
    (f) => f.instancePath === `/${name}` && (f.keyword === 'type' || f.keyword === 'enum'),
  );
