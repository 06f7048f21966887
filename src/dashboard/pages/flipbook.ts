// One flipbook (/dashboard/flipbooks/:id): its reader link and embed snippet to copy, its versions
// newest first (one table row each, with Activate and Delete), "Upload new version", its previews
// (./previews.ts), its details, availability and deletion (./flipbookSettings.ts), and its
// Activity (./activity.ts).
import type { SignedIn } from '../../app/accounts/sessions.ts';
import type { Activity, FlipbookOverview, VersionLine } from '../../app/flipbookOverview.ts';
import type { PreviewLine } from '../../app/previews.ts';
import { type Html, html } from '../../http/html.ts';
import { alert, dashboardPage } from '../layout.ts';
import type { Notice, SaidIn } from '../notices.ts';
import { activitySection } from './activity.ts';
import { type DetailsForm, settingsColumn } from './flipbookSettings.ts';
import {
  availabilityBadge,
  bytes,
  pages,
  statusWords,
  at as time,
  visibilityBadge,
} from './format.ts';
import { previewsSection } from './previews.ts';
import { pdfForm } from './uploadForm.ts';

export type FlipbookPageState = {
  /** a message after a form, in words: what was done (in its section), or what went wrong */
  notice?: Notice | null;
  details?: DetailsForm;
  versionError?: string | null;
};

export const flipbookPage = (
  signedIn: SignedIn,
  overview: FlipbookOverview,
  activity: Activity,
  previews: PreviewLine[],
  state: FlipbookPageState = {},
) => {
  const { flipbook: f, versions } = overview;
  const base = `/dashboard/flipbooks/${f.id}`;
  const active = versions.find((v) => v.isActive);
  const archived = f.status === 'archived';
  const { failed } = overview;
  const said = saidIn(state.notice);
  const snippet = `<iframe src="${f.url}" width="960" height="640" style="border:0" allowfullscreen title="${f.title.replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`)}"></iframe>`;
  return dashboardPage(
    signedIn,
    'flipbooks',
    f.title,
    html`<div class="page-head flipbook-head">
${
  active?.status === 'done' && !archived
    ? html`<span class="head-cover"><img src="/files/pages/${active.id}/1/min.jpg" alt=""></span>`
    : ''
}
<div class="head-main">
<p class="crumbs"><a href="/dashboard">Flipbooks</a></p>
<h1>${f.title}</h1>
<p class="head-meta">${availabilityBadge({ archived, failed, active: Boolean(active) })}
${visibilityBadge(f.visibility)}
${active ? html`<span>${pages(active.pageCount)}</span>` : html`<span>No active version yet</span>`}
<span>Changed ${time(f.updated_at)}</span></p>
</div>
<div class="head-actions">
<a class="button" href="${base}/stats">Statistics</a>
${failed ? '' : html`<a class="button primary" href="${f.url}">Open the reader</a>`}
</div>
</div>
${state.notice && !state.notice.section ? alert(state.notice.text, state.notice.kind) : ''}
<div class="flipbook-layout">
<div class="main-col">
${
  failed
    ? html`<section class="panel" aria-labelledby="failed-title">
<h2 id="failed-title">Not published</h2>
<p>No version of this flipbook could be processed, so there is nothing to read: its link answers “not found”. Upload a new version below (the link and embed code work once it is processed), or delete the flipbook.</p>
</section>`
    : html`<section class="panel" aria-labelledby="share-title">
<h2 id="share-title">Share</h2>
${archived ? html`<p class="note">Archived: the link answers “not available” until you unarchive the flipbook.</p>` : ''}
${privateNote(f.visibility, base)}
<div class="field">
<label for="reader-link">Reader link</label>
<div class="copy-row">
<input id="reader-link" readonly value="${f.url}">
<button type="button" data-copy="reader-link" hidden>Copy link</button>
</div>
<p class="hint" id="reader-link-status" role="status"></p>
</div>
<div class="field">
<label for="embed-code">Embed on a web page</label>
<div class="copy-row">
<textarea id="embed-code" readonly rows="3" spellcheck="false">${snippet}</textarea>
<button type="button" data-copy="embed-code" hidden>Copy embed code</button>
</div>
<p class="hint" id="embed-code-status" role="status"></p>
</div>
</section>`
}
${versionsSection(signedIn, base, versions, previewNames(previews), state.versionError, said)}
${previewsSection(base, f.slug, previews, said('previews'))}
${activitySection(base, activity)}
</div>
${settingsColumn(signedIn, base, overview, said, state.details)}
</div>`,
  );
};

/** What the reader link does for a private flipbook: not what a reader may take it for. */
const privateNote = (visibility: FlipbookOverview['flipbook']['visibility'], base: string) =>
  visibility === 'links'
    ? html`<p class="note">Share links only: this link opens only for the workspace’s members, signed in; anyone else gets “not found”. Give readers a <a href="${base}/links">share link</a>.</p>`
    : visibility === 'workspace'
      ? html`<p class="note">Members only: this link opens for the workspace’s members, signed in; anyone else is asked to sign in. <a href="${base}/links">Share links</a> open it to others.</p>`
      : '';

/**
 * A preview's version is a version while it lives: its row says whose it is, so its Activate (a
 * promotion) and Delete (the preview's deletion) are not taken for an ordinary version's.
 */
const previewNames = (previews: PreviewLine[]) =>
  new Map(previews.map(({ preview }) => [preview.version_id, preview.name]));

/** The notice said in a section, under its heading: where the page comes back after its form. */
const saidIn =
  (notice: Notice | null | undefined): SaidIn =>
  (section) =>
    notice?.section === section ? alert(notice.text, notice.kind) : '';

const versionsSection = (
  signedIn: SignedIn,
  base: string,
  versions: VersionLine[],
  previewOf: Map<string, string>,
  error: string | null | undefined,
  said: SaidIn,
) => html`<section class="panel" id="versions" aria-labelledby="versions-title">
<h2 id="versions-title">Versions</h2>
${said('versions')}
<div class="table-wrap">
<table class="versions">
<caption class="visually-hidden">Versions, newest first</caption>
<thead><tr><th scope="col">Version</th><th scope="col">Status</th><th scope="col">Pages</th><th scope="col">Size</th><th scope="col">Uploaded (UTC)</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody data-versions>
${versions.map((v) => versionRow(signedIn, base, v, previewOf.get(v.id)))}
</tbody>
</table>
</div>
<p class="visually-hidden" role="status" data-versions-live></p>
<h3 id="new-version">Upload new version</h3>
${pdfForm({
  action: `${base}/versions`,
  csrf: signedIn.csrfToken,
  plan: signedIn.workspace.plan,
  id: 'version-file',
  kind: 'version',
  button: 'Upload new version',
  error,
  before: html`<fieldset class="activate-choice">
<legend>When it is processed</legend>
<label><input type="radio" name="activate" value="true" checked> Make it the active version</label>
<label><input type="radio" name="activate" value="false"> Keep the current version active</label>
</fieldset>`,
})}
</section>`;

const versionRow = (
  signedIn: SignedIn,
  base: string,
  v: VersionLine,
  preview: string | undefined,
): Html => {
  const live = v.status === 'pending' || v.status === 'processing';
  return html`<tr data-version="${v.id}"${live ? html` data-status-url="${base}/versions/${v.id}/status.json"` : ''}>
<th scope="row" data-label="Version">Version ${v.number}${v.isActive ? html` <span class="badge active">Active</span>` : ''}${preview ? html` <span class="badge waiting preview-of" title="Preview ${preview}">Preview ${preview}</span>` : ''}</th>
<td data-label="Status"><span class="status ${v.status}" data-status-text>${v.status === 'processing' ? 'Processing' : statusWords(v)}</span>${v.error ? html`<span class="status-reason">${v.error}</span>` : ''}${live && v.activateOnDone ? html`<span class="status-reason">Becomes active once processed</span>` : ''}</td>
<td data-label="Pages">${v.status === 'done' ? v.pageCount : v.status === 'processing' && v.pageCount > 0 ? `${v.pagesReady} of ${v.pageCount}` : '—'}</td>
<td data-label="Size" class="size">${bytes(v.fileSize)}</td>
<td data-label="Uploaded (UTC)">${time(v.createdAt, true)}<span class="file-name" title="${v.fileName}">${v.fileName}</span></td>
<td class="actions">${
    v.isActive
      ? ''
      : html`${
          v.status === 'done'
            ? html`<form method="post" action="${base}/versions/${v.id}/activate">
<input type="hidden" name="_csrf" value="${signedIn.csrfToken}">
<button type="submit">Activate</button>
</form>`
            : ''
        }<form method="get" action="${base}/versions/${v.id}/delete">
<button type="submit" class="danger">Delete</button>
</form>`
  }</td>
</tr>`;
};
