// Types of ./searchText.js for the tests (the client is plain JavaScript, bundled for browsers).
export type Hit = { n: number; before: string; match: string; after: string };
export declare const fold: (text: string) => string;
export declare const findHits: (
  pages: Map<number, string>,
  query: string,
) => { hits: Hit[]; count: number; pages: number };
export declare const coveredWords: (words: string[], query: string) => number[];
