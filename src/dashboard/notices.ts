// The words shown after a form (post/redirect/get): the redirect names a notice in `?notice=`,
// and the page shows its fixed text. Never text from the URL, and never a name the map does not
// hold itself (a Map: `?notice=constructor` is nothing, not an inherited property).
const NOTICES = new Map<string, string>([
  ['uploaded', 'Uploaded. Processing starts in a moment; this page follows it.'],
  ['activated', 'The version is now active: the reader link shows it.'],
  ['version-deleted', 'The version was deleted.'],
  ['saved', 'Changes saved.'],
  ['archived', 'Archived: the reader link now answers “not available”.'],
  ['unarchived', 'Unarchived: the reader link works again.'],
  ['downloads-on', 'Downloads are on: readers can download the original PDF.'],
  ['downloads-off', 'Downloads are off.'],
  ['flipbook-deleted', 'The flipbook was deleted, with its versions and pages.'],
  ['password-changed', 'Your password is changed. Your other sessions are signed out.'],
  ['session-revoked', 'The session is signed out.'],
]);

export type Notice = { text: string; kind: 'ok' | 'error' };

export const noticeOf = (params: URLSearchParams): Notice | null => {
  const text = NOTICES.get(params.get('notice') ?? '');
  return text ? { text, kind: 'ok' } : null;
};

/** The query string that names a notice, checked against the map when written. */
export const noticeQuery = (name: string) => {
  if (!NOTICES.has(name)) throw new Error(`no notice ${name}`);
  return `notice=${name}`;
};
