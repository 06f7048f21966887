// Upload (/dashboard/upload): a PDF, an optional title, "Upload". With the script, the upload's
// own progress, then processing page by page, until the reader link appears (client/upload.ts).
import type { SignedIn } from '../../app/accounts/sessions.ts';
import { MAX_TITLE } from '../../domain/flipbookFields.ts';
import { html } from '../../http/html.ts';
import { dashboardPage } from '../layout.ts';
import { pdfForm } from './uploadForm.ts';
import { visibilityChoice } from './visibilityChoice.ts';

export const uploadPage = (
  signedIn: SignedIn,
  form: {
    title?: string | undefined;
    visibility?: string | undefined;
    error?: string | null | undefined;
  } = {},
) =>
  dashboardPage(
    signedIn,
    'flipbooks',
    'Upload a document',
    html`<div class="page-head">
<div><p class="crumbs"><a href="/dashboard">Flipbooks</a></p>
<h1>Upload a document</h1></div>
</div>
<div class="upload-layout">
<section class="panel" aria-label="Upload">
${pdfForm({
  action: '/dashboard/upload',
  csrf: signedIn.csrfToken,
  plan: signedIn.workspace.plan,
  id: 'file',
  kind: 'flipbook',
  button: 'Upload',
  error: form.error,
  before: html`<div class="field">
<label for="title">Title <span class="optional">(optional)</span></label>
<input id="title" name="title" maxlength="${MAX_TITLE}" value="${form.title ?? ''}" aria-describedby="title-hint">
<p class="hint" id="title-hint">Left empty, the flipbook takes the file's name; the reader shows the PDF's own title when it has one. Several PDFs at once (drop or choose them together) become a flipbook each, named after its file.</p>
</div>
${visibilityChoice(form.visibility ?? 'public', html`<legend>Who can read it</legend>`)}`,
})}
<div class="upload-done" data-done hidden tabindex="-1">
<p class="done-title">Your flipbook is ready.</p>
<p class="done-links"><a class="button primary" data-reader-link href="/dashboard">Open the reader</a>
<a class="button" data-manage-link href="/dashboard">Manage this flipbook</a>
<a href="/dashboard/upload">Upload another PDF</a></p>
</div>
</section>
<aside class="panel steps" aria-labelledby="steps-title">
<h2 id="steps-title">What happens next</h2>
<ol>
<li><strong>Upload.</strong> The file is checked: a PDF, an office document or images, within your plan's limits.</li>
<li><strong>Processing.</strong> Every page becomes sharp images and searchable text; this page counts them as they come.</li>
<li><strong>Share.</strong> The reader link works at once; copy it, or the embed code, from the flipbook's page.</li>
</ol>
</aside>
</div>`,
  );
