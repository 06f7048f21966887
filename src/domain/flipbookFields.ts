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

/** A title: trimmed, not blank, at most MAX_TITLE characters. */
export const title = (raw: string) => {
  const value = storableText('title', raw).trim();
  if (!value) throw new InvalidInput('Invalid title: it must not be blank');
  if ([...value].length > MAX_TITLE)
    throw new InvalidInput(`Invalid title: at most ${MAX_TITLE} characters`);
  return value;
};

/** A description: trimmed, may be empty, at most MAX_DESCRIPTION characters. */
export const description = (raw: string) => {
  const value = storableText('description', raw).trim();
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
