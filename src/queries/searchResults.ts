// A search's matches, in the list's order, remembered by this process: counting a search's matches
// costs in proportion to them (`total_pages` must be exact), so asking again for the same search
// (its next page, or the same page by another client) reads only the page's rows by id. Like the
// list's marks (listMarks.ts), the matches hold for one state of the workspace, named by a stamp
// the database keeps and reads with the page: a different stamp and they are dropped.

const MAX_SEARCHES = 200;
/** Searches with more matches are counted each time (and cost what they cost anyway). */
export const MAX_REMEMBERED_MATCHES = 2000;

type Matches = { stamp: string; ids: string[] };

export const createSearchResults = () => {
  const searches = new Map<string, Matches>();
  return {
    get: (search: string) => searches.get(search),
    set: (search: string, stamp: string, ids: string[]) => {
      if (ids.length > MAX_REMEMBERED_MATCHES) return;
      searches.delete(search); // most recently used last
      searches.set(search, { stamp, ids });
      for (const oldest of searches.keys()) {
        if (searches.size <= MAX_SEARCHES) break;
        searches.delete(oldest);
      }
    },
    forget: (search: string) => void searches.delete(search),
  };
};

export type SearchResults = ReturnType<typeof createSearchResults>;
