// GET /flipbooks's query, as the read table takes it: the contract's schema checks every value
// (src/http/endpointInput.ts); here a blank search means none. The dashboard's grid reads its
// query the same way.
import type { Static } from '@sinclair/typebox';
import { ListFlipbooksQuery } from '../contract/flipbooks.ts';
import type { ListQuery } from '../readTables/flipbooks.ts';
import { queryReader } from './endpointInput.ts';

export const toListQuery = (query: Static<typeof ListFlipbooksQuery>): ListQuery => ({
  page: query.page,
  perPage: query.per_page,
  search: query.search === undefined || query.search.trim() === '' ? null : query.search.trim(),
  status: query.status ?? null,
  // (a sort the contract offers that the read table cannot do fails tsc here)
  sort: query.sort,
  dir: query.dir,
});

const readListQuery = queryReader(ListFlipbooksQuery);

/** A list query from a URL's parameters; a bad value is a 400 naming the parameter. */
export const parseListQuery = (params: URLSearchParams): ListQuery =>
  toListQuery(readListQuery(params) as Static<typeof ListFlipbooksQuery>);
