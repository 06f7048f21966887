// Parses the list endpoint's query string. Every value is checked; a bad one is a 400 that names
// the parameter. Unknown parameters are ignored, as HTTP APIs customarily do.
import { type ListQuery, SORT_FIELDS, type SortField } from '../../projections/flipbooks.ts';
import { InvalidInput } from '../domain/errors.ts';
import { storableText } from '../domain/storableText.ts';

const MAX_SEARCH = 200;
const MAX_PAGE = 1_000_000;

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
    page: integer('page', 1, 1, MAX_PAGE),
    perPage: integer('per_page', 20, 1, 100),
    search: search === undefined || search.trim() === '' ? null : search.trim(),
    status: choice('status', ['published', 'archived'] as const, null),
    sort: choice<SortField>('sort', SORT_FIELDS, 'created_at') as SortField,
    dir: choice('dir', ['asc', 'desc'] as const, 'desc') as 'asc' | 'desc',
  };
};

/** page and per_page of a plain paged list (the event trail): 1..1,000,000 and 1..100, 50. */
export const parsePaging = (params: URLSearchParams) => {
  const { page, perPage } = parseListQuery(
    new URLSearchParams({
      page: params.get('page') ?? '1',
      per_page: params.get('per_page') ?? '50',
    }),
  );
  return { page, perPage };
};

const RFC_3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** ?at=: an RFC 3339 date-time with its offset, or null when absent. */
export const parseAt = (params: URLSearchParams): Date | null => {
  const values = params.getAll('at');
  if (values.length === 0) return null;
  const raw = values[0] ?? '';
  const at = new Date(raw);
  if (values.length > 1 || !RFC_3339.test(raw) || Number.isNaN(at.getTime())) {
    throw new InvalidInput('Invalid at: give one RFC 3339 date-time, e.g. 2026-11-23T12:00:00Z');
  }
  return at;
};
