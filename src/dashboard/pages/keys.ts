// The API keys page: one table row per key of the workspace (the admin CLI's too) with its name,
// fingerprint, who created it and when, its expiry, when it was last used and its status, and
// the "Roll" and "Revoke" buttons that lead to their confirmation pages. Above it, "Create key"
// on the Team plan, or a word on why there is none.
import type { SignedIn } from '../../app/accounts/sessions.ts';
import { type ApiKeyListing, mayManageKey } from '../../app/apiKeys.ts';
import { type Html, html } from '../../http/html.ts';
import { alert, dashboardPage } from '../layout.ts';

/** What the person typed in "Create key", given back when it is refused. */
export type KeyDraft = { name: string; expiry: string; date: string };

const DAY = 86_400_000;

/** A time as people read it in a table: 2026-05-01 14:03 (UTC, said once under the table). */
export const when = (iso: string) =>
  html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')}</time>`;

/** A day, where the hour matters less (creation, expiry). */
export const day = (iso: string) => html`<time datetime="${iso}">${iso.slice(0, 10)}</time>`;

/** Who made a key, from its ApiKeyIssued event's actor. */
export const createdBy = (actor: ApiKeyListing['created_by']) => {
  switch (actor.type) {
    case 'user': {
      // A line may break after the @ rather than inside a word.
      const at = actor.email.lastIndexOf('@');
      return html`${actor.email.slice(0, at + 1)}<wbr>${actor.email.slice(at + 1)}`;
    }
    case 'admin':
      return `operator ${actor.id}`;
    case 'api_key':
      return actor.name ? `API key “${actor.name}”` : 'API key';
    case 'worker':
    case 'system':
      return 'the service';
    default:
      return 'unknown';
  }
};

/** A key's name as a phrase (keys from the admin CLI may have none). */
export const keyName = (key: { label: string | null }) => key.label ?? 'Unnamed key';

const inDays = (ms: number) => {
  if (ms < 3_600_000) return 'within the hour';
  if (ms < DAY) return `in ${Math.round(ms / 3_600_000)} h`;
  const days = Math.round(ms / DAY);
  return `in ${days} ${days === 1 ? 'day' : 'days'}`;
};

export const keyStatusBadge = (key: ApiKeyListing, now = new Date()): Html => {
  switch (key.status) {
    case 'revoked':
      return html`<span class="badge revoked">Revoked</span>`;
    case 'expired':
      // past the grace of a roll: it was replaced, which says more than that it ran out
      return key.rolled_to
        ? html`<span class="badge expired">Rolled</span>
<span class="key-status-note">stopped ${when(key.valid_until ?? '')}</span>`
        : html`<span class="badge expired">Expired</span>`;
    case 'rolled':
      return html`<span class="badge rolled">Rolled</span>
<span class="key-status-note">works until ${when(key.valid_until ?? '')}</span>`;
    default: {
      const left = key.expires_at ? Date.parse(key.expires_at) - now.getTime() : Infinity;
      return left <= 7 * DAY
        ? html`<span class="badge soon">Expires ${inDays(left)}</span>`
        : html`<span class="badge active">Active</span>`;
    }
  }
};

const canRevoke = (key: ApiKeyListing) => key.status === 'active' || key.status === 'rolled';

const keyRow = (key: ApiKeyListing, team: boolean, manage: boolean) => html`<tr>
<td data-label="Name" class="key-name">${keyName(key)}</td>
<td data-label="Fingerprint"><code class="fingerprint">${key.fingerprint}</code></td>
<td data-label="Created by" class="key-creator">${createdBy(key.created_by)}</td>
<td data-label="Created">${day(key.created_at)}</td>
<td data-label="Expires">${key.expires_at ? day(key.expires_at) : 'Never'}</td>
<td data-label="Last used">${key.last_used_at ? when(key.last_used_at) : 'Never'}</td>
<td data-label="Status" class="key-status">${keyStatusBadge(key)}</td>
<td class="key-actions">${
  !manage
    ? ''
    : team && key.status === 'active'
      ? html`<form method="get" action="/dashboard/keys/${key.id}/roll"><button type="submit">Roll</button></form>`
      : ''
}${
  manage && canRevoke(key)
    ? html`<form method="get" action="/dashboard/keys/${key.id}/revoke"><button type="submit" class="danger">Revoke</button></form>`
    : ''
}</td>
</tr>`;

const checked = (on: boolean) => (on ? html` checked` : '');

const createForm = (signedIn: SignedIn, draft: KeyDraft) => {
  const expiry = draft.expiry || '90';
  const choice = (value: string, label: string) =>
    html`<label class="choice"><input type="radio" name="expiry" value="${value}"${checked(expiry === value)}> ${label}</label>`;
  const tomorrow = new Date(Date.now() + DAY).toISOString().slice(0, 10);
  return html`<section class="key-panel" aria-labelledby="create-key-title">
<h2 class="key-title" id="create-key-title">Create a key</h2>
<form method="post" action="/dashboard/keys" class="key-form">
<input type="hidden" name="_csrf" value="${signedIn.csrfToken}">
<div class="field grow"><label for="key-name">Name</label>
<input id="key-name" name="name" required maxlength="200" autocomplete="off" value="${draft.name}" aria-describedby="key-name-hint">
<p class="hint" id="key-name-hint">What will use it, to recognise it later: “CI”, “my laptop”.</p></div>
<fieldset class="choices">
<legend>Expires</legend>
${choice('30', 'In 30 days')}
${choice('90', 'In 90 days')}
${choice('365', 'In 365 days')}
${choice('none', 'Never')}
<span class="choice-date">${choice('date', 'On')}
<label for="key-expires-on" class="visually-hidden">Expiry date</label>
<input id="key-expires-on" name="expires_on" type="date" min="${tomorrow}" value="${draft.date}" data-selects="expiry=date"></span>
</fieldset>
<button type="submit" class="primary">Create key</button>
</form>
</section>`;
};

const teamOnly = (
  signedIn: SignedIn,
) => html`<section class="key-panel key-notice" aria-labelledby="team-only-title">
<h2 class="key-title" id="team-only-title">Creating keys needs the Team plan</h2>
<p>Workspace <strong>${signedIn.workspace.name}</strong> is on the ${signedIn.workspace.plan} plan, so new keys cannot be created or rolled. The person who runs this service can move it to the Team plan.</p>
<p>Keys made before keep working until they expire or are revoked; you can revoke them below.</p>
</section>`;

export const keysPage = (
  signedIn: SignedIn,
  keys: ApiKeyListing[],
  options: { error?: string; draft?: KeyDraft; revoked?: ApiKeyListing | undefined } = {},
) => {
  const team = signedIn.workspace.plan === 'team';
  const newestFirst = [...keys].reverse();
  const revoked = options.revoked;
  return dashboardPage(
    signedIn,
    'keys',
    'API keys',
    html`<div class="page-head">
<h1>API keys</h1>
</div>
<p class="lead">Programs and the <code>flipbook</code> command use a key to publish in <strong>${signedIn.workspace.name}</strong>. A key is shown once, when it is made: only its fingerprint is kept.</p>
${alert(options.error)}
${revoked ? alert(`Key “${keyName(revoked)}” (${revoked.fingerprint}) is revoked: the API refuses it from now on.`, 'ok') : ''}
${team ? createForm(signedIn, options.draft ?? { name: '', expiry: '', date: '' }) : teamOnly(signedIn)}
<section aria-labelledby="keys-title" class="keys-list">
<h2 class="key-title" id="keys-title">Keys <span class="count">${keys.length}</span></h2>
${
  keys.length === 0
    ? html`<div class="empty-state"><p>No keys yet.</p></div>`
    : html`<div class="table-scroll" role="region" aria-labelledby="keys-title" tabindex="0"><table class="keys">
<thead><tr>
<th scope="col">Name</th><th scope="col">Fingerprint</th><th scope="col">Created by</th>
<th scope="col">Created</th><th scope="col">Expires</th><th scope="col">Last used</th>
<th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th>
</tr></thead>
<tbody>
${newestFirst.map((key) => keyRow(key, team, mayManageKey(signedIn.person, key)))}
</tbody>
</table>
</div>
${signedIn.person.role === 'owner' ? '' : html`<p class="hint">You can roll and revoke the keys you created; owners manage every key of the workspace.</p>`}
<p class="hint">Times are UTC. The fingerprint is the start of the key’s SHA-256: <code>printf %s "$KEY" | sha256sum | cut -c1-8</code> tells which key you hold.</p>`
}
</section>`,
  );
};
