// The workspace's page: its reader branding (an accent colour, a background behind the pages, a
// logo in the reader's bar), set by owners, seen by every member; and erasing a reader
// (./readerErasure.ts). Plain forms: they work without a script.
import type { SignedIn } from '../../app/accounts/sessions.ts';
import { type Html, html } from '../../http/html.ts';
import { alert, dashboardPage } from '../layout.ts';
import { type ErasureState, readerErasureSection } from './readerErasure.ts';

export type BrandingView = {
  accent: string | null;
  background: string | null;
  /** where the logo is served (the reader's own route), or null */
  logo: string | null;
};

const colourField = (name: string, label: string, value: string | null, fallback: string) =>
  html`<fieldset class="colour">
<legend>${label}</legend>
<label class="check"><input type="radio" name="${name}_choice" value="reader"${value ? '' : html` checked`}> The reader’s own (light or dark, as the reader’s system is set)</label>
<label class="check"><input type="radio" name="${name}_choice" value="brand"${value ? html` checked` : ''}> This colour: <input type="color" name="${name}" value="${value ?? fallback}" aria-label="${label}"></label>
</fieldset>`;

export const workspacePage = (
  signedIn: SignedIn,
  branding: BrandingView,
  notice: { error?: string; saved?: boolean } = {},
  erasure: ErasureState = {},
): string => {
  const isOwner = signedIn.person.role === 'owner';
  // a colour drawn by SVG's fill attribute: the page's CSP allows no inline style
  const swatch = (colour: string | null) =>
    colour
      ? html`<svg class="swatch" viewBox="0 0 1 1" aria-hidden="true"><rect width="1" height="1" fill="${colour}"/></svg> ${colour}`
      : 'the reader’s own';
  const shown: Html[] = [
    html`<li>Accent: ${swatch(branding.accent)}</li>`,
    html`<li>Background: ${swatch(branding.background)}</li>`,
    html`<li>Logo: ${branding.logo ? html`<img class="brand-logo" src="${branding.logo}" alt="The workspace’s logo">` : 'none'}</li>`,
  ];
  return dashboardPage(
    signedIn,
    null,
    `${signedIn.workspace.name}: workspace`,
    html`<h1>Workspace ${signedIn.workspace.name}</h1>
${notice.saved ? alert('The branding is saved: readers see it on their next visit.', 'ok') : ''}${alert(notice.error)}
<section class="panel" id="branding" aria-labelledby="branding-title">
<h2 id="branding-title">Reader branding</h2>
<p>How the reader shows this workspace’s flipbooks: its accent (buttons, links, the page slider), the background behind the pages, and a logo beside the title. An accent that would be hard to read in the light or the dark theme is made darker or lighter there.</p>
<ul class="branding-now">${shown}</ul>
${
  isOwner
    ? html`<form method="post" action="/dashboard/workspace/branding" enctype="multipart/form-data" class="stack">
<input type="hidden" name="_csrf" value="${signedIn.csrfToken}">
${colourField('accent', 'Accent colour', branding.accent, '#1a6bd8')}
${colourField('background', 'Background behind the pages', branding.background, '#e9ebef')}
<label for="logo">Logo</label>
<input id="logo" name="logo" type="file" accept="image/png,image/jpeg,image/webp,image/gif" aria-describedby="logo-hint">
<p class="hint" id="logo-hint">PNG, JPEG, WebP or GIF, at most 2 MB. It is shown at most 480 × 160 pixels; leave empty to keep the logo as it is.</p>
${branding.logo ? html`<label class="check"><input type="checkbox" name="remove_logo" value="true"> Remove the logo</label>\n` : ''}<button type="submit" class="primary">Save</button>
</form>`
    : html`<p>An owner of the workspace can change the branding.</p>`
}
</section>
${readerErasureSection(signedIn, erasure)}`,
  );
};
