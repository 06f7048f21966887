// The words shown after a form (post/redirect/get): the redirect names a notice in `?notice=`,
// and the page shows its fixed text. Never text from the URL, and never a name the map does not
// hold itself (a Map: `?notice=constructor` is nothing, not an inherited property).
import type { Html } from '../http/html.ts';

export type NoticePage = 'grid' | 'flipbook' | 'profile' | 'members';

/**
 * Each page's notices: name → words, or [words, section] on a page that comes back at the form's
 * own section (the redirect's #anchor) and says the notice there: at the top of a long page it
 * was a phone's length above the screen, where nobody saw it (an independent tester's find).
 */
const BY_PAGE: Record<NoticePage, Record<string, string | [string, string]>> = {
  flipbook: {
    uploaded: ['Uploaded. Processing starts in a moment; this page follows it.', 'versions'],
    activated: ['The version is now active: the reader link shows it.', 'versions'],
    'version-deleted': ['The version was deleted.', 'versions'],
    promoted: [
      'Promoted: the preview’s version is now the active one, and the reader link shows it.',
      'versions',
    ],
    'preview-deleted': ['The preview was deleted, with its version and pages.', 'previews'],
    saved: ['Changes saved.', 'details'],
    archived: ['Archived: the reader link now answers “not available”.', 'availability'],
    unarchived: ['Unarchived: the reader link works again.', 'availability'],
    'downloads-on': ['Downloads are on: readers can download it as a PDF.', 'availability'],
    'downloads-off': ['Downloads are off.', 'availability'],
    visibility: ['Saved: who can read it changed at once, for pages already open too.', 'readers'],
  },
  grid: { 'flipbook-deleted': 'The flipbook was deleted, with its versions and pages.' },
  profile: {
    'password-changed': 'Your password is changed. Your other sessions are signed out.',
    'session-revoked': 'The session is signed out.',
    'sessions-revoked': 'Every other session is signed out.',
  },
  members: {
    'role-changed': 'The role is changed.',
    'member-removed': 'They are removed and signed out.',
    'invitation-revoked': 'The invitation is revoked: its link no longer works.',
  },
};

type Entry = { text: string; page: NoticePage; section?: string };
const NOTICES = new Map<string, Entry>();
for (const [page, texts] of Object.entries(BY_PAGE) as [
  NoticePage,
  Record<string, string | [string, string]>,
][]) {
  for (const [name, said] of Object.entries(texts)) {
    // one name, one page: a redirect names the notice alone
    if (NOTICES.has(name)) throw new Error(`notice ${name} is on two pages`);
    const [text, section] = typeof said === 'string' ? [said] : said;
    NOTICES.set(name, { text, page, ...(section ? { section } : {}) });
  }
}

/** What a page says after a form; `section`: where on the page (else at its top). */
export type Notice = { text: string; kind: 'ok' | 'error'; section?: string };

/** A page's notice as said in one of its sections (nothing in the others). */
export type SaidIn = (section: string) => Html | '';

/** The notice a page's URL names, if it is one of that page's (another page's is nothing). */
export const noticeOf = (params: URLSearchParams, page: NoticePage): Notice | null => {
  const notice = NOTICES.get(params.get('notice') ?? '');
  if (!notice || notice.page !== page) return null;
  return { text: notice.text, kind: 'ok', ...(notice.section ? { section: notice.section } : {}) };
};

const entry = (name: string) => {
  const notice = NOTICES.get(name);
  if (!notice) throw new Error(`no notice ${name}`);
  return notice;
};

/** The query string that names a notice, checked against the map when written. */
export const noticeQuery = (name: string) => `notice=${entry(name) && name}`;

/** A redirect's query and anchor for a notice said in a section: the page comes back there. */
export const noticeAt = (name: string) => {
  const { section } = entry(name);
  return `?${noticeQuery(name)}${section ? `#${section}` : ''}`;
};
