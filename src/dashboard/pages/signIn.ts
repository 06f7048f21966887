// Sign-in and the invitation page (choose a password). Both work without JavaScript.
import { MAX_PASSWORD, MIN_PASSWORD } from '../../app/accounts/passwords.ts';
import { html } from '../../http/html.ts';
import { alert, publicPage } from '../layout.ts';

/**
 * Shown by the script when the browser can use passkeys (src/dashboard/client/passkeys.ts),
 * which also takes away the note, there for when no script runs.
 */
const passkeySignIn = html`<div class="passkey-sign-in" data-passkey-sign-in hidden>
<p class="divider"><span>or</span></p>
<button type="button" class="wide">Sign in with a passkey</button>
<div data-passkey-status aria-live="polite"></div>
</div>
<p class="hint" data-passkey-needs-script>Signing in with a passkey needs JavaScript.</p>`;

/** The operator's single sign-on provider, first: where it is set up, most people use it. */
const ssoSignIn = (sso: { name: string }, next: string | undefined) =>
  html`<div class="sso-sign-in">
<a class="button primary wide" href="/login/sso${next ? `?next=${encodeURIComponent(next)}` : ''}">Sign in with ${sso.name}</a>
<p class="divider"><span>or with your email</span></p>
</div>`;

export const signInPage = (options: {
  email?: string;
  error?: string | null;
  next?: string;
  sso?: { name: string } | undefined;
}) =>
  publicPage(
    'Sign in',
    html`<h1>Sign in</h1>
${alert(options.error)}
${options.sso ? ssoSignIn(options.sso, options.next) : ''}
<form method="post" action="/login" class="stack">
${options.next ? html`<input type="hidden" name="next" value="${options.next}">` : ''}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${options.email ?? ''}" ${options.email ? '' : html`autofocus`}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required ${options.email ? html`autofocus` : ''}>
<button type="submit" class="${options.sso ? '' : 'primary'}">Sign in</button>
</form>
${passkeySignIn}
<p class="hint">No account? The person who runs this service, or an owner of your workspace, sends you an invitation link.</p>`,
  );

export const invitationPage = (options: {
  email: string;
  workspace: string;
  reset: boolean;
  error?: string | null;
}) =>
  publicPage(
    options.reset ? 'Choose a new password' : 'Join the workspace',
    html`<h1>${options.reset ? 'Choose a new password' : html`Join <span class="nowrap">${options.workspace}</span>`}</h1>
<p>${options.reset ? 'For' : 'You are invited as'} <strong>${options.email}</strong>.</p>
${alert(options.error)}
<form method="post" class="stack">
<input type="hidden" name="email" value="${options.email}" autocomplete="username">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD}" maxlength="${MAX_PASSWORD}" aria-describedby="password-hint" autofocus>
<p class="hint" id="password-hint">${MIN_PASSWORD} to ${MAX_PASSWORD} characters. Not one of the common passwords attackers try first.</p>
<button type="submit" class="primary">${options.reset ? 'Save the password and sign in' : 'Create my account'}</button>
</form>`,
  );

export const unusableLinkPage = () =>
  publicPage(
    'Invitation link not valid',
    html`<h1>This link cannot be used</h1>
<p>Invitation links work once, for 24 hours. Ask the person who invited you for a new one.</p>
<p><a href="/login">Sign in</a></p>`,
  );

export const messagePage = (title: string, message: string) =>
  publicPage(
    title,
    html`<h1>${title}</h1><p>${message}</p><p><a href="/dashboard">Back to the dashboard</a></p>`,
  );
