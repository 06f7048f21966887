// Parses the list endpoint's query string. Every value is checked; a bad one is a 400 that names
// the parameter, in the words docs/api.md gives. Bounds, defaults and choices are the contract's
// (src/contract/), the same the OpenAPI document shows. Unknown parameters are ignored, as HTTP
// APIs customarily do.
import type { ListQuery, SortField } from '../../projections/flipbooks.ts';
import { EventsQuery } from '../contract/events.ts';
import {
  FLIPBOOK_STATUSES,
  LIST_DIRS,
  LIST_SORTS,
  ListFlipbooksQuery,
} from '../contract/flipbooks.ts';
import { InvalidInput } from '../domain/errors.ts';
import { storableText } from '../domain/storableText.ts';

const Q = ListFlipbooksQuery.properties;
const MAX_SEARCH = Q.search.maxLength as number;
const bounds = (schema: { minimum?: number; maximum?: number; default?: unknown }) =>
  [schema.default as number, schema.minimum as number, schema.maximum as number] as const;

export const parseListQuery = (params: URLSearchParams): ListQuery => {
  const one = (name: string) => {
    const values = params.getAll(name);
    if (values.length > 1) throw new InvalidInput(`Invalid ${name}: give it once`);
    return values[0];
  };
  const integer = (name: string, fallback: number, min: number, max: number) => {
    const raw = one(name);
    if (raw === undefined) return fallback;
    const value = /^\d{1,7}$/.test(raw) ? Number(raw) : Number.NaN;
    if (!(value >= min && value <= max)) {
      throw new InvalidInput(`Invalid ${name}: must be an integer from ${min} to ${max}`);
    }
    return value;
  };
  const choice = <T extends string>(name: string, allowed: readonly T[], fallback: T | null) => {
    const raw = one(name);
    if (raw === undefined || raw === '') return fallback;
    const value = raw.toLowerCase() as T;
    if (!allowed.includes(value))
      throw new InvalidInput(`Invalid ${name}: must be one of ${allowed.join(', ')}`);
    return value;
  };

  const search = one('search');
  if (search !== undefined) storableText('search', search);
  if (search !== undefined && search.length > MAX_SEARCH) {
    throw new InvalidInput(`Invalid search: at most ${MAX_SEARCH} characters`);
  }
  return {
    page: integer('page', ...bounds(Q.page)),
    perPage: integer('per_page', ...bounds(Q.per_page)),
    search: search === undefined || search.trim() === '' ? null : search.trim(),
    status: choice('status', FLIPBOOK_STATUSES, null),
    // (a sort the contract offers that the read table cannot do fails tsc here)
    sort: choice<SortField>('sort', LIST_SORTS, Q.sort.default) as SortField,
    dir: choice('dir', LIST_DIRS, Q.dir.default) as 'asc' | 'desc',
  };
};

/** page and per_page of a plain paged list (the event trail), with the contract's defaults. */
export const parsePaging = (params: URLSearchParams) => {
  const { page, perPage } = parseListQuery(
    new URLSearchParams({
      page: params.get('page') ?? String(EventsQuery.properties.page.default),
      per_page: params.get('per_page') ?? String(EventsQuery.properties.per_page.default),
    }),
  );
  return { page, perPage };
};

const RFC_3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ]([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,9})?([Zz]|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;

/** A calendar date that exists: 2026-11-31 would otherwise become 1 December. */
const realDate = (year: number, month: number, day: number) => {
  const date = new Date(Date.UTC(year, month - 1, day));
  return (
    date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
  );
};

/** ?at=: an RFC 3339 date-time with its offset, or null when absent. */
export const parseAt = (params: URLSearchParams): Date | null => {
  const values = params.getAll('at');
  if (values.length === 0) return null;
  const raw = values[0] ?? '';
  const at = new Date(raw);
  const parts = RFC_3339.exec(raw);
  if (
    values.length > 1 ||
    !parts ||
    !realDate(Number(parts[1]), Number(parts[2]), Number(parts[3])) ||
    Number.isNaN(at.getTime())
  ) {
    throw new InvalidInput('Invalid at: give one RFC 3339 date-time, e.g. 2026-11-23T12:00:00Z');
  }
  return at;
};
