// The dashboard's script: it only enhances pages that work without it (every form posts and
// every page renders on the server). Copy buttons.

// Uploads with real progress, and versions followed while they are processing.
import './upload.ts';
import './versionsTable.ts';
// Passkeys: adding one on the profile page, signing in with one.
import './passkeys.ts';

const copyButtons = () => {
  for (const button of document.querySelectorAll<HTMLElement>('[data-copy]')) {
    button.hidden = false;
    button.addEventListener('click', async () => {
      const source = document.getElementById(button.dataset.copy ?? '');
      const field =
        source instanceof HTMLInputElement || source instanceof HTMLTextAreaElement ? source : null;
      const text = field?.value ?? source?.textContent ?? '';
      let ok = false;
      try {
        await navigator.clipboard.writeText(text);
        ok = true;
      } catch {
        field?.select();
        ok = document.execCommand?.('copy') ?? false;
      }
      const status = document.getElementById(`${button.dataset.copy}-status`);
      if (status) status.textContent = ok ? 'Copied.' : 'Select the text and copy it.';
    });
  }
};

copyButtons();

// A field that belongs to one choice of a radio group (a date beside "On"): using it picks that
// choice. data-selects="NAME=VALUE".
for (const field of document.querySelectorAll<HTMLInputElement>('[data-selects]')) {
  const [name, value] = (field.dataset.selects ?? '').split('=');
  const pick = () => {
    const radio = field.form?.querySelector<HTMLInputElement>(
      `input[type=radio][name="${name}"][value="${value}"]`,
    );
    if (radio) radio.checked = true;
  };
  field.addEventListener('focus', pick);
  field.addEventListener('input', pick);
}

// A page that shows a secret once (a new API key) answers a form: a reload would send the form
// again and make another key. Pointing this history entry at the list makes a reload fetch that.
const replaceUrl = document.querySelector<HTMLElement>('[data-replace-url]')?.dataset.replaceUrl;
if (replaceUrl) history.replaceState(null, '', replaceUrl);
