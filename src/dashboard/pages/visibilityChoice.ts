// Who can read a flipbook, as radio buttons: on its settings and on the upload form
// (docs/access.md). One fieldset; the legend says what it is for the page it is on.
import { type Html, html } from '../../http/html.ts';

const VISIBILITY_CHOICES = [
  [
    'public',
    'Anyone with the link',
    'Its reader link works for everyone; it can be previewed and found.',
  ],
  [
    'workspace',
    'Members of this workspace',
    'Signed in to this dashboard. Share links still work.',
  ],
  ['links', 'Only people with a share link', 'Its reader link answers “not found”.'],
] as const;

export const visibilityChoice = (current: string, legend: Html) =>
  html`<fieldset class="visibility-choice">
${legend}
${VISIBILITY_CHOICES.map(
  ([value, label, hint]) =>
    html`<label class="choice"><input type="radio" name="visibility" value="${value}"${current === value ? html` checked` : ''}> <span><strong>${label}</strong> <span class="hint">${hint}</span></span></label>`,
)}
</fieldset>`;
