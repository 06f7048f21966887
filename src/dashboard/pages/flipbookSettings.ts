// The side of one flipbook's page: its details (title, slug, description), its availability
// (downloads on or off, archived or published) and its deletion. Plain forms, each with the
// session's CSRF token; deleting asks first, on a page of its own (./confirm.ts).
import type { SignedIn } from '../../app/accounts/sessions.ts';
import type { FlipbookOverview } from '../../app/flipbookOverview.ts';
import { MAX_DESCRIPTION, MAX_SLUG, MAX_TITLE } from '../../domain/flipbookFields.ts';
import { html } from '../../http/html.ts';
import { alert } from '../layout.ts';
import type { SaidIn } from '../notices.ts';
import { visibilityChoice } from './visibilityChoice.ts';

/** What the person typed, kept when the edit is refused, with the reason. */
export type DetailsForm = { title: string; slug: string; description: string; error: string };

export const settingsColumn = (
  signedIn: SignedIn,
  base: string,
  { flipbook: f, downloadAllowed, failed }: FlipbookOverview,
  said: SaidIn,
  typed?: DetailsForm,
) => {
  const csrf = html`<input type="hidden" name="_csrf" value="${signedIn.csrfToken}">`;
  const value = typed ?? { title: f.title, slug: f.slug, description: f.description, error: '' };
  const archived = f.status === 'archived';
  return html`<div class="side-col">
<section class="panel" id="details" aria-labelledby="details-title">
<h2 id="details-title">Details</h2>
${said('details')}${alert(value.error || null)}
<form method="post" action="${base}" class="stack">
${csrf}
<label for="edit-title">Title</label>
<input id="edit-title" name="title" required maxlength="${MAX_TITLE}" value="${value.title}">
<label for="edit-slug">Slug</label>
<input id="edit-slug" name="slug" required maxlength="${MAX_SLUG}" pattern="[a-z0-9]+(-[a-z0-9]+)*" value="${value.slug}" aria-describedby="edit-slug-hint" spellcheck="false" autocapitalize="none">
<p class="hint" id="edit-slug-hint">Lowercase letters, digits and hyphens. The readable address is <span class="path">/w/${signedIn.workspace.name}/${f.slug}</span>.</p>
<label for="edit-description">Description</label>
<textarea id="edit-description" name="description" rows="4" maxlength="${MAX_DESCRIPTION}">${value.description}</textarea>
<button type="submit">Save changes</button>
</form>
</section>
<section class="panel" id="readers" aria-labelledby="readers-title">
<h2 id="readers-title">Who can read it</h2>
${said('readers')}<form method="post" action="${base}/visibility" class="stack">
${csrf}
${visibilityChoice(f.visibility, html`<legend class="visually-hidden">Who can read it</legend>`)}
<button type="submit">Save who can read it</button>
</form>
<p><a href="${base}/links">Share links</a>: one link per recipient, with an expiry or a password if you like, each revocable.</p>
</section>
<section class="panel" id="availability" aria-labelledby="availability-title">
<h2 id="availability-title">Availability</h2>
${said('availability')}<div class="setting">
<p><strong>Downloads ${downloadAllowed ? 'on' : 'off'}.</strong> ${
    downloadAllowed
      ? `Readers can download ${whatReadersGet(f.versions)}.`
      : `Readers cannot download ${whatReadersGet(f.versions)}.`
  }</p>
<form method="post" action="${base}/download">
${csrf}
<input type="hidden" name="allow" value="${downloadAllowed ? 'false' : 'true'}">
<button type="submit">${downloadAllowed ? 'Turn downloads off' : 'Allow downloads'}</button>
</form>
</div>
<div class="setting">
<p><strong>${archived ? 'Archived.' : failed ? 'Not published.' : 'Published.'}</strong> ${
    archived
      ? 'The reader link answers “not available”; nothing is deleted.'
      : failed
        ? 'No version could be processed: the link answers “not found” until one is.'
        : 'Its readers can read it. Archiving takes it off the web without deleting it.'
  }</p>
<form method="post" action="${base}/${archived ? 'unarchive' : 'archive'}">
${csrf}
<button type="submit">${archived ? 'Unarchive' : 'Archive'}</button>
</form>
</div>
</section>
<section class="panel danger-zone" aria-labelledby="delete-title">
<h2 id="delete-title">Delete</h2>
<p>Deletes the flipbook, every version and every page for good. Its link stops working.</p>
<form method="get" action="${base}/delete">
<button type="submit" class="danger">Delete this flipbook</button>
</form>
</section>
</div>`;
};

/**
 * What the reader's Download button gives: always a PDF, the upload itself or the one made of a
 * converted upload (a .docx, a deck, images), so the page never promises the file as uploaded.
 */
export const whatReadersGet = (versions: readonly { is_active: boolean; file_type: string }[]) => {
  const type = versions.find((v) => v.is_active)?.file_type ?? 'pdf';
  return type === 'pdf' ? 'the original PDF' : `a PDF made of the uploaded ${fileKind(type)}`;
};

const fileKind = (type: string) => (type === 'zip' ? 'images' : `.${type} file`);
