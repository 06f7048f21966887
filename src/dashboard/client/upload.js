// Upload forms (data-upload): drag and drop onto the drop zone, then the upload sent with
// XMLHttpRequest so its progress is real (bytes sent of the total), then processing followed
// page by page from the dashboard's status JSON until the reader link appears. Without this
// script the same form posts as plain multipart and the server answers with a page.
import { pollStatus } from './status.js';

const MB = 1024 * 1024;

const sizeWords = (n) =>
  n < MB ? `${Math.max(1, Math.round(n / 1024))} KB` : `${(n / MB).toFixed(1)} MB`;

const setup = (form) => {
  const input = form.querySelector('input[type=file]');
  const zone = form.querySelector('[data-dropzone]');
  const errorText = form.querySelector('[data-file-error]');
  const button = form.querySelector('button[type=submit]');
  const box = form.querySelector('[data-progress]');
  const bar = box.querySelector('progress');
  const label = box.querySelector('[data-progress-label]');
  const text = box.querySelector('[data-progress-text]');
  const live = box.querySelector('[data-progress-live]');
  const maxBytes = Number(form.dataset.maxBytes);
  const token = form.querySelector('input[name=_csrf]').value;
  let lastSaid = '';

  const showError = (message) => {
    errorText.textContent = message;
    input.setAttribute('aria-invalid', 'true');
    box.hidden = true;
    button.disabled = false;
    input.disabled = false;
    input.focus();
  };
  const clearError = () => {
    errorText.textContent = '';
    input.removeAttribute('aria-invalid');
  };
  /** The bar and its words; screen readers hear the phase and every quarter, not each percent. */
  const show = (phase, value, max, words, say) => {
    box.hidden = false;
    label.textContent = phase;
    bar.max = max;
    if (value === null) bar.removeAttribute('value');
    else bar.value = value;
    text.textContent = words;
    if (say && say !== lastSaid) {
      lastSaid = say;
      live.textContent = say;
    }
  };

  // Drag and drop: the dropped file becomes the input's file, so the form sends it either way.
  for (const type of ['dragenter', 'dragover']) {
    zone.addEventListener(type, (event) => {
      event.preventDefault();
      zone.classList.add('over');
    });
  }
  for (const type of ['dragleave', 'dragend']) {
    zone.addEventListener(type, () => zone.classList.remove('over'));
  }
  zone.addEventListener('drop', (event) => {
    event.preventDefault();
    zone.classList.remove('over');
    const dropped = event.dataTransfer?.files;
    if (dropped && dropped.length > 1) {
      showError(`Drop one PDF at a time (${dropped.length} files were dropped).`);
      return;
    }
    if (dropped?.length) {
      input.files = dropped;
      input.dispatchEvent(new Event('change', { bubbles: true }));
    }
  });
  input.addEventListener('change', () => {
    clearError();
    const file = input.files?.[0];
    zone.dataset.file = file ? `${file.name} · ${sizeWords(file.size)}` : '';
  });

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearError();
    const file = input.files?.[0];
    if (!file) return showError('Choose a PDF first.');
    if (file.size > maxBytes) {
      return showError(
        `File too large for the ${form.dataset.plan} plan: the upload limit is ${maxBytes / MB} MB, this file is ${(file.size / MB).toFixed(1)} MB`,
      );
    }
    const body = new FormData(form);
    button.disabled = true;
    input.disabled = true;
    lastSaid = '';
    show('Uploading', 0, 100, '0%', `Uploading ${file.name}`);
    const xhr = new XMLHttpRequest();
    xhr.open('POST', form.action);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.setRequestHeader('X-CSRF-Token', token);
    xhr.upload.addEventListener('progress', (e) => {
      if (!e.lengthComputable) return;
      const percent = Math.floor((e.loaded / e.total) * 100);
      show(
        'Uploading',
        percent,
        100,
        `${percent}% of ${sizeWords(file.size)}`,
        `Uploading: ${Math.floor(percent / 25) * 25}%`,
      );
    });
    xhr.addEventListener('error', () =>
      showError('The upload was interrupted: check the connection and try again.'),
    );
    xhr.addEventListener('load', () => {
      let answer = null;
      try {
        answer = JSON.parse(xhr.responseText);
      } catch {
        // a page instead of JSON: the session ended (the sign-in page) or the server failed
      }
      if (xhr.status === 201 && answer) return accepted(answer);
      if (answer?.error) return showError(answer.error);
      showError(
        xhr.responseURL.includes('/login')
          ? 'Your session has ended: sign in again, then upload.'
          : 'Something went wrong on our side; try again in a moment.',
      );
    });
    xhr.send(body);
  });

  const accepted = (answer) => {
    show('Processing', null, 1, 'Waiting for its turn…', 'Uploaded. Processing…');
    // A new version: its row on this page follows it from here.
    if (form.dataset.upload === 'version') {
      location.assign(`${answer.flipbook_url}?notice=uploaded#versions`);
      return;
    }
    pollStatus(answer.status_url, (s) => {
      if (s.status === 'processing' && s.pageCount > 0) {
        show(
          'Processing',
          s.pagesReady,
          s.pageCount,
          `${s.pagesReady} of ${s.pageCount} pages`,
          `Processing: ${s.pagesReady} of ${s.pageCount} pages`,
        );
      }
      if (s.status === 'error') showError(`The PDF could not be processed: ${s.error}`);
      if (s.status === 'done') done(answer, s);
    }).catch((error) => showError(error.message));
  };

  const done = (answer, s) => {
    show('Processed', s.pageCount, s.pageCount || 1, `${s.pageCount} of ${s.pageCount} pages`, '');
    const panel = document.querySelector('[data-done]');
    panel.querySelector('[data-reader-link]').href = answer.reader_url;
    panel.querySelector('[data-manage-link]').href = answer.flipbook_url;
    form.hidden = true;
    panel.hidden = false;
    panel.focus();
  };
};

for (const form of document.querySelectorAll('form[data-upload]')) setup(form);
