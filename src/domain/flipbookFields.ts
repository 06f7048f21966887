// What a flipbook's editable fields may hold, for create and edit alike. Every refusal is a 400
// that names the field.
import { InvalidInput } from './errors.ts';
import { slugify } from './slug.ts';
import { storableText } from './storableText.ts';

export const MAX_TITLE = 255;
export const MAX_DESCRIPTION = 5000;
export const MAX_SLUG = 100;
/** lowercase letters and digits in words joined by single hyphens */
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * Control characters (C0, DEL, C1) have no place in a title and would reach terminals and logs
 * that print it (an escape sequence can rewrite what an admin sees); a description may keep its
 * line breaks and tabs.
 */
const noControls = (field: string, value: string, allowed = '') => {
  for (const c of value) {
    const code = c.codePointAt(0) ?? 0;
    if ((code < 0x20 || (code >= 0x7f && code <= 0x9f)) && !allowed.includes(c)) {
      throw new InvalidInput(
        `Invalid ${field}: it contains a control character (U+${code.toString(16).padStart(4, '0').toUpperCase()})`,
      );
    }
  }
  return value;
};

/** Bidirectional embeddings, overrides and isolates: they reorder how a title (and what follows
 * it in a log line) reads, a known way to spoof names. Titles in any script need none of them. */
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/u;
/** Nothing a reader could see: format characters, combining marks alone, spaces. */
const INVISIBLE = /^[\p{Cf}\p{M}\p{Z}\s]*$/u;

/**
 * A name people read in lists (a title, an API key's name): trimmed, visible, without control
 * characters or text direction controls.
 */
export const plainName = (field: string, raw: string) => {
  const value = noControls(field, storableText(field, raw)).trim();
  if (INVISIBLE.test(value)) throw new InvalidInput(`Invalid ${field}: it must not be blank`);
  const bidi = BIDI_CONTROLS.exec(value)?.[0];
  if (bidi) {
    throw new InvalidInput(
      `Invalid ${field}: it contains a text direction control (U+${(bidi.codePointAt(0) ?? 0).toString(16).toUpperCase()})`,
    );
  }
  return value;
};

/** A title: a plain name of at most MAX_TITLE characters. */
export const title = (raw: string) => {
  const value = plainName('title', raw);
  if ([...value].length > MAX_TITLE)
    throw new InvalidInput(`Invalid title: at most ${MAX_TITLE} characters`);
  return value;
};

/**
 * The title a flipbook gets when its upload names none: the uploaded file's name, under the
 * title's own rules (a name no title may hold is refused like a title).
 */
export const defaultTitle = (fileName: string) => title(fileName);

/**
 * What `defaultTitle` makes of a file name, or null for a name no title may hold: how a flipbook
 * created before `FlipbookCreated` said whether its title was the file name's is read (its
 * title is the file name's when it equals this for version 1's file).
 */
export const defaultTitleOf = (fileName: string): string | null => {
  try {
    return defaultTitle(fileName);
  } catch {
    return null;
  }
};

/** How the reader turns pages; `auto` is what the PDF says (its viewer preferences, else its script). */
export const DIRECTIONS = ['ltr', 'rtl', 'auto'] as const;
export type DirectionChoice = (typeof DIRECTIONS)[number];
/** A direction chosen for the flipbook; none (`null`) is `auto`. */
export type Direction = Exclude<DirectionChoice, 'auto'>;

export const INVALID_DIRECTION = 'Invalid direction: must be "ltr", "rtl" or "auto"';

/** The `direction` form field: `ltr`, `rtl` or `auto`, in any letter case, spaces around ignored. */
export const direction = (raw: string): DirectionChoice => {
  const value = raw.trim().toLowerCase();
  const known = DIRECTIONS.find((d) => d === value);
  if (!known) throw new InvalidInput(INVALID_DIRECTION);
  return known;
};

/** A description: trimmed, may be empty, at most MAX_DESCRIPTION characters. */
export const description = (raw: string) => {
  const value = noControls('description', storableText('description', raw), '\n\r\t').trim();
  if ([...value].length > MAX_DESCRIPTION)
    throw new InvalidInput(`Invalid description: at most ${MAX_DESCRIPTION} characters`);
  return value;
};

/** A slug given by the client: exactly the readable form, nothing rewritten behind its back. */
export const slug = (raw: string) => {
  if (raw.length > MAX_SLUG || !SLUG_PATTERN.test(raw)) {
    throw new InvalidInput(
      `Invalid slug: lowercase letters, digits and single hyphens, at most ${MAX_SLUG} characters (e.g. "${slugify(raw)}")`,
    );
  }
  return raw;
};

/** The first of `base`, `base-2`, `base-3`, ... that `taken` does not hold. */
export const freeSlug = (base: string, taken: Set<string>) => {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base.slice(0, MAX_SLUG - String(n).length - 1)}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
};
