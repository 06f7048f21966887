// Passkeys on the profile page: each one's name, when it was added and last used, a "Remove"
// that leads to a confirmation page (no script needed), and "Add passkey", which needs the
// browser's WebAuthn and so a script (src/dashboard/client/passkeys.ts): without one, the page
// says so. A public URL that cannot hold passkeys (an IP address) is said in words.

import type { SignedIn } from '../../app/accounts/sessions.ts';
import { MAX_PASSKEY_NAME, type RelyingParty } from '../../domain/user/passkey.ts';
import { html } from '../../http/html.ts';
import type { PasskeyRow } from '../../readTables/passkeys.ts';
import { dashboardPage } from '../layout.ts';

const when = (iso: string) => iso.replace('T', ' ').replace(/:\d\dZ$/, ' UTC');

const removeUrl = (p: PasskeyRow) => `/dashboard/passkeys/${p.credential_id}/remove`;

const list = (passkeys: PasskeyRow[]) =>
  passkeys.length === 0
    ? html`<p class="hint">No passkeys yet.</p>`
    : html`<table class="passkeys">
<thead><tr><th scope="col">Name</th><th scope="col">Added</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>
${passkeys.map(
  (p) => html`<tr>
<td data-label="Name"><span class="passkey-name">${p.name}</span>${p.device_type === 'multiDevice' ? html` <span class="badge">Synced</span>` : ''}</td>
<td data-label="Added"><time datetime="${p.created_at}">${when(p.created_at)}</time></td>
<td data-label="Last used">${p.last_used_at ? html`<time datetime="${p.last_used_at}">${when(p.last_used_at)}</time>` : 'Never'}</td>
<td class="passkey-actions"><a class="button danger-link" href="${removeUrl(p)}" aria-label="Remove ${p.name}">Remove</a></td>
</tr>`,
)}
</tbody>
</table>`;

const addForm = (
  signedIn: SignedIn,
) => html`<form class="panel stack narrow passkey-add" data-passkey-add>
<input type="hidden" name="_csrf" value="${signedIn.csrfToken}">
<label for="passkey-name">Name of the new passkey <span class="optional">(optional)</span></label>
<input id="passkey-name" name="name" maxlength="${MAX_PASSKEY_NAME}" autocomplete="off" aria-describedby="passkey-name-hint">
<p class="hint" id="passkey-name-hint">To tell it apart later, like “Work laptop” or “Phone”. Left empty, it is named after this browser.</p>
<button type="submit" class="primary passkey-add-button" disabled>Add passkey</button>
<p class="hint" data-passkey-needs-script>Adding a passkey needs JavaScript, which is off or blocked in this browser.</p>
<div class="passkey-status" data-passkey-status aria-live="polite"></div>
</form>`;

export const passkeysSection = (
  signedIn: SignedIn,
  passkeys: PasskeyRow[],
  rp: RelyingParty,
) => html`<section class="passkeys-section" aria-labelledby="passkeys-title" id="passkeys">
<h2 id="passkeys-title">Passkeys</h2>
<p class="lead">Sign in with this device’s screen lock, a security key or a password manager instead of typing your password.</p>
${list(passkeys)}
${rp.usable ? addForm(signedIn) : html`<p class="hint" id="passkeys-unavailable">${rp.why}</p>`}
</section>`;

export const removePasskeyPage = (signedIn: SignedIn, passkey: PasskeyRow) =>
  dashboardPage(
    signedIn,
    'profile',
    'Remove a passkey',
    html`<section class="panel narrow" aria-labelledby="remove-title">
<h1 id="remove-title">Remove the passkey “${passkey.name}”?</h1>
<p>It will no longer sign you in. It stays on your device or in your password manager until you delete it there too.</p>
<form method="post" action="${removeUrl(passkey)}" class="actions">
<input type="hidden" name="_csrf" value="${signedIn.csrfToken}">
<button type="submit" class="danger">Remove</button>
<a class="button" href="/dashboard/profile#passkeys">Cancel</a>
</form>
</section>`,
  );
