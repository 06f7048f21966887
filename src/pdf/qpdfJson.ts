// Reading the output of `qpdf --json=2`: every object of the PDF as JSON, with strings as
// "u:<text>" or "b:<hex>", names as "/Name" and references as "12 0 R". Pure helpers, bounded:
// nothing here follows a reference chain further than MAX_HOPS.
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Dict = { [key: string]: Json };

const REFERENCE = /^\d+ \d+ R$/;
const MAX_HOPS = 32;

/** The objects of qpdf's `qpdf` key (`[header, { "obj:1 0 R": { value } , ... }]`). */
export type Objects = Record<string, Json>;

export const objectsOf = (json: Json): Objects => {
  if (!Array.isArray(json)) return {};
  const objects = json[1];
  return isDict(objects) ? objects : {};
};

export const isDict = (value: Json | undefined): value is Dict =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const isReference = (value: Json | undefined): value is string =>
  typeof value === 'string' && REFERENCE.test(value);

/** Follows references until a direct object (a stream stands for its dictionary). */
export const resolve = (objects: Objects, value: Json | undefined): Json | undefined => {
  let current = value;
  for (let hop = 0; hop < MAX_HOPS && isReference(current); hop++) {
    const entry = objects[`obj:${current}`];
    if (!isDict(entry)) return undefined;
    if ('value' in entry) current = entry.value;
    else if (isDict(entry.stream)) current = entry.stream.dict;
    else return undefined;
  }
  return isReference(current) ? undefined : current;
};

export const dictAt = (objects: Objects, value: Json | undefined): Dict | undefined => {
  const resolved = resolve(objects, value);
  return isDict(resolved) ? resolved : undefined;
};

export const arrayAt = (objects: Objects, value: Json | undefined): Json[] | undefined => {
  const resolved = resolve(objects, value);
  return Array.isArray(resolved) ? resolved : undefined;
};

export const numberAt = (objects: Objects, value: Json | undefined): number | undefined => {
  const resolved = resolve(objects, value);
  return typeof resolved === 'number' && Number.isFinite(resolved) ? resolved : undefined;
};

/** A name's text without its slash ("/GoTo" → "GoTo"), or undefined. */
export const nameOf = (objects: Objects, value: Json | undefined): string | undefined => {
  const resolved = resolve(objects, value);
  return typeof resolved === 'string' && resolved.startsWith('/') ? resolved.slice(1) : undefined;
};

/** A PDF string's text: "u:" is already text; "b:" bytes are UTF-16BE with a BOM or Latin-1. */
export const pdfText = (value: Json | undefined): string | undefined => {
  if (typeof value !== 'string') return undefined;
  if (value.startsWith('u:')) return value.slice(2);
  if (value.startsWith('b:')) {
    const hex = value.slice(2);
    if (!/^(?:[0-9a-fA-F]{2})*$/.test(hex)) return undefined;
    const bytes = Buffer.from(hex, 'hex');
    if (bytes[0] === 0xfe && bytes[1] === 0xff) {
      return new TextDecoder('utf-16be', { fatal: false }).decode(bytes.subarray(2));
    }
    return bytes.toString('latin1');
  }
  return undefined;
};

/** The text of a string, or of a string behind a reference. */
export const textAt = (objects: Objects, value: Json | undefined) =>
  pdfText(resolve(objects, value));

// C0 and C1 controls, DEL, and the line/paragraph separators: never part of a title or label.
const CONTROLS = /[\p{Cc}\u2028\u2029]+/gu;

/**
 * Text for a title, bookmark or label: control characters become spaces, runs of white space
 * one space, trimmed, at most `max` characters (whole code points, never half a pair).
 */
export const cleanText = (text: string, max: number) => {
  const clean = text.replace(CONTROLS, ' ').replace(/\s+/g, ' ').trim();
  if (clean.length <= max) return clean;
  return Array.from(clean).slice(0, max).join('').trim();
};
