// The reader's words, per language: the page's own (buttons, labels, messages: PageWords) and
// the script's (ScriptWords, carried in the page's data). English is ./en.ts; each language a
// file beside it, checked key by key and {name} by {name} against English
// (test/unit/readerWords.unit.test.ts).
import type { ScriptWords } from '../client/words.ts';

export type PageWords = {
  skip: string;
  tools: string;
  contents: string;
  pages: string;
  search: string;
  share: string;
  fullScreen: string;
  download: string;
  closePanel: string;
  searchLabel: string;
  find: string;
  results: string;
  goTo: string;
  controls: string;
  first: string;
  previous: string;
  next: string;
  last: string;
  slider: string;
  counterHint: string;
  zoom: string;
  zoomReset: string;
  zoomOut: string;
  zoomIn: string;
  flipbook: string;
  stillPreparing: string;
  noScript: string;
  readText: string;
  pagesFromTo: string;
  notReady: string;
  notReadyFailed: string;
  notFoundTitle: string;
  notFound: string;
  stalledTitle: string;
  stalled: string;
  goneTitle: string;
  goneHeading: string;
  gone: string;
  passwordTitle: string;
  passwordHeading: string;
  passwordHint: string;
  password: string;
  open: string;
  passwordWrong: string;
  passwordThrottled: string;
  identifyTitle: string;
  identifyHeading: string;
  identifyNotice: string;
  verifyNotice: string;
  watermarkNotice: string;
  emailAddress: string;
  termsHeading: string;
  acceptTerms: string;
  continueReading: string;
  codeTitle: string;
  codeHeading: string;
  codeHint: string;
  code: string;
  codeWrong: string;
  emailInvalid: string;
  notAllowed: string;
  termsRequired: string;
  otherAddress: string;
  tooBusy: string;
  /** a link's form refused before it was read (another site's, too large, not UTF-8) */
  formRefused: string;
  /** a link that keeps no more readers (src/app/readerAdmission.ts) */
  linkFull: string;
  codeNoMail: string;
  textTitle: string;
  openFlipbook: string;
  textStillPreparing: string;
  noText: string;
  /** a preview's banner (/p/<token>) */
  preview: string;
  changes: string;
};

export type Words = PageWords & { script: ScriptWords };
