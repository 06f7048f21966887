// One share link's page (/dashboard/flipbooks/:id/links/:linkId; issue 44, docs/access.md "Who
// reads"): the readers who gave their address at it, each with what they read, and its CSV; then
// the form that changes who reads and the rules that go with it.
import type { SignedIn } from '../../app/accounts/sessions.ts';
import type { MailState } from '../../app/mailStatus.ts';
import type { Flipbook } from '../../contract/flipbooks.ts';
import type { LinkReader } from '../../contract/readers.ts';
import type { ShareLink } from '../../contract/shareLinks.ts';
import { html } from '../../http/html.ts';
import { alert, dashboardPage } from '../layout.ts';
import type { RulesDraft } from '../linkRulesForm.ts';
import { at } from './format.ts';
import { linkRulesFields } from './linkRules.ts';
import { mailNotice } from './mailNotice.ts';
import { pager } from './pager.ts';

export type ShareLinkState = MailState & {
  /** the rules form as typed, with its refusal; else the link's own */
  draft?: RulesDraft;
  error?: string;
  notice?: string;
};

/** 45 s, 4 min 12 s, 1 h 3 min. */
export const timeRead = (seconds: number) => {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
};

const when = (iso: string | null) => (iso ? at(iso, true) : 'Not yet');

const readerRow = (r: LinkReader) => html`<tr>
<td data-label="Email">${r.email}</td>
<td data-label="Confirmed">${r.verified ? 'Yes' : 'No'}</td>
<td data-label="First opened (UTC)">${when(r.first_opened_at)}</td>
<td data-label="Last opened (UTC)">${when(r.last_opened_at)}</td>
<td data-label="Time read">${timeRead(r.read_seconds)}</td>
<td data-label="Pages seen">${r.page_count === null ? `${r.pages_seen}` : `${r.pages_seen} of ${r.page_count}`}</td>
<td data-label="Completed">${r.completed ? 'Yes' : 'No'}</td>
<td data-label="Downloads">${String(r.downloads)}</td>
</tr>`;

/** Readers a page of the list shows (a link keeps up to 10,000: the CSV has them all). */
export const READERS_PER_PAGE = 100;

const readersTable = (
  link: ShareLink,
  readers: LinkReader[],
  self: string,
  /** the page of the list asked for (?readers=n), 1 when none or out of range */
  asked: number,
) => {
  if (readers.length === 0) {
    return link.identify === 'none'
      ? html`<p>This link asks no one for an address: its readers are counted in the flipbook’s statistics, never named. Choose “Ask for an email address” below to know who reads.</p>`
      : html`<p>No one has given an address at this link yet. Readers appear here once they have.</p>`;
  }
  const totalPages = Math.ceil(readers.length / READERS_PER_PAGE);
  // (past the last page: the last; not a page number: the first)
  const page = Number.isSafeInteger(asked) && asked >= 1 ? Math.min(asked, totalPages) : 1;
  const shown = readers.slice((page - 1) * READERS_PER_PAGE, page * READERS_PER_PAGE);
  const pageLink = (n: number) => `${self}?readers=${n}#readers-title`;
  // Which of them this page shows, said at its top: a page of 100 is long on a phone.
  const range =
    totalPages > 1
      ? `: ${((page - 1) * READERS_PER_PAGE + 1).toLocaleString('en')} to ${((page - 1) * READERS_PER_PAGE + shown.length).toLocaleString('en')} shown (page ${page} of ${totalPages})`
      : '';
  return html`<p class="readers-summary">${readers.length === 1 ? 'One reader' : `${readers.length.toLocaleString('en')} readers`}, most recently opened first${range}. <a class="button" href="${self}/readers.csv" download>Download CSV</a></p>
<div class="table-wrap">
<table class="readers">
<caption class="visually-hidden">Readers of the link, most recently opened first</caption>
<thead><tr><th scope="col">Email</th><th scope="col">Confirmed</th><th scope="col">First opened (UTC)</th><th scope="col">Last opened (UTC)</th><th scope="col">Time read</th><th scope="col">Pages seen</th><th scope="col">Completed</th><th scope="col">Downloads</th></tr></thead>
<tbody>
${shown.map(readerRow)}
</tbody>
</table>
</div>
${pager('readers', { page, totalPages }, pageLink, { prev: 'More recent', next: 'Earlier' })}`;
};

export const shareLinkPage = (
  signedIn: SignedIn,
  flipbook: Flipbook,
  link: ShareLink,
  readers: LinkReader[],
  draft: RulesDraft,
  state: ShareLinkState,
  readersPage = 1,
) => {
  const base = `/dashboard/flipbooks/${flipbook.id}`;
  const self = `${base}/links/${link.id}`;
  return dashboardPage(
    signedIn,
    'flipbooks',
    `Share link for ${link.label}: ${flipbook.title}`,
    html`<div class="page-head">
<div class="head-main">
<p class="crumbs"><a href="/dashboard">Flipbooks</a> <a href="${base}">${flipbook.title}</a> <a href="${base}/links">Share links</a></p>
<h1>Share link for ${link.label}</h1>
<p class="head-meta">Opened ${link.opens === 1 ? 'once' : `${link.opens} times`}${link.expires_at ? html`; ${link.expired ? 'expired' : 'expires'} ${at(link.expires_at)}` : ''}.</p>
</div>
</div>
${mailNotice(state.mailTrouble)}
${state.notice ? alert(state.notice, 'ok') : ''}
<section class="panel" aria-labelledby="readers-title">
<h2 id="readers-title">Readers</h2>
${readersTable(link, readers, self, readersPage)}
</section>
<section class="panel" aria-labelledby="rules-title">
<h2 id="rules-title">Its rules</h2>
${alert(state.error || null)}
<form method="post" action="${self}" class="stack">
<input type="hidden" name="_csrf" value="${signedIn.csrfToken}">
${linkRulesFields(draft, state.mailConfigured, 'rules')}
<button type="submit" class="primary">Save</button>
</form>
</section>`,
  );
};
