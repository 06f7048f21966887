// A flipbook's share links (/dashboard/flipbooks/:id/links; docs/access.md): one row per live
// link with its recipient (a link to its own page: its rules and readers, ./shareLink.ts), who
// reads, expiry, password, downloads and how often it was opened, a Revoke button each, and the
// form that makes one. A new link's URL is shown once, at the top, after the redirect that
// follows its form.
import type { SignedIn } from '../../app/accounts/sessions.ts';
import type { MailState } from '../../app/mailStatus.ts';
import type { Flipbook } from '../../contract/flipbooks.ts';
import type { ShareLink } from '../../contract/shareLinks.ts';
import { MAX_LINK_PASSWORD, MIN_LINK_PASSWORD } from '../../contract/shareLinks.ts';
import { MAX_LABEL } from '../../domain/flipbook/shareLinks.ts';
import { html } from '../../http/html.ts';
import { alert, dashboardPage } from '../layout.ts';
import { NO_RULES, type RulesDraft } from '../linkRulesForm.ts';
import { linkRulesFields } from './linkRules.ts';
import { mailNotice } from './mailNotice.ts';

/** What the person typed in "Create a link", given back when it is refused. */
export type LinkDraft = {
  label: string;
  expires: string;
  allowDownload: boolean;
  rules: RulesDraft;
  error: string;
};

export type ShareLinksState = MailState & {
  draft?: LinkDraft;
  /** the link just made: its URL, shown this once */
  created?: { label: string; url: string };
  notice?: string;
};

const VISIBILITY_WORDS: Record<Flipbook['visibility'], string> = {
  public:
    'Public: anyone with its reader link can read it. Share links also count who opened them.',
  workspace:
    'Workspace: only its members, signed in, read it at its reader link. Share links open it to anyone who has one.',
  links: 'Links only: no one reads it at its reader link; each share link below opens it.',
};

/** Who reads through a link, in a few words: its table cell. */
export const whoReads = (l: ShareLink) =>
  l.identify === 'none'
    ? 'Anyone'
    : html`${l.identify === 'email' ? 'An address' : 'A confirmed address'}<span class="status-reason">${l.readers === 1 ? '1 reader' : `${l.readers} readers`}</span>`;

export const shareLinksPage = (
  signedIn: SignedIn,
  flipbook: Flipbook,
  links: ShareLink[],
  state: ShareLinksState,
) => {
  const base = `/dashboard/flipbooks/${flipbook.id}`;
  const csrf = html`<input type="hidden" name="_csrf" value="${signedIn.csrfToken}">`;
  const draft = state.draft ?? {
    label: '',
    expires: '',
    allowDownload: true,
    rules: NO_RULES,
    error: '',
  };
  return dashboardPage(
    signedIn,
    'flipbooks',
    `Share links: ${flipbook.title}`,
    html`<div class="page-head">
<div class="head-main">
<p class="crumbs"><a href="/dashboard">Flipbooks</a> <a href="${base}">${flipbook.title}</a></p>
<h1>Share links</h1>
<p class="head-meta">${VISIBILITY_WORDS[flipbook.visibility]}</p>
</div>
</div>
${mailNotice(state.mailTrouble)}
${state.notice ? alert(state.notice, 'ok') : ''}
${
  state.created
    ? html`<section class="key-panel key-secret" aria-labelledby="link-title">
<h2 class="key-title" id="link-title">The link for ${state.created.label}</h2>
<p>Copy it now: this is the only time it is shown (only a hash of it is kept). Send it to its recipient; revoke it here when they should no longer read.</p>
<div class="secret">
<code id="new-link" class="secret-text">${state.created.url}</code>
<button type="button" class="primary" data-copy="new-link" hidden>Copy</button>
</div>
<p class="hint copy-status" id="new-link-status" role="status"></p>
</section>`
    : ''
}
<section class="panel" aria-labelledby="links-title">
<h2 id="links-title">Links</h2>
${
  links.length === 0
    ? html`<p>No share links yet.</p>`
    : html`<div class="table-wrap">
<table class="links">
<caption class="visually-hidden">Share links, oldest first</caption>
<thead><tr><th scope="col">For</th><th scope="col">Who reads</th><th scope="col">Expires (UTC)</th><th scope="col">Password</th><th scope="col">Download</th><th scope="col">Opened</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>
${links.map(
  (l) => html`<tr>
<th scope="row" data-label="For"><a href="${base}/links/${l.id}">${l.label}</a></th>
<td data-label="Who reads">${whoReads(l)}</td>
<td data-label="Expires (UTC)">${l.expired ? html`<span class="badge expired">Expired</span>` : l.expires_at ? html`<time datetime="${l.expires_at}">${l.expires_at.slice(0, 16).replace('T', ' ')}</time>` : 'Never'}</td>
<td data-label="Password">${l.has_password ? 'Yes' : 'No'}</td>
<td data-label="Download">${l.allow_download ? 'As the flipbook' : 'No'}</td>
<td data-label="Opened">${l.opens === 1 ? 'once' : `${l.opens} times`}${l.last_opened_on ? html`<span class="status-reason">last on ${l.last_opened_on}</span>` : ''}</td>
<td class="actions"><form method="post" action="${base}/links/${l.id}/revoke">
${csrf}
<button type="submit" class="danger" aria-label="Revoke the link for ${l.label}">Revoke</button>
</form></td>
</tr>`,
)}
</tbody>
</table>
</div>`
}
</section>
<section class="panel" aria-labelledby="create-title">
<h2 id="create-title">Create a link</h2>
${alert(draft.error || null)}
<form method="post" action="${base}/links" class="stack">
${csrf}
<label for="link-label">For whom</label>
<input id="link-label" name="label" required maxlength="${MAX_LABEL}" value="${draft.label}" aria-describedby="link-label-hint">
<p class="hint" id="link-label-hint">A name you will recognise, e.g. “Jane Doe, Acme”. Readers do not see it.</p>
<label for="link-expires">Expires on (optional)</label>
<input id="link-expires" name="expires" type="date" value="${draft.expires}" aria-describedby="link-expires-hint">
<p class="hint" id="link-expires-hint">The link stops working at the start of this day (UTC).</p>
<label for="link-password">Password (optional)</label>
<input id="link-password" name="password" type="password" autocomplete="new-password" minlength="${MIN_LINK_PASSWORD}" maxlength="${MAX_LINK_PASSWORD}" aria-describedby="link-password-hint">
<p class="hint" id="link-password-hint">At least ${MIN_LINK_PASSWORD} characters. Tell it to the recipient another way than the link.</p>
<label class="check"><input type="checkbox" name="allow_download" value="true"${draft.allowDownload ? html` checked` : ''}> Allow downloading the PDF (when the flipbook allows it)</label>
${linkRulesFields(draft.rules, state.mailConfigured, 'link')}
<button type="submit" class="primary">Create the link</button>
</form>
</section>`,
  );
};
