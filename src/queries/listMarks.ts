// Where the list's pages ended, remembered by this process, so that a deep page need not skip
// every index entry before it. A mark says "position p of this list follows the row (key, id)":
// a later request for a page at or after p starts from that row (keyset) and skips only the rest.
// A list's marks hold for one state of the workspace, named by a stamp the database keeps
// (flipbook_counts.changed or .touched) and reads in the same statement as the page: when the
// stamp read is not the marks' stamp, they are dropped and the page is read again from the start.
// Nothing here is shared between daemons; each only ever trusts the database's stamp.

export type Mark = { key: string; id: string };

type List = { stamp: string; marks: Map<number, Mark> };

const MAX_LISTS = 500;
const MAX_MARKS = 200;

export const createListMarks = () => {
  const lists = new Map<string, List>();
  return {
    /** The mark nearest before `position` (at most it), for a list at any stamp. */
    nearest: (list: string, position: number) => {
      const found = lists.get(list);
      if (!found) return null;
      let best: { position: number; mark: Mark; stamp: string } | null = null;
      for (const [at, mark] of found.marks) {
        if (at <= position && at > (best?.position ?? 0))
          best = { position: at, mark, stamp: found.stamp };
      }
      return best;
    },
    /** Marks read at `stamp`; marks of another stamp go. */
    record: (list: string, stamp: string, marks: [number, Mark][]) => {
      let found = lists.get(list);
      if (!found || found.stamp !== stamp) found = { stamp, marks: new Map() };
      lists.delete(list); // most recently used last
      lists.set(list, found);
      for (const [at, mark] of marks) {
        if (at <= 0) continue;
        found.marks.delete(at);
        found.marks.set(at, mark);
      }
      for (const oldest of found.marks.keys()) {
        if (found.marks.size <= MAX_MARKS) break;
        found.marks.delete(oldest);
      }
      for (const oldest of lists.keys()) {
        if (lists.size <= MAX_LISTS) break;
        lists.delete(oldest);
      }
    },
    forget: (list: string) => void lists.delete(list),
  };
};

export type ListMarks = ReturnType<typeof createListMarks>;
