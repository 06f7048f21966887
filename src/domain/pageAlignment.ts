// Which page of a preview is which page of the version before it (issue "Review a PDF change like
// a code change"): the alignment a comparison starts from, so a page inserted or removed does not
// make every later page "changed". Pure; the pages' texts and image hashes come from processing's
// own files (src/app/comparison.ts).
//
// Pages are matched first by what they say: the longest common subsequence of their keys (the
// text, whitespace folded; for a page with next to no text, its image hash), after the common
// beginning and end are taken off (an edit to one page of 300 leaves a tiny middle). Between two
// matched pages, what is left on both sides is a gap: as many pages before as after are paired in
// order (page 5 rewritten is page 5 changed); otherwise pairs are found by likeness (words shared,
// or image hashes close), and the rest are inserted or removed. A removed page whose very key is
// an inserted one's is a page moved.

export type PageSignature = {
  /** the page's text (pdftotext's), as processing kept it */
  text: string;
  /** a 64-bit difference hash of the page's image, as 16 hex digits */
  image: string;
};

export type Pair = { before: number; after: number };

export type Alignment = {
  /** positions (1-based) aligned with each other, in order: each is the same page, changed or not */
  pairs: Pair[];
  inserted: number[];
  removed: number[];
  /** the same page (same key) at another place */
  moved: Pair[];
};

/** Fewer letters than this and a page is told by its image (a photo, a cover, a blank page). */
const TEXTUAL = 24;
/** Over this many cells the middle is not searched for a subsequence: pages pair in order. */
const MAX_CELLS = 16_000_000;
/** Pages of a gap this alike pair up. */
const ALIKE = 0.5;

const folded = (text: string) => text.replace(/\s+/g, ' ').trim();

const keyOf = (page: PageSignature) => {
  const text = folded(page.text);
  return text.replace(/\s/g, '').length >= TEXTUAL ? `t:${text}` : `i:${page.image}`;
};

const words = (text: string) => new Set(folded(text).toLowerCase().split(' ').filter(Boolean));

const hamming = (a: string, b: string) => {
  let x = BigInt(`0x${a || '0'}`) ^ BigInt(`0x${b || '0'}`);
  let bits = 0;
  while (x > 0n) {
    bits += Number(x & 1n);
    x >>= 1n;
  }
  return bits;
};

/** 0 to 1: the share of words in common, or of image-hash bits alike for pages without text. */
export const likeness = (a: PageSignature, b: PageSignature): number => {
  const ka = keyOf(a);
  const kb = keyOf(b);
  if (ka.startsWith('t:') !== kb.startsWith('t:')) return 0;
  if (ka.startsWith('i:')) return 1 - hamming(a.image, b.image) / 64;
  const wa = words(a.text);
  const wb = words(b.text);
  let shared = 0;
  for (const w of wa) if (wb.has(w)) shared++;
  return (2 * shared) / Math.max(1, wa.size + wb.size);
};

/** Index pairs of a longest common subsequence of `a` and `b`. */
const commonSubsequence = (a: string[], b: string[]): [number, number][] => {
  const n = a.length;
  const m = b.length;
  if (n === 0 || m === 0) return [];
  // lengths[i][j]: the LCS of a[i..] and b[j..], one row of m + 1 per i
  const lengths = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lengths[i * (m + 1) + j] =
        a[i] === b[j]
          ? (lengths[(i + 1) * (m + 1) + j + 1] ?? 0) + 1
          : Math.max(lengths[(i + 1) * (m + 1) + j] ?? 0, lengths[i * (m + 1) + j + 1] ?? 0);
  const matched: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) matched.push([i++, j++]);
    else if ((lengths[(i + 1) * (m + 1) + j] ?? 0) >= (lengths[i * (m + 1) + j + 1] ?? 0)) i++;
    else j++;
  }
  return matched;
};

/** Pairs within a gap, in order, that maximise the likeness of those paired (each ≥ ALIKE). */
const pairByLikeness = (before: PageSignature[], after: PageSignature[]): [number, number][] => {
  const n = before.length;
  const m = after.length;
  const best = new Float64Array((n + 1) * (m + 1));
  const at = (i: number, j: number) => best[i * (m + 1) + j] ?? 0;
  const like = (i: number, j: number) => {
    const score = likeness(before[i] as PageSignature, after[j] as PageSignature);
    return score >= ALIKE ? score : -1;
  };
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--) {
      const score = like(i, j);
      best[i * (m + 1) + j] = Math.max(
        at(i + 1, j),
        at(i, j + 1),
        score > 0 ? score + at(i + 1, j + 1) : 0,
      );
    }
  const pairs: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    const score = like(i, j);
    if (score > 0 && Math.abs(at(i, j) - (score + at(i + 1, j + 1))) < 1e-9) pairs.push([i++, j++]);
    else if (at(i + 1, j) >= at(i, j + 1)) i++;
    else j++;
  }
  return pairs;
};

export const alignPages = (before: PageSignature[], after: PageSignature[]): Alignment => {
  const a = before.map(keyOf);
  const b = after.map(keyOf);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const middleA = a.slice(head, a.length - tail);
  const middleB = b.slice(head, b.length - tail);
  const anchors: [number, number][] = [];
  for (let k = 0; k < head; k++) anchors.push([k, k]);
  if (middleA.length * middleB.length <= MAX_CELLS)
    for (const [i, j] of commonSubsequence(middleA, middleB)) anchors.push([i + head, j + head]);
  for (let k = tail; k > 0; k--) anchors.push([a.length - k, b.length - k]);

  const pairs: Pair[] = [];
  const inserted: number[] = [];
  const removed: number[] = [];
  let fromA = 0;
  let fromB = 0;
  const closeGap = (toA: number, toB: number) => {
    const gapA = before.slice(fromA, toA);
    const gapB = after.slice(fromB, toB);
    const paired =
      gapA.length === gapB.length
        ? gapA.map((_, k): [number, number] => [k, k])
        : pairByLikeness(gapA, gapB);
    const pairedA = new Set(paired.map(([i]) => i));
    const pairedB = new Set(paired.map(([, j]) => j));
    for (const [i, j] of paired) pairs.push({ before: fromA + i + 1, after: fromB + j + 1 });
    gapA.forEach((_, i) => {
      if (!pairedA.has(i)) removed.push(fromA + i + 1);
    });
    gapB.forEach((_, j) => {
      if (!pairedB.has(j)) inserted.push(fromB + j + 1);
    });
  };
  for (const [i, j] of anchors) {
    closeGap(i, j);
    pairs.push({ before: i + 1, after: j + 1 });
    fromA = i + 1;
    fromB = j + 1;
  }
  closeGap(a.length, b.length);
  pairs.sort((x, y) => x.after - y.after);

  // A page removed here and inserted there with the very same key was moved.
  const moved: Pair[] = [];
  const insertedByKey = new Map<string, number[]>();
  for (const position of inserted) {
    const key = b[position - 1] as string;
    insertedByKey.set(key, [...(insertedByKey.get(key) ?? []), position]);
  }
  for (const position of removed) {
    const candidates = insertedByKey.get(a[position - 1] as string);
    const to = candidates?.shift();
    if (to !== undefined) moved.push({ before: position, after: to });
  }
  const movedBefore = new Set(moved.map((p) => p.before));
  const movedAfter = new Set(moved.map((p) => p.after));
  return {
    pairs,
    inserted: inserted.filter((p) => !movedAfter.has(p)),
    removed: removed.filter((p) => !movedBefore.has(p)),
    moved,
  };
};

/** A region of a page that changed: `[x, y, w, h]` in fractions of the page, from its top left. */
export type Region = [number, number, number, number];

/**
 * What a comparison found: the file kept beside the preview's pages (`compare.json`), which the
 * API and the reader show. Its counts are PreviewCompared's.
 */
export type Comparison = {
  againstVersionId: string | null;
  pagesBefore: number;
  pagesAfter: number;
  changed: (Pair & { regions: Region[] })[];
  inserted: number[];
  removed: number[];
  moved: Pair[];
  unchanged: number;
  /** why none could be made, in words (no live version, or it failed) */
  failure?: string;
};

/** The counts PreviewCompared records of a comparison. */
export const comparisonCounts = (c: Comparison) => ({
  againstVersionId: c.againstVersionId,
  pagesBefore: c.pagesBefore,
  pagesAfter: c.pagesAfter,
  changed: c.changed.length,
  inserted: c.inserted.length,
  removed: c.removed.length,
  moved: c.moved.length,
  unchanged: c.unchanged,
  ...(c.failure ? { failure: c.failure } : {}),
});
