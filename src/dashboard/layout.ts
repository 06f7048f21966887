// The frame of every dashboard page: the head (one stylesheet, one script, both ours), the top
// bar with the navigation once signed in, and a main region. Pages hand in their title and body.
import type { SignedIn } from '../app/accounts/sessions.ts';
import { type Html, html } from '../http/html.ts';
import { DASHBOARD_SCRIPT, DASHBOARD_STYLES, dashboardAssetUrl } from './assets.ts';

export type Section = 'flipbooks' | 'stats' | 'keys' | 'members' | 'profile';

const NAV: [Section, string, string][] = [
  ['flipbooks', 'Flipbooks', '/dashboard'],
  ['stats', 'Statistics', '/dashboard/stats'],
  ['keys', 'API keys', '/dashboard/keys'],
  ['members', 'Members', '/dashboard/members'],
  ['profile', 'Profile', '/dashboard/profile'],
];

const document = (title: string, body: Html, bodyClass = '') => html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title} · Flipbook studio</title>
<link rel="stylesheet" href="${dashboardAssetUrl(DASHBOARD_STYLES)}">
<script type="module" src="${dashboardAssetUrl(DASHBOARD_SCRIPT)}"></script>
</head>
<body class="${bodyClass}">
${body}
</body>
</html>
`;

/** A page for someone not signed in (sign-in, invitation): centred, one card. */
export const publicPage = (title: string, body: Html) =>
  document(
    title,
    html`<main class="card-page" id="main">
<p class="brand" aria-hidden="true">Flipbook studio</p>
${body}
</main>`,
    'public',
  ).text;

/** A page of the dashboard: the bar, the navigation, the page. */
export const dashboardPage = (
  signedIn: SignedIn,
  section: Section | null,
  title: string,
  body: Html,
) =>
  document(
    title,
    html`<a class="skip" href="#main">Skip to the content</a>
<header class="topbar">
<span class="brand">Flipbook studio</span>
<nav aria-label="Dashboard">
<ul>
${NAV.map(
  ([key, label, href]) =>
    html`<li><a href="${href}"${key === section ? html` aria-current="page"` : ''}>${label}</a></li>`,
)}
</ul>
</nav>
<div class="who">
<a class="workspace" href="/dashboard/workspace" title="Workspace and reader branding">${signedIn.workspace.name}</a>
<span class="email">${signedIn.person.email}</span>
<form method="post" action="/logout">
<input type="hidden" name="_csrf" value="${signedIn.csrfToken}">
<button type="submit" class="quiet">Sign out</button>
</form>
</div>
</header>
<main id="main" class="page" tabindex="-1">
${body}
</main>`,
  ).text;

/** A message in words at the top of a form: role=alert so it is read out when it appears. */
export const alert = (message: string | null | undefined, kind: 'error' | 'ok' = 'error') =>
  message
    ? html`<p class="alert ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${message}</p>`
    : '';

/** What a page says after a form: a refusal, a success, either, or neither. */
export type Alerts = { error?: string | null; ok?: string | null };

export const alerts = (said: Alerts) => html`${alert(said.error)}
${alert(said.ok, 'ok')}`;
