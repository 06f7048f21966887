// The reader's words in the reader's language: the page carries them (#flipbook-data, chosen by
// the server from Accept-Language: src/reader/words), so the script holds none of its own and
// any language costs it nothing. The script says them with ./say.ts; `fill` is the server's too.

/** Every sentence the script says; {names} are filled in. */
export type ScriptWords = {
  page: string;
  pageOf: string;
  pageOfLabelled: string;
  preparing: string;
  failed: string;
  restFailed: string;
  /** a part of the script fetched on first use (a panel, search) did not come */
  notLoaded: string;
  loadingContents: string;
  contentsLater: string;
  noContents: string;
  tableOfContents: string;
  pages: string;
  gotoLabelled: string;
  gotoNumber: string;
  go: string;
  noSuchPage: string;
  searching: string;
  noHitsYet: string;
  noHits: string;
  hits: string;
  hitsListed: string;
  linkTo: string;
  linkNamed: string;
  linkToBook: string;
  linkToPage: string;
  embed: string;
  embedFromPage: string;
  width: string;
  height: string;
  copy: string;
  copyWhat: string;
  copied: string;
  copyByHand: string;
  shareSheet: string;
  qrCode: string;
  qrDownload: string;
  /** a preview's Changes panel and compare view (./changesPanel.ts) */
  changesComparing: string;
  changesNone: string;
  changesFailed: string;
  changesSummary: string;
  changedPage: string;
  insertedPage: string;
  removedPage: string;
  movedPage: string;
  compareTitle: string;
  before: string;
  after: string;
  beforeImage: string;
  afterImage: string;
  closeCompare: string;
};

/** A sentence with its {names} filled in from `vars`. */
export const fill = (sentence: string, vars: Record<string, string | number> = {}) =>
  sentence.replace(/\{(\w+)\}/g, (_, name: string) => String(vars[name] ?? ''));
