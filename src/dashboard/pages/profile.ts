// Profile: one's own account: the password (the current one first), and the sessions signed in
// (this one marked), each with "Revoke". Passkeys join here.

import { MAX_PASSWORD, MIN_PASSWORD } from '../../app/accounts/passwords.ts';
import type { SignedIn } from '../../app/accounts/sessions.ts';
import { type Html, html } from '../../http/html.ts';
import type { SessionRow } from '../../state/accounts.ts';
import { type Alerts, alerts, dashboardPage } from '../layout.ts';

const when = (iso: string) => iso.replace('T', ' ').replace(/:\d\dZ$/, ' UTC');

/** A user agent in a few words ("Chrome on Linux"), not its whole string. */
export const deviceName = (agent: string | null) => {
  if (!agent) return 'Unknown device';
  const browser = /Edg\//.test(agent)
    ? 'Edge'
    : /Firefox\//.test(agent)
      ? 'Firefox'
      : /Chrom(e|ium)\//.test(agent)
        ? 'Chrome'
        : /Safari\//.test(agent)
          ? 'Safari'
          : /curl|node|undici/i.test(agent)
            ? 'A program'
            : 'A browser';
  const system = /Android/.test(agent)
    ? 'Android'
    : /iPhone|iPad/.test(agent)
      ? 'iOS'
      : /Mac OS X/.test(agent)
        ? 'macOS'
        : /Windows/.test(agent)
          ? 'Windows'
          : /Linux/.test(agent)
            ? 'Linux'
            : '';
  return system ? `${browser} on ${system}` : browser;
};

export const profilePage = (
  signedIn: SignedIn,
  sessions: SessionRow[],
  notice: Alerts = {},
  passkeys: Html[] = [],
) =>
  dashboardPage(
    signedIn,
    'profile',
    'Profile',
    html`<div class="page-head"><h1>Profile</h1></div>
${alerts(notice)}
<p>${signedIn.person.email} · ${signedIn.person.role === 'owner' ? 'Owner' : 'Member'} of <strong>${signedIn.workspace.name}</strong></p>
<h2>Password</h2>
<form method="post" action="/dashboard/profile/password" class="panel stack narrow">
<input type="hidden" name="_csrf" value="${signedIn.csrfToken}">
<input type="hidden" name="email" value="${signedIn.person.email}" autocomplete="username">
<label for="current-password">Current password</label>
<input id="current-password" name="current" type="password" autocomplete="current-password" required>
<label for="new-password">New password</label>
<input id="new-password" name="next" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD}" maxlength="${MAX_PASSWORD}" aria-describedby="new-password-hint">
<p class="hint" id="new-password-hint">${MIN_PASSWORD} to ${MAX_PASSWORD} characters. Your other sessions are signed out.</p>
<button type="submit" class="primary">Change password</button>
</form>
${passkeys}
<h2 id="sessions-title">Sessions</h2>
<table id="sessions" aria-labelledby="sessions-title">
<thead><tr><th scope="col">Device</th><th scope="col">Signed in</th><th scope="col">Last seen</th><th scope="col">Address</th><th scope="col">Actions</th></tr></thead>
<tbody>
${sessions.map(
  (s) => html`<tr>
<td data-label="Device">${deviceName(s.user_agent)}${s.session_id === signedIn.sessionId ? html` <span class="badge active">This device</span>` : ''}</td>
<td data-label="Signed in">${when(s.created_at)}</td>
<td data-label="Last seen">${when(s.last_seen_at)}</td>
<td data-label="Address">${s.client_ip ?? '—'}</td>
<td data-label="Actions">${
    s.session_id === signedIn.sessionId
      ? html`<span class="hint">Use Sign out</span>`
      : html`<form method="post" action="/dashboard/profile/sessions/${s.session_id}/revoke">
<input type="hidden" name="_csrf" value="${signedIn.csrfToken}">
<button type="submit" class="danger">Revoke</button>
</form>`
  }</td>
</tr>`,
)}
</tbody>
</table>
${
  sessions.length > 2
    ? html`<form method="post" action="/dashboard/profile/sessions/revoke-others" class="form-actions">
<input type="hidden" name="_csrf" value="${signedIn.csrfToken}">
<button type="submit" class="danger">Sign out every other session</button>
</form>`
    : ''
}`,
  );
