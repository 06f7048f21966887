// "Mail is failing" (issue 44): shown on the share links' pages when a mail server was given but
// mail does not go out (src/app/mailStatus.ts), so that no one waits for codes and alerts that
// will not come without knowing it.
import type { MailTrouble } from '../../app/mailStatus.ts';
import { html } from '../../http/html.ts';

export const mailNotice = (trouble: MailTrouble | null | undefined) => {
  if (!trouble) return '';
  const answer =
    trouble.code === null
      ? 'no answer (the mail server could not be reached)'
      : `code ${trouble.code}${trouble.error ? ` (${trouble.error})` : ''}`;
  const waiting =
    trouble.queued === 0
      ? ''
      : ` ${trouble.queued} ${trouble.queued === 1 ? 'mail waits' : 'mails wait'}.`;
  return html`<div class="alert error mail-failing" role="alert">
<p><strong>Mail is failing.</strong> Codes for readers and mails about your links are not going out.${waiting}</p>
<p>The mail server’s last answer: ${answer}. The service’s operator can check its --smtp-url and the server’s log.</p>
</div>`;
};
