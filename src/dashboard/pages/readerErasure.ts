// "Erase a reader" on the workspace's page (issue 44; docs/privacy.md): an owner erases what the
// workspace keeps of a reader who gave their address at a link, at that reader's request. The
// form leads to a confirmation (./confirm.ts), and only that page's form erases; the count comes
// back in words. Members who are not owners see what it is, not the form.
import type { SignedIn } from '../../app/accounts/sessions.ts';
import { html } from '../../http/html.ts';
import { alert } from '../layout.ts';

export type ErasureState = {
  /** records erased, after the confirmation's redirect */
  erased?: number;
  /** the address as typed, with its refusal */
  email?: string;
  error?: string;
};

export const ERASE_ACTION = '/dashboard/workspace/readers/erase';

export const erasedWords = (n: number) =>
  n === 0
    ? 'Erased 0 records: no reader of this workspace gave that address. The erasure is recorded all the same.'
    : `Erased ${n} ${n === 1 ? 'record' : 'records'}: the address is gone from them, their reading figures stay without a name.`;

export const readerErasureSection = (signedIn: SignedIn, state: ErasureState) => {
  const isOwner = signedIn.person.role === 'owner';
  return html`<section class="panel" id="privacy" aria-labelledby="privacy-title">
<h2 id="privacy-title">Privacy: erase a reader</h2>
<p>Readers who gave their address at a share link may ask to be forgotten. Erasing one takes their address out of every link’s readers, allow lists, mails not yet sent and webhook payloads kept; their reading figures stay, without a name.</p>
${state.erased === undefined ? '' : alert(erasedWords(state.erased), 'ok')}${alert(state.error)}
${
  isOwner
    ? html`<form method="post" action="${ERASE_ACTION}" class="stack">
<input type="hidden" name="_csrf" value="${signedIn.csrfToken}">
<label for="erase-email">The reader’s email address</label>
<input id="erase-email" name="email" type="email" required maxlength="254" autocomplete="off" value="${state.email ?? ''}" aria-describedby="erase-email-hint">
<p class="hint" id="erase-email-hint">Any spelling of it: upper or lower case finds the same reader. You confirm on the next page.</p>
<button type="submit" class="danger">Erase a reader…</button>
</form>`
    : html`<p>An owner of the workspace can erase a reader.</p>`
}
</section>`;
};
