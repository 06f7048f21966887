// The go-to-page panel. Loaded the first time the panel opens (./panels.ts).
import type { Builder } from './panelTypes.ts';
import { say } from './say.ts';

/** Go to a page by its printed label ("iv", "12") or its number. */
export const buildGoto: Builder = (body, reader, close) => {
  const form = document.createElement('form');
  form.className = 'goto';
  const id = 'goto-input';
  const label = document.createElement('label');
  label.htmlFor = id;
  label.textContent = say(reader.book.labels.size ? 'gotoLabelled' : 'gotoNumber', {
    total: reader.book.total,
  });
  const input = document.createElement('input');
  input.id = id;
  input.type = 'text';
  input.inputMode = reader.book.labels.size ? 'text' : 'numeric';
  input.autocomplete = 'off';
  input.required = true;
  const submit = document.createElement('button');
  submit.type = 'submit';
  submit.textContent = say('go');
  const message = document.createElement('p');
  message.className = 'message-line';
  message.setAttribute('role', 'status');
  form.append(label, input, submit, message);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const n = reader.pageFor(input.value);
    if (n === null) {
      message.textContent = say('noSuchPage', { input: input.value.trim() });
      input.setAttribute('aria-invalid', 'true');
      return;
    }
    input.removeAttribute('aria-invalid');
    message.textContent = '';
    close();
    reader.jump(n);
    document.getElementById('book')?.focus();
  });
  body.append(form);
};
