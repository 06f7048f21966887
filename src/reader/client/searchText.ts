// Search over the pages' text, pure: hits counted per page with a snippet around each, and which
// words of a page a query covers (for the highlights drawn over the page image).

/** Case- and accent-insensitive, white space collapsed: what a reader expects "find" to mean. */
export const fold = (text: string): string => folded(text).text;

/**
 * The folded text, and for each of its characters the offset in the original it came from (so
 * a snippet shows the page's own capitals and accents).
 */
const folded = (raw: string): { text: string; from: number[] } => {
  let text = '';
  const from: number[] = [];
  let space = false;
  let i = 0;
  for (const ch of raw) {
    if (/\s/.test(ch)) {
      if (!space) {
        text += ' ';
        from.push(i);
      }
      space = true;
    } else {
      space = false;
      for (const piece of ch.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase()) {
        text += piece;
        for (let k = 0; k < piece.length; k++) from.push(i);
      }
    }
    i += ch.length;
  }
  from.push(i);
  return { text, from };
};

const SNIPPET = 40;
const MAX_RESULTS = 500;

/** One occurrence of a query: its page, the words around it and the words it matched. */
export type Hit = { n: number; before: string; match: string; after: string };

/**
 * Every occurrence of the query in the pages' text: [{ n, before, match, after }] in page
 * order, at most MAX_RESULTS listed (all counted).
 */
export const findHits = (
  pages: Map<number, string>,
  query: string,
): { hits: Hit[]; count: number; pages: number } => {
  const wanted = fold(query).trim();
  const hits: Hit[] = [];
  let count = 0;
  if (!wanted) return { hits, count, pages: 0 };
  const withHits = new Set<number>();
  for (const [n, raw] of pages) {
    const { text, from: origin } = folded(raw);
    let from = 0;
    for (;;) {
      const at = text.indexOf(wanted, from);
      if (at < 0) break;
      count += 1;
      withHits.add(n);
      if (hits.length < MAX_RESULTS) {
        // Cut from the page's own text, so the snippet keeps its capitals and accents.
        // (origin has an offset for every folded character and one past the last)
        const start = origin[at] ?? 0;
        const end = origin[at + wanted.length] ?? raw.length;
        const flat = (s: string) => s.replace(/\s+/g, ' ');
        hits.push({
          n,
          before: trimStart(flat(raw.slice(Math.max(0, start - SNIPPET), start)), start > SNIPPET),
          match: flat(raw.slice(start, end)),
          after: trimEnd(flat(raw.slice(end, end + SNIPPET)), end + SNIPPET < raw.length),
        });
      }
      from = at + wanted.length;
    }
  }
  return { hits, count, pages: withHits.size };
};

const trimStart = (text: string, cut: boolean) =>
  (cut ? `…${text.replace(/^\S*\s/, '')}` : text).trimStart();
const trimEnd = (text: string, cut: boolean) =>
  (cut ? `${text.replace(/\s\S*$/, '')}…` : text).trimEnd();

/**
 * The indexes of a page's words that a query covers: the words are joined with single spaces
 * (as pdftotext -bbox lists them, in reading order) and every word overlapping an occurrence
 * is marked, so a query across two words lights both.
 */
export const coveredWords = (words: string[], query: string): number[] => {
  const wanted = fold(query).trim();
  if (!wanted) return [];
  const starts: number[] = [];
  let joined = '';
  for (const word of words) {
    if (joined) joined += ' ';
    starts.push(joined.length);
    joined += fold(word);
  }
  const covered = new Set<number>();
  let from = 0;
  for (;;) {
    const at = joined.indexOf(wanted, from);
    if (at < 0) break;
    const end = at + wanted.length;
    words.forEach((word, i) => {
      const start = starts[i] ?? 0; // one start per word
      if (start < end && start + fold(word).length > at) covered.add(i);
    });
    from = end;
  }
  return [...covered].sort((a, b) => a - b);
};
