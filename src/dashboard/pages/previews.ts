// A flipbook's Previews on its page (docs/ci.md, "Reviewing a change before it goes live"): one
// row per live preview, the latest pushed first, with its name, when and by whom it was last
// pushed, how processing stands, what changed in the words a pull request shows (the client's
// `summaryLine`: one definition), and Open (its reader, in a new tab), Promote and Delete, each
// confirmed on a page of its own (./confirm.ts) before its form changes anything.
import { summaryLine } from '../../../packages/cli/src/previewReport.ts';
import type { PreviewLine } from '../../app/previews.ts';
import type { Preview } from '../../contract/previews.ts';
import { type Html, html } from '../../http/html.ts';
import { actorWords } from './activity.ts';
import { statusWords, at as time } from './format.ts';

/** How processing stands, in the versions table's words. */
const statusOf = (p: Preview) =>
  statusWords({ status: p.status, pageCount: p.pages, pagesReady: p.pages_done });

export const previewsSection = (
  base: string,
  slug: string,
  lines: PreviewLine[],
  /** the notice after a preview's form, said here */
  notice: Html | '',
) => html`<section class="panel" id="previews" aria-labelledby="previews-title">
<h2 id="previews-title">Previews</h2>
${notice}
${
  lines.length === 0
    ? html`<p class="note">No previews. A pipeline makes one per pull request with <code>flipbook publish FILE --slug ${slug} --preview pr-128</code>: processed and shown at an address of its own with what changed, never live until it is promoted here or on merge (docs/ci.md, “Reviewing a change before it goes live”).</p>`
    : html`<div class="table-wrap">
<table class="previews">
<caption class="visually-hidden">Previews, the latest pushed first</caption>
<thead><tr><th scope="col">Preview</th><th scope="col">Pushed (UTC)</th><th scope="col">Status</th><th scope="col">Changes</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>
${lines.map((line) => previewRow(base, line))}
</tbody>
</table>
</div>`
}
</section>`;

/** Its own reading figures (apart from the book's), once someone opened it. */
const readWords = ({ opens, readers }: Preview['reading']) =>
  `opened ${opens} ${opens === 1 ? 'time' : 'times'} by ${readers} ${readers === 1 ? 'reader' : 'readers'}`;

const previewRow = (base: string, { preview: p, pushedBy }: PreviewLine) => {
  const path = `${base}/previews/${p.name}`;
  return html`<tr data-preview="${p.name}">
<th scope="row" data-label="Preview">${p.name}</th>
<td data-label="Pushed (UTC)">${time(p.updated_at, true)} <span class="status-reason">by ${actorWords(pushedBy)}</span></td>
<td data-label="Status"><span class="status ${p.status}">${statusOf(p)}</span>${p.error_reason ? html` <span class="status-reason">${p.error_reason}</span>` : ''}</td>
<td data-label="Changes">${p.status === 'error' ? '—' : summaryLine(p)}${p.reading.opens > 0 ? html` <span class="status-reason">${readWords(p.reading)}</span>` : ''}</td>
<td class="actions">${
    p.status === 'error'
      ? ''
      : html`<a class="button" href="${p.preview_url}" target="_blank" rel="noopener" aria-label="Open ${p.name} (in a new tab)">Open</a>`
  }${
    p.status === 'done'
      ? html`<form method="get" action="${path}/promote">
<button type="submit" aria-label="Promote ${p.name}">Promote</button>
</form>`
      : ''
  }<form method="get" action="${path}/delete">
<button type="submit" class="danger" aria-label="Delete ${p.name}">Delete</button>
</form></td>
</tr>`;
};
