// Passkeys in the browser, with @simplewebauthn/browser (bundled into this script by esbuild at
// the daemon's start: no third-party request). Two ceremonies, each three steps: options from
// the server, the browser's WebAuthn prompt, the answer checked by the server.
// - Profile, "Add passkey": POST /dashboard/passkeys/options, then POST /dashboard/passkeys
//   with the session's CSRF token in X-CSRF-Token.
// - Sign-in, "Sign in with a passkey": POST /login/passkey/options (its challenge is named by an
//   HttpOnly cookie), then POST /login/passkey; the answer says where to go.
// Without this script the profile page says that adding a passkey needs it, and the sign-in
// page offers the password form alone.
import {
  browserSupportsWebAuthn,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  startAuthentication,
  startRegistration,
  WebAuthnError,
} from '@simplewebauthn/browser';

/** The server's refusal, in its own words. */
class Refused extends Error {}

const postJson = async <T>(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<T> => {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  } catch {
    throw new Refused('The service could not be reached: check the connection and try again.');
  }
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    throw new Refused(data?.error ?? `The service answered ${response.status}: try again.`);
  }
  return data;
};

/** What went wrong, in words a person can act on. */
export const problemText = (error: unknown) => {
  if (error instanceof Refused) return error.message;
  // The browser's own errors (DOMException) say what happened in their name; the library's
  // (WebAuthnError) in their code too.
  const name = error instanceof Error ? error.name : undefined;
  const code = error instanceof WebAuthnError ? error.code : undefined;
  const message = error instanceof Error ? error.message : undefined;
  if (name === 'NotAllowedError' || code === 'ERROR_CEREMONY_ABORTED') {
    return 'No passkey was used: the request was cancelled or timed out.';
  }
  if (code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED') {
    return 'This device or password manager already holds one of your passkeys.';
  }
  if (name === 'SecurityError' || code === 'ERROR_INVALID_DOMAIN') {
    return 'This browser refuses passkeys for this address: open the dashboard at its public URL.';
  }
  return `The passkey could not be used${message ? `: ${message}` : '.'}`;
};

/** A message in the given box: an alert for a problem, a status otherwise. */
const say = (box: Element | null, message: string | null, kind = 'error') => {
  if (!box) return;
  box.replaceChildren();
  if (!message) return;
  const p = document.createElement('p');
  p.className = `alert ${kind}`;
  p.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  p.textContent = message;
  box.append(p);
};

const enhanceAdd = (form: HTMLFormElement) => {
  const button = form.querySelector('button[type="submit"]') as HTMLButtonElement;
  const status = form.querySelector('[data-passkey-status]');
  const needsScript = form.querySelector<HTMLElement>('[data-passkey-needs-script]');
  if (!browserSupportsWebAuthn()) {
    if (needsScript) needsScript.textContent = 'This browser cannot make passkeys.';
    return;
  }
  if (needsScript) needsScript.hidden = true;
  button.disabled = false;
  const csrf = form.querySelector<HTMLInputElement>('input[name="_csrf"]')?.value ?? '';
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (button.disabled) return;
    button.disabled = true;
    say(status, 'Follow your browser’s prompt to make the passkey…', 'ok');
    try {
      const headers = { 'X-CSRF-Token': csrf };
      const optionsJSON = await postJson<PublicKeyCredentialCreationOptionsJSON>(
        '/dashboard/passkeys/options',
        {},
        headers,
      );
      const response = await startRegistration({ optionsJSON });
      const name = form.querySelector<HTMLInputElement>('input[name="name"]')?.value ?? '';
      await postJson('/dashboard/passkeys', { name, response }, headers);
      say(status, 'Passkey added.', 'ok');
      // The list is the server's: show it as it now is, at the passkeys.
      history.replaceState(null, '', '/dashboard/profile#passkeys');
      location.reload();
    } catch (error) {
      say(status, problemText(error));
      button.disabled = false;
    }
  });
};

const enhanceSignIn = (box: HTMLElement) => {
  // The note for browsers without a script; one that cannot use passkeys is not offered them.
  for (const note of document.querySelectorAll<HTMLElement>('[data-passkey-needs-script]')) {
    note.hidden = true;
  }
  // Browsers refuse passkeys on an IP address: no button that can only fail.
  const onIpAddress = /^[\d.]+$|^\[/.test(location.hostname);
  if (!browserSupportsWebAuthn() || onIpAddress) return;
  const button = box.querySelector('button') as HTMLButtonElement;
  const status = box.querySelector('[data-passkey-status]');
  box.hidden = false;
  button.addEventListener('click', async () => {
    if (button.disabled) return;
    button.disabled = true;
    say(status, null);
    try {
      const optionsJSON = await postJson<PublicKeyCredentialRequestOptionsJSON>(
        '/login/passkey/options',
        {},
      );
      const response = await startAuthentication({ optionsJSON });
      const next = document.querySelector<HTMLInputElement>(
        'form[action="/login"] input[name="next"]',
      )?.value;
      const signedIn = await postJson<{ redirect: string }>('/login/passkey', {
        response,
        ...(next ? { next } : {}),
      });
      location.assign(signedIn.redirect);
    } catch (error) {
      say(status, problemText(error));
      button.disabled = false;
    }
  });
};

for (const form of document.querySelectorAll<HTMLFormElement>('form[data-passkey-add]')) {
  enhanceAdd(form);
}
for (const box of document.querySelectorAll<HTMLElement>('[data-passkey-sign-in]')) {
  enhanceSignIn(box);
}
