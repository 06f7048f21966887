// The home page once signed in: the workspace's flipbooks as a grid of covers, with the list
// endpoint's own search, status filter, sort and paging (the same query parameters).

import type { SignedIn } from '../../app/accounts/sessions.ts';
import type { listFlipbookCards } from '../../app/flipbooks.ts';
import { ListFlipbooksQuery } from '../../contract/flipbooks.ts';
import { html } from '../../http/html.ts';
import type { ListQuery } from '../../readTables/flipbooks.ts';
import { alert, dashboardPage } from '../layout.ts';
import type { Notice } from '../notices.ts';
import { availabilityBadge, visibilityBadge } from './format.ts';
import { pager } from './pager.ts';

const MAX_SEARCH = ListFlipbooksQuery.properties.search.maxLength as number;

const SORTS: [ListQuery['sort'], string][] = [
  ['updated_at', 'Last change'],
  ['created_at', 'Created'],
  ['title', 'Title'],
];

const when = (iso: string) => iso.replace('T', ' ').replace(/:\d\dZ$/, ' UTC');

export const flipbooksPage = (
  signedIn: SignedIn,
  list: Awaited<ReturnType<typeof listFlipbookCards>>,
  query: ListQuery,
  error: string | null = null,
  notice: Notice | null = null,
) => {
  const params = (page: number) => {
    const p = new URLSearchParams();
    if (query.search) p.set('search', query.search);
    if (query.status) p.set('status', query.status);
    p.set('sort', query.sort);
    p.set('dir', query.dir);
    p.set('page', String(page));
    return `/dashboard?${p}`;
  };
  return dashboardPage(
    signedIn,
    'flipbooks',
    'Flipbooks',
    html`<div class="page-head">
<h1>Flipbooks</h1>
<a class="button primary" href="/dashboard/upload">Upload a document</a>
</div>
${alert(error)}
${notice ? alert(notice.text, notice.kind) : ''}
<form class="filters" method="get" action="/dashboard" role="search">
<div class="field grow"><label for="search">Search titles</label>
<input id="search" name="search" type="search" maxlength="${MAX_SEARCH}" value="${query.search ?? ''}"></div>
<div class="field"><label for="status">Status</label>
<select id="status" name="status">
<option value=""${query.status === null ? html` selected` : ''}>All</option>
<option value="published"${query.status === 'published' ? html` selected` : ''}>Published</option>
<option value="archived"${query.status === 'archived' ? html` selected` : ''}>Archived</option>
</select></div>
<div class="field"><label for="sort">Sort by</label>
<select id="sort" name="sort">
${SORTS.map(([value, label]) => html`<option value="${value}"${query.sort === value ? html` selected` : ''}>${label}</option>`)}
</select></div>
<div class="field"><label for="dir">Order</label>
<select id="dir" name="dir">
<option value="desc"${query.dir === 'desc' ? html` selected` : ''}>Newest / Z first</option>
<option value="asc"${query.dir === 'asc' ? html` selected` : ''}>Oldest / A first</option>
</select></div>
<button type="submit">Apply</button>
</form>
${
  list.cards.length === 0
    ? query.search || query.status
      ? html`<div class="empty-state"><p>No flipbook matches.</p>
<p><a class="button" href="/dashboard">Show every flipbook</a></p></div>`
      : html`<div class="empty-state"><p>No flipbooks yet.</p>
<p><a class="button primary" href="/dashboard/upload">Upload your first PDF</a></p></div>`
    : html`<ul class="grid" aria-label="Flipbooks">
${list.cards.map(({ flipbook: f, active, failed }) => {
  return html`<li class="tile">
<a href="/dashboard/flipbooks/${f.id}" class="tile-link">
<span class="cover">${
    active && active.status === 'done'
      ? html`<img src="/files/pages/${active.id}/1/min.jpg" alt="" loading="lazy">`
      : html`<span class="cover-placeholder" aria-hidden="true">PDF</span>`
  }</span>
<span class="tile-title">${f.title}</span>
</a>
<span class="tile-meta">
${availabilityBadge({ archived: f.status === 'archived', failed, active: active !== null })}
${visibilityBadge(f.visibility)}
${active ? html`<span>${active.status === 'done' ? `${active.pageCount} ${active.pageCount === 1 ? 'page' : 'pages'}` : statusWords(active.status)}</span>` : html`<span>${failed ? 'No version could be processed' : 'No active version yet'}</span>`}
</span>
<span class="tile-date">Changed ${when(f.updated_at)}</span>
</li>`;
})}
</ul>`
}
${pager('flipbooks', { page: query.page, totalPages: list.totalPages }, params, {
  prev: 'Previous',
  next: 'Next',
})}`,
  );
};

const statusWords = (status: string) =>
  ({
    pending: 'Waiting to be processed',
    processing: 'Processing…',
    error: 'Could not be processed',
  })[status] ?? status;
