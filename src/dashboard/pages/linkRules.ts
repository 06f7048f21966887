// A share link's reader rules as form fields (issue 44; docs/access.md, "Who reads"), the same on
// "Create a link" and on a link's own page: who reads (anonymously, an address, an address
// confirmed by a mailed code), terms, an allow list, the watermark, a mail on opening. Without a
// mail server the two that mail are shown disabled, with the reason beside them.
import { MAX_ALLOW, MAX_TERMS } from '../../domain/flipbook/shareLinks.ts';
import { html } from '../../http/html.ts';
import type { RulesDraft } from '../linkRulesForm.ts';

const WHO_READS = [
  ['none', 'Anyone, anonymously', 'No address asked; readers are only counted.'],
  ['email', 'Ask for an email address', 'Each reader gives an address before the first page.'],
  [
    'verified_email',
    'Ask for an email address and confirm it with a mailed code',
    'A six-digit code is mailed to the address; the reader types it in.',
  ],
] as const;

/** The fields; `id` tells two forms on one page apart. */
export const linkRulesFields = (draft: RulesDraft, mailConfigured: boolean, id: string) => {
  const noMail = `${id}-no-mail`;
  const needsMail = (mode: string) => !mailConfigured && mode === 'verified_email';
  return html`<fieldset class="visibility-choice who-reads">
<legend>Who reads</legend>
${WHO_READS.map(
  ([value, label, hint]) =>
    html`<label class="choice"><input type="radio" name="identify" value="${value}"${draft.identify === value ? html` checked` : ''}${needsMail(value) ? html` disabled aria-describedby="${noMail}"` : ''}> <span><strong>${label}</strong> <span class="hint">${hint}</span></span></label>`,
)}
</fieldset>
${mailConfigured ? '' : html`<p class="hint no-mail" id="${noMail}">Mailing a code and mailing you need a mail server, and this service has none: its operator starts it with --smtp-url.</p>`}
<p class="hint">The rules below need the reader’s address: choose one of the last two above.</p>
<label for="${id}-terms">Terms to accept (optional)</label>
<textarea id="${id}-terms" name="terms" rows="3" maxlength="${MAX_TERMS}" aria-describedby="${id}-terms-hint">${draft.terms}</textarea>
<p class="hint" id="${id}-terms-hint">Shown before the first page; the reader accepts them to read, and each acceptance is kept with the text.</p>
<label for="${id}-allow">Only these readers (optional)</label>
<textarea id="${id}-allow" name="allow" rows="3" aria-describedby="${id}-allow-hint" spellcheck="false">${draft.allow}</textarea>
<p class="hint" id="${id}-allow-hint">${draft.closed ? html`<strong>Every address this link was limited to was erased: no one can read it now.</strong> Add addresses to let them in. ` : ''}One address (jane@acme.com) or domain (acme.com) a line, at most ${MAX_ALLOW}. Empty: anyone who gives an address.</p>
<label class="check"><input type="checkbox" name="watermark" value="true"${draft.watermark ? html` checked` : ''}> Mark each page with the reader’s address</label>
<label class="check"><input type="checkbox" name="notify" value="true"${draft.notify ? html` checked` : ''}${mailConfigured ? '' : html` disabled aria-describedby="${noMail}"`}> Mail me when someone opens it</label>`;
};
