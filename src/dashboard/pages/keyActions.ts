// The pages of one key's actions: the new key, shown once (after "Create key" or "Roll"), and the
// confirmations of "Roll" (how long the old key keeps working) and "Revoke". They are pages of
// their own so that every action works without JavaScript.
import type { SignedIn } from '../../app/accounts/sessions.ts';
import type { ApiKeyListing } from '../../app/apiKeys.ts';
import { html } from '../../http/html.ts';
import { alert, dashboardPage } from '../layout.ts';
import { createdBy, keyName, keyStatusBadge, when } from './keys.ts';

export type ShownKey = {
  name: string;
  key: string;
  fingerprint: string;
  expiresAt: string | null;
  publicUrl: string;
  /** after a roll: the key it replaces, and until when that one works */
  rolled?: { fingerprint: string; validUntil: string; grace: string };
};

/** A word for a POSIX shell: as it is when it holds nothing the shell reads, else quoted. */
const shellWord = (word: string) =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;

/**
 * The new key, on the answer to the form that made it (never after a redirect, never in a URL):
 * a reload of /dashboard/keys does not show it. The page asks the script to make a reload fetch
 * the list instead of sending the form again (data-replace-url).
 */
export const keyCreatedPage = (signedIn: SignedIn, shown: ShownKey) => {
  const login = `flipbook login --url ${shellWord(shown.publicUrl)} --api-key ${shown.key}`;
  const install = `npm install -g ${shellWord(`${shown.publicUrl}/downloads/flipbook-cli.tgz`)}`;
  const rolled = shown.rolled;
  return dashboardPage(
    signedIn,
    'keys',
    rolled ? 'Key rolled' : 'Key created',
    html`<div class="page-head" data-replace-url="/dashboard/keys">
<h1>${rolled ? 'Key rolled' : 'Key created'}</h1>
</div>
${alert(
  rolled
    ? rolled.grace === 'now'
      ? `“${shown.name}” has a new key. The old one (${rolled.fingerprint}) is refused from now on.`
      : `“${shown.name}” has a new key. The old one (${rolled.fingerprint}) works until ${rolled.validUntil.slice(0, 16).replace('T', ' ')} UTC.`
    : `The key “${shown.name}” is ready${shown.expiresAt ? `; it expires ${shown.expiresAt.slice(0, 10)}` : ''}.`,
  'ok',
)}
<section class="key-panel key-secret" aria-labelledby="secret-title">
<h2 class="key-title" id="secret-title">Copy the key now</h2>
<p>This is the only time it is shown: only its fingerprint, <code class="fingerprint">${shown.fingerprint}</code>, is kept. Store it in a password manager or your CI’s secrets.</p>
<div class="secret">
<code id="new-key" class="secret-text">${shown.key}</code>
<button type="button" class="primary" data-copy="new-key" hidden>Copy</button>
</div>
<p class="hint copy-status" id="new-key-status" role="status"></p>
<h2 class="key-title then" id="login-title">Use it with the <code>flipbook</code> command</h2>
<p>Install the command (Node.js 20 or later), once on each machine:</p>
<div class="secret">
<code id="install-line" class="secret-text">${install}</code>
<button type="button" data-copy="install-line" hidden>Copy command</button>
</div>
<p class="hint copy-status" id="install-line-status" role="status"></p>
<p>Then sign it in with this key:</p>
<div class="secret">
<code id="login-line" class="secret-text">${login}</code>
<button type="button" data-copy="login-line" hidden>Copy command</button>
</div>
<p class="hint copy-status" id="login-line-status" role="status"></p>
<p class="hint">In a pipeline, set <code>FLIPBOOK_URL</code> and <code>FLIPBOOK_API_KEY</code> instead.</p>
</section>
<p><a class="button" href="/dashboard/keys">Back to the keys</a></p>`,
  );
};

/** What a key is, on its confirmation pages. */
const keySummary = (key: ApiKeyListing) => html`<dl class="key-summary">
<div><dt>Fingerprint</dt><dd><code class="fingerprint">${key.fingerprint}</code></dd></div>
<div><dt>Created</dt><dd>${when(key.created_at)} UTC by ${createdBy(key.created_by)}</dd></div>
<div><dt>Expires</dt><dd>${key.expires_at ? html`${when(key.expires_at)} UTC` : 'Never'}</dd></div>
<div><dt>Last used</dt><dd>${key.last_used_at ? html`${when(key.last_used_at)} UTC` : 'Never'}</dd></div>
<div><dt>Status</dt><dd>${keyStatusBadge(key)}</dd></div>
</dl>`;

const GRACE_CHOICES: [string, string][] = [
  ['now', 'No: refuse it from now on'],
  ['1h', 'For 1 hour'],
  ['24h', 'For 24 hours'],
  ['7d', 'For 7 days'],
];

export const rollKeyPage = (
  signedIn: SignedIn,
  key: ApiKeyListing,
  options: { error?: string; grace?: string } = {},
) => {
  const grace = options.grace ?? '1h';
  const rollable = key.status === 'active' && signedIn.workspace.plan === 'team';
  return dashboardPage(
    signedIn,
    'keys',
    `Roll ${keyName(key)}`,
    html`<div class="page-head"><h1>Roll “${keyName(key)}”</h1></div>
${alert(options.error)}
<div class="key-panel">
${keySummary(key)}
${
  rollable
    ? html`<p>Rolling makes a new key with the same name and lifetime, shown once. The old key can keep working for a while, so you can put the new one in place first.</p>
<form method="post" action="/dashboard/keys/${key.id}/roll" class="key-form">
<input type="hidden" name="_csrf" value="${signedIn.csrfToken}">
<fieldset class="choices one-column">
<legend>Does the old key keep working?</legend>
${GRACE_CHOICES.map(
  ([value, label]) =>
    html`<label class="choice"><input type="radio" name="grace" value="${value}"${value === grace ? html` checked` : ''}> ${label}</label>`,
)}
</fieldset>
<div class="form-actions"><button type="submit" class="primary">Roll</button>
<a class="button" href="/dashboard/keys">Cancel</a></div>
</form>`
    : html`<p>${
        signedIn.workspace.plan === 'team'
          ? 'Only an active key can be rolled. Create a new key instead.'
          : 'Rolling makes a new key, and creating keys needs the Team plan.'
      }</p>
<p><a class="button" href="/dashboard/keys">Back to the keys</a></p>`
}
</div>`,
  );
};

export const revokeKeyPage = (signedIn: SignedIn, key: ApiKeyListing) => {
  const revocable = key.status === 'active' || key.status === 'rolled';
  return dashboardPage(
    signedIn,
    'keys',
    `Revoke ${keyName(key)}`,
    html`<div class="page-head"><h1>Revoke “${keyName(key)}”?</h1></div>
<div class="key-panel">
${keySummary(key)}
${
  revocable
    ? html`<p>Every program that uses this key is refused from its next request. This cannot be undone: to use the API again, create a new key.</p>
<form method="post" action="/dashboard/keys/${key.id}/revoke" class="form-actions">
<input type="hidden" name="_csrf" value="${signedIn.csrfToken}">
<button type="submit" class="danger">Revoke</button>
<a class="button" href="/dashboard/keys">Cancel</a>
</form>`
    : html`<p>This key no longer works: there is nothing to revoke.</p>
<p><a class="button" href="/dashboard/keys">Back to the keys</a></p>`
}
</div>`,
  );
};
