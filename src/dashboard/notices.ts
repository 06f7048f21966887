// The words shown after a form (post/redirect/get): the redirect names a notice in `?notice=`,
// and the page shows its fixed text. Never text from the URL, and never a name the map does not
// hold itself (a Map: `?notice=constructor` is nothing, not an inherited property).
export type NoticePage = 'grid' | 'flipbook' | 'profile' | 'members';

/** Each page's notices: name → words. */
const BY_PAGE: Record<NoticePage, Record<string, string>> = {
  flipbook: {
    uploaded: 'Uploaded. Processing starts in a moment; this page follows it.',
    activated: 'The version is now active: the reader link shows it.',
    'version-deleted': 'The version was deleted.',
    promoted:
      'Promoted: the preview’s version is now the active one, and the reader link shows it.',
    'preview-deleted': 'The preview was deleted, with its version and pages.',
    saved: 'Changes saved.',
    archived: 'Archived: the reader link now answers “not available”.',
    unarchived: 'Unarchived: the reader link works again.',
    'downloads-on': 'Downloads are on: readers can download it as a PDF.',
    'downloads-off': 'Downloads are off.',
    visibility: 'Saved: who can read it changed at once, for pages already open too.',
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

const NOTICES = new Map<string, { text: string; page: NoticePage }>();
for (const [page, texts] of Object.entries(BY_PAGE) as [NoticePage, Record<string, string>][]) {
  for (const [name, text] of Object.entries(texts)) {
    // one name, one page: a redirect names the notice alone
    if (NOTICES.has(name)) throw new Error(`notice ${name} is on two pages`);
    NOTICES.set(name, { text, page });
  }
}

export type Notice = { text: string; kind: 'ok' | 'error' };

/** The notice a page's URL names, if it is one of that page's (another page's is nothing). */
export const noticeOf = (params: URLSearchParams, page: NoticePage): Notice | null => {
  const notice = NOTICES.get(params.get('notice') ?? '');
  return notice && notice.page === page ? { text: notice.text, kind: 'ok' } : null;
};

/** The query string that names a notice, checked against the map when written. */
export const noticeQuery = (name: string) => {
  if (!NOTICES.has(name)) throw new Error(`no notice ${name}`);
  return `notice=${name}`;
};
