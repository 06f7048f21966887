// Upload forms (data-upload): drag and drop onto the drop zone, then the upload sent with
// XMLHttpRequest so its progress is real (bytes sent of the total), then processing followed
// page by page from the dashboard's status JSON until the reader link appears. Without this
// script the same form posts as plain multipart and the server answers with a page.
// One file (over 300 lines): one form's life in the browser, drop, send, follow, as one script the
// page loads.
import { pollStatus, type VersionStatus } from './status.ts';

/** An accepted upload: where to follow it, where it will be read (src/dashboard/uploadRoutes.ts). */
type Accepted = { status_url: string; reader_url: string; flipbook_url: string; error?: undefined };
/** A refused upload, in the server's words (or ours, when the answer was no JSON). */
type Refusal = { error: string };
type Answer = Accepted | Refusal;

const isAccepted = (status: number, answer: Answer | null): answer is Accepted =>
  status === 201 && !!answer && !answer.error;

/** An element of the upload form, which the server always renders (./pages/uploadForm.ts). */
const part = <T extends Element>(root: ParentNode, selector: string) =>
  root.querySelector(selector) as T;

const MB = 1024 * 1024;

const sizeWords = (n: number) =>
  n < MB ? `${Math.max(1, Math.round(n / 1024))} KB` : `${(n / MB).toFixed(1)} MB`;

/** One upload with XMLHttpRequest (real progress): resolves with the status and the JSON answer. */
const send = (
  form: HTMLFormElement,
  token: string,
  body: FormData,
  onProgress: (loaded: number, total: number) => void,
) =>
  new Promise<{ status: number; answer: Answer | null }>((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', form.action);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.setRequestHeader('X-CSRF-Token', token);
    xhr.upload.addEventListener('progress', (e) => {
      if (e.lengthComputable) onProgress(e.loaded, e.total);
    });
    xhr.addEventListener('error', () =>
      resolve({
        status: 0,
        answer: { error: 'The upload was interrupted: check the connection.' },
      }),
    );
    xhr.addEventListener('load', () => {
      let answer: Answer | null = null;
      try {
        answer = JSON.parse(xhr.responseText);
      } catch {
        answer = {
          error: xhr.responseURL.includes('/login')
            ? 'Your session has ended: sign in again, then upload.'
            : 'Something went wrong on our side; try again in a moment.',
        };
      }
      resolve({ status: xhr.status, answer });
    });
    xhr.send(body);
  });

const setup = (form: HTMLFormElement) => {
  const input = part<HTMLInputElement>(form, 'input[type=file]');
  const zone = part<HTMLElement>(form, '[data-dropzone]');
  const errorText = part<HTMLElement>(form, '[data-file-error]');
  const button = part<HTMLButtonElement>(form, 'button[type=submit]');
  const box = part<HTMLElement>(form, '[data-progress]');
  const bar = part<HTMLProgressElement>(box, 'progress');
  const label = part<HTMLElement>(box, '[data-progress-label]');
  const text = part<HTMLElement>(box, '[data-progress-text]');
  const live = part<HTMLElement>(box, '[data-progress-live]');
  const maxBytes = Number(form.dataset.maxBytes);
  const token = part<HTMLInputElement>(form, 'input[name=_csrf]').value;
  let lastSaid = '';

  const showError = (message: string) => {
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
  const show = (phase: string, value: number | null, max: number, words: string, say: string) => {
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
  // New flipbooks: several PDFs at once (each its own flipbook, sent one after another). Without
  // the script the form takes one, as the server's plain form does.
  const many = form.dataset.upload === 'flipbook';
  if (many) input.multiple = true;
  // ...and the hint says so (served saying one PDF, which is what the form takes without us).
  const dropWords = zone.querySelector<HTMLElement>('[data-drop-words]');
  if (many && dropWords?.dataset.many) dropWords.textContent = dropWords.dataset.many;
  zone.addEventListener('drop', (event) => {
    event.preventDefault();
    zone.classList.remove('over');
    const dropped = event.dataTransfer?.files;
    if (dropped && dropped.length > 1 && !many) {
      showError(`Drop one file at a time (${dropped.length} files were dropped).`);
      return;
    }
    if (dropped?.length) {
      input.files = dropped;
      input.dispatchEvent(new Event('change', { bubbles: true }));
    }
  });
  // What the service takes (a PDF, an office document, an image, a ZIP of images), by its name
  // or its type: anything else dropped with them is set aside (and said), not counted among
  // them. The server tells by content anyway (a refusal says so in words).
  const TAKEN = /\.(pdf|docx?|odt|rtf|pptx?|odp|xlsx?|ods|jpe?g|png|webp|tiff?|zip)$/i;
  const TAKEN_TYPE = /^(application\/pdf|image\/(jpeg|png|webp|tiff)|application\/zip)$/;
  const isTaken = (f: File) => TAKEN.test(f.name) || TAKEN_TYPE.test(f.type);
  const title = form.querySelector<HTMLInputElement>('input[name="title"]');
  input.addEventListener('change', () => {
    clearError();
    const all = [...(input.files ?? [])];
    const files = many ? all.filter(isTaken) : all;
    if (files.length < all.length) {
      const left = all.length - files.length;
      showError(
        `${left} file${left > 1 ? 's are' : ' is'} not a PDF, an office document or an image and will not be uploaded.`,
      );
      const kept = new DataTransfer();
      for (const f of files) kept.items.add(f);
      input.files = kept.files;
    }
    const size = files.reduce((sum, f) => sum + f.size, 0);
    zone.dataset.file =
      files.length > 1
        ? `${files.length} files · ${sizeWords(size)}`
        : files[0]
          ? `${files[0].name} · ${sizeWords(files[0].size)}`
          : '';
    // Several files are titled after themselves: one title cannot be each one's.
    if (title) {
      title.disabled = files.length > 1;
      title.placeholder = files.length > 1 ? 'Each flipbook takes its file’s name' : '';
    }
  });

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearError();
    const file = input.files?.[0];
    if (!file) return showError('Choose a PDF first.');
    if (many && input.files && input.files.length > 1) return uploadMany([...input.files]);
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
    send(form, token, body, (loaded, total) => {
      const percent = Math.floor((loaded / total) * 100);
      show(
        'Uploading',
        percent,
        100,
        `${percent}% of ${sizeWords(file.size)}`,
        `Uploading: ${Math.floor(percent / 25) * 25}%`,
      );
    }).then(({ status, answer }) => {
      if (isAccepted(status, answer)) return accepted(answer);
      showError(answer?.error ?? 'Something went wrong on our side; try again in a moment.');
    });
  });

  // Several PDFs: a list with a row each (its own progress and outcome), sent one after another;
  // each becomes a flipbook titled after its file. A refusal stops only its own row.
  const uploadMany = async (files: File[]) => {
    const tooBig = files.find((f) => f.size > maxBytes);
    if (tooBig) {
      return showError(
        `${tooBig.name} is too large for the ${form.dataset.plan} plan: the upload limit is ${maxBytes / MB} MB`,
      );
    }
    button.disabled = true;
    input.disabled = true;
    const list = document.createElement('ol');
    list.className = 'queue';
    list.setAttribute('aria-label', 'Uploads');
    const rows = files.map((file) => {
      const row = document.createElement('li');
      const name = document.createElement('span');
      name.className = 'queue-name';
      name.textContent = file.name;
      const state = document.createElement('span');
      state.className = 'queue-state';
      state.textContent = 'Waiting';
      const bar = document.createElement('progress');
      bar.max = 100;
      bar.value = 0;
      bar.setAttribute('aria-label', `${file.name}: progress`);
      row.append(name, state, bar);
      list.append(row);
      return { file, row, state, bar };
    });
    // What happened, said as it happens (a visible live region: the bar's box stays hidden).
    const summary = document.createElement('p');
    summary.className = 'queue-summary';
    summary.setAttribute('role', 'status');
    part<HTMLElement>(form, '.upload-actions').after(list, summary);
    let ready = 0;
    let failed = 0;
    const say = (words: string) => {
      summary.textContent = words;
    };
    say(`Uploading ${files.length} PDFs, one after another.`);
    const following: Promise<void>[] = [];
    for (const item of rows) {
      item.state.textContent = 'Uploading';
      const body = new FormData();
      body.append('_csrf', token);
      // Who can read them: the form's choice, for every one of the files.
      const visibility = form.querySelector<HTMLInputElement>('input[name="visibility"]:checked');
      if (visibility) body.append('visibility', visibility.value);
      body.append('file', item.file);
      const { status, answer } = await send(form, token, body, (loaded, total) => {
        item.bar.value = Math.floor((loaded / total) * 100);
      });
      if (!isAccepted(status, answer)) {
        failed++;
        item.row.classList.add('failed');
        item.state.textContent = answer?.error ?? 'Refused';
        item.bar.remove();
        say(`${item.file.name}: ${item.state.textContent}`);
        continue;
      }
      item.state.textContent = 'Processing';
      item.bar.removeAttribute('value');
      following.push(
        pollStatus(answer.status_url, (s) => {
          if (s.status === 'processing' && s.pageCount > 0) {
            item.bar.max = s.pageCount;
            item.bar.value = s.pagesReady;
            item.state.textContent = `Processing: ${s.pagesReady} of ${s.pageCount} pages`;
          }
        })
          .then((s) => {
            item.bar.remove();
            if (s.status === 'error') {
              failed++;
              item.row.classList.add('failed');
              // The flipbook stays (failed): where to upload a better PDF or delete it.
              const manage = document.createElement('a');
              manage.href = answer.flipbook_url;
              manage.textContent = 'Manage';
              item.state.textContent = `Could not be processed: ${s.error} · `;
              item.state.append(manage);
              return;
            }
            ready++;
            item.state.textContent = '';
            const link = document.createElement('a');
            link.href = answer.reader_url;
            link.textContent = 'Open the reader';
            const manage = document.createElement('a');
            manage.href = answer.flipbook_url;
            manage.textContent = 'Manage';
            item.state.append('Ready · ', link, ' · ', manage);
          })
          .catch((error: Error) => {
            failed++;
            item.state.textContent = error.message;
          }),
      );
    }
    await Promise.all(following);
    say(`${ready} of ${files.length} PDFs ready${failed ? `, ${failed} not` : ''}.`);
    button.disabled = false;
    input.disabled = false;
    input.value = '';
    zone.dataset.file = '';
  };

  const accepted = (answer: Accepted) => {
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
    }).catch((error: Error) => showError(error.message));
  };

  const done = (answer: Accepted, s: VersionStatus) => {
    show('Processed', s.pageCount, s.pageCount || 1, `${s.pageCount} of ${s.pageCount} pages`, '');
    // The page that has the flipbook upload form has this panel (./pages/upload.ts).
    const panel = part<HTMLElement>(document, '[data-done]');
    part<HTMLAnchorElement>(panel, '[data-reader-link]').href = answer.reader_url;
    part<HTMLAnchorElement>(panel, '[data-manage-link]').href = answer.flipbook_url;
    form.hidden = true;
    panel.hidden = false;
    panel.focus();
  };
};

for (const form of document.querySelectorAll<HTMLFormElement>('form[data-upload]')) setup(form);
