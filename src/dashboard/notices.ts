// The words shown after a form (post/redirect/get): the redirect names a notice in `?notice=`,
// and the page shows its fixed text. Never text from the URL, and never a name the map does not
// hold itself (a Map: `?notice=constructor` is nothing, not an inherited property).
export type NoticePage = 'grid' | 'flipbook' | 'profile' | 'members';

const NOTICES = new Map<string, { text: string; page: NoticePage }>([
  [
    'uploaded',
    { page: 'flipbook', text: 'Uploaded. Processing starts in a moment; this page follows it.' },
  ],
  ['activated', { page: 'flipbook', text: 'The version is now active: the reader link shows it.' }],
  ['version-deleted', { page: 'flipbook', text: 'The version was deleted.' }],
  [
    'promoted',
    {
      page: 'flipbook',
      text: 'Promoted: the preview’s version is now the active one, and the reader link shows it.',
    },
  ],
  [
    'preview-deleted',
    { page: 'flipbook', text: 'The preview was deleted, with its version and pages.' },
  ],
  ['saved', { page: 'flipbook', text: 'Changes saved.' }],
  [
    'archived',
    { page: 'flipbook', text: 'Archived: the reader link now answers “not available”.' },
  ],
  ['unarchived', { page: 'flipbook', text: 'Unarchived: the reader link works again.' }],
  [
    'downloads-on',
    { page: 'flipbook', text: 'Downloads are on: readers can download the original PDF.' },
  ],
  ['downloads-off', { page: 'flipbook', text: 'Downloads are off.' }],
  [
    'visibility',
    {
      page: 'flipbook',
      text: 'Saved: who can read it changed at once, for pages already open too.',
    },
  ],
  [
    'flipbook-deleted',
    { page: 'grid', text: 'The flipbook was deleted, with its versions and pages.' },
  ],
  [
    'password-changed',
    { page: 'profile', text: 'Your password is changed. Your other sessions are signed out.' },
  ],
  ['session-revoked', { page: 'profile', text: 'The session is signed out.' }],
  ['sessions-revoked', { page: 'profile', text: 'Every other session is signed out.' }],
  ['role-changed', { page: 'members', text: 'The role is changed.' }],
  ['member-removed', { page: 'members', text: 'They are removed and signed out.' }],
  [
    'invitation-revoked',
    { page: 'members', text: 'The invitation is revoked: its link no longer works.' },
  ],
]);

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
