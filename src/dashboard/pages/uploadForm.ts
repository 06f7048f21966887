// The PDF form both uploads share (a new flipbook, a new version of one): a file input labelled
// "PDF" inside a drop zone, the CSRF token before the file (so the server checks it before it
// stores a byte), the error in words right under the file, and the progress the script shows.
// Without JavaScript it is a plain multipart form; with it, client/upload.ts sends it with
// XMLHttpRequest for real upload progress, then follows processing page by page.

import { PLAN_LIMITS } from '../../domain/plans.ts';
import type { Plan } from '../../domain/workspace/workspace.ts';
import { type Html, html } from '../../http/html.ts';

const MB = 1024 * 1024;

export const limitsHint = (plan: Plan) => {
  const limits = PLAN_LIMITS[plan];
  return `Up to ${limits.maxUploadBytes / MB} MB and ${limits.maxPagesPerVersion} pages on the ${plan} plan.`;
};

/**
 * How to give the file. The script lets a new flipbook's form take several PDFs at once (each its
 * own flipbook), and then says so with the words held in `data-many`; without the script, the
 * form takes one, as the words it is served with say.
 */
export const dropWords = (kind: 'flipbook' | 'version') =>
  kind === 'flipbook'
    ? html`<span data-drop-words data-many="Drop one or more documents here, or choose them: each becomes a flipbook of its own.">Drop a PDF, an office document or an image here, or choose one.</span>`
    : html`<span data-drop-words>Drop a PDF, an office document or an image here, or choose one.</span>`;

/** What the file chooser offers: what the upload takes (the server tells by content anyway). */
const ACCEPT = [
  'application/pdf',
  ...['.pdf', '.docx', '.doc', '.odt', '.rtf', '.pptx', '.ppt', '.odp', '.xlsx', '.xls', '.ods'],
  ...[
    'image/jpeg',
    'image/png',
    'image/webp',
    'image/tiff',
    '.jpg',
    '.jpeg',
    '.png',
    '.webp',
    '.tif',
    '.tiff',
  ],
  // a folder of images, zipped: one page an image
  ...['application/zip', '.zip'],
].join(',');

export const pdfForm = (o: {
  action: string;
  csrf: string;
  plan: Plan;
  /** ids on the page: `<id>` is the file input */
  id: string;
  kind: 'flipbook' | 'version';
  button: string;
  error?: string | null | undefined;
  /** fields sent before the file (a title, the activate choice) */
  before?: Html;
}) => html`<form class="upload" method="post" action="${o.action}" enctype="multipart/form-data" data-upload="${o.kind}" data-max-bytes="${PLAN_LIMITS[o.plan].maxUploadBytes}" data-plan="${o.plan}">
<input type="hidden" name="_csrf" value="${o.csrf}">
${o.before ?? ''}
<div class="dropzone" data-dropzone>
<label for="${o.id}">PDF, office document or image</label>
<input id="${o.id}" name="file" type="file" accept="${ACCEPT}" required aria-describedby="${o.id}-hint ${o.id}-error"${o.error ? html` aria-invalid="true"` : ''}>
<p class="hint" id="${o.id}-hint">${dropWords(o.kind)} ${limitsHint(o.plan)}</p>
<p class="field-error" id="${o.id}-error" role="alert" data-file-error>${o.error ?? ''}</p>
</div>
<div class="upload-actions"><button type="submit" class="primary">${o.button}</button></div>
<div class="progress" data-progress hidden>
<div class="progress-head"><label for="${o.id}-progress" data-progress-label>Uploading</label>
<span class="progress-text" data-progress-text></span></div>
<progress id="${o.id}-progress" max="100" value="0"></progress>
<p class="visually-hidden" role="status" data-progress-live></p>
</div>
</form>`;
