// Members: who belongs to the workspace and with which role; owners invite (the link is shown
// once, to copy), renew or revoke pending invitations, change roles and remove people.

import type { SignedIn } from '../../app/accounts/sessions.ts';
import { html } from '../../http/html.ts';
import type { InvitationRow, UserRow } from '../../readTables/users.ts';
import { type Alerts, alert, alerts, dashboardPage } from '../layout.ts';

const day = (iso: string) => iso.slice(0, 10);
const csrf = (signedIn: SignedIn) =>
  html`<input type="hidden" name="_csrf" value="${signedIn.csrfToken}">`;

/** A link just made, shown once; `reset`: for someone already a member (a new password). */
export type InvitationLink = { email: string; url: string; reset?: boolean; role?: string };

const roleWord = (role: string | undefined) => (role === 'owner' ? 'Owner' : 'Member');

export const membersPage = (
  signedIn: SignedIn,
  data: { members: UserRow[]; invitations: InvitationRow[] },
  notice: Alerts & { link?: InvitationLink } = {},
) => {
  const owner = signedIn.person.role === 'owner';
  // The last owner can be neither demoted nor removed: those controls are not offered for them.
  const lastOwner = (m: UserRow) =>
    m.role === 'owner' && data.members.filter((x) => x.role === 'owner').length <= 1;
  return dashboardPage(
    signedIn,
    'members',
    'Members',
    html`<div class="page-head"><h1>Members</h1></div>
${alerts(notice)}
${
  notice.link
    ? html`<section class="panel" aria-labelledby="link-title">
<h2 id="link-title">${notice.link.reset ? 'Password link' : 'Invitation link'} for ${notice.link.email}</h2>
${notice.link.reset ? html`<p>${notice.link.email} is already a member (${roleWord(notice.link.role)}): this link lets them choose a new password. Their role stays; change it in the table below.</p>` : ''}
<p class="hint">Send it to them yourself. It works once, for 24 hours, and is not shown again.</p>
<div class="copy-row"><input id="invite-link" readonly value="${notice.link.url}" aria-label="Invitation link">
<button type="button" data-copy="invite-link" hidden>Copy</button></div>
<p id="invite-link-status" class="hint" role="status"></p>
</section>`
    : ''
}
<table>
<caption class="visually-hidden">People of ${signedIn.workspace.name}</caption>
<thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Since</th>${owner ? html`<th scope="col">Actions</th>` : ''}</tr></thead>
<tbody>
${data.members.map(
  (m) => html`<tr>
<td data-label="Email">${m.email}${m.id === signedIn.person.id ? html` <span class="badge">You</span>` : ''}</td>
<td data-label="Role">${
    owner && !lastOwner(m)
      ? html`<form method="post" action="/dashboard/members/${m.id}/role" class="inline">
${csrf(signedIn)}
<label class="visually-hidden" for="role-${m.id}">Role of ${m.email}</label>
<select id="role-${m.id}" name="role">
<option value="owner"${m.role === 'owner' ? html` selected` : ''}>Owner</option>
<option value="member"${m.role === 'member' ? html` selected` : ''}>Member</option>
</select>
<button type="submit">Save role</button>
</form>`
      : lastOwner(m) && owner
        ? html`Owner <span class="hint">(the only one)</span>`
        : roleWord(m.role)
  }</td>
<td data-label="Since">${day(m.created_at)}</td>
${
  owner
    ? html`<td data-label="Actions">${lastOwner(m) ? '' : html`<a class="button danger-link" href="/dashboard/members/${m.id}/remove">Remove</a>`}</td>`
    : ''
}
</tr>`,
)}
</tbody>
</table>
${
  owner
    ? html`<h2>Pending invitations</h2>
${
  data.invitations.length === 0
    ? html`<p class="hint">None.</p>`
    : html`<div class="table-scroll"><table>
<thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Expires</th><th scope="col">Actions</th></tr></thead>
<tbody>
${data.invitations.map(
  (i) => html`<tr>
<td data-label="Email">${i.email}</td>
<td data-label="Role">${i.user_id ? html`${roleWord(i.role)} <span class="badge">New password</span>` : roleWord(i.role)}</td>
<td data-label="Expires">${i.expires_at.replace('T', ' ').replace('Z', ' UTC')}</td>
<td data-label="Actions">
<form method="post" action="/dashboard/invitations/${i.id}/renew">${csrf(signedIn)}<button type="submit">New link</button></form>
<form method="post" action="/dashboard/invitations/${i.id}/revoke">${csrf(signedIn)}<button type="submit" class="danger">Revoke</button></form>
</td>
</tr>`,
)}
</tbody>
</table></div>`
}
<h2>Invite someone</h2>
<form method="post" action="/dashboard/members/invite" class="panel form-grid">
${csrf(signedIn)}
<div class="field grow"><label for="invite-email">Email</label>
<input id="invite-email" name="email" type="email" required maxlength="254" autocomplete="off"></div>
<div class="field"><label for="invite-role">Role</label>
<select id="invite-role" name="role"><option value="member">Member</option><option value="owner">Owner</option></select></div>
<button type="submit" class="primary">Invite</button>
</form>
<p class="hint">Owners manage people and every key; members publish and manage flipbooks, and their own keys. The link is shown here to copy (no mail is sent). Inviting someone who is already a member makes a link to choose a new password.</p>`
    : html`<p class="hint">Only owners invite people and change roles.</p>`
}`,
  );
};

export const removeMemberPage = (
  signedIn: SignedIn,
  member: UserRow,
  error: string | null = null,
) =>
  dashboardPage(
    signedIn,
    'members',
    'Remove a member',
    html`<h1>Remove ${member.email}?</h1>
${alert(error)}
<p>They are signed out at once and can no longer sign in. Their past actions stay in the audit trail.</p>
<form method="post" action="/dashboard/members/${member.id}/remove" class="actions">
${csrf(signedIn)}
<button type="submit" class="danger">Remove</button>
<a class="button" href="/dashboard/members">Cancel</a>
</form>`,
  );
